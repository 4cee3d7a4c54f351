package raftsim

import (
	"fmt"
	"strings"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// Message is a raft message on the simulated wire: its protobuf encoding,
// as a transport would send it. Its Size is the encoding's length, its
// label is raft's message type ("deliver MsgApp"), and the receiver decodes
// its own copy, so no two nodes ever share a raft message or log entry.
type Message struct {
	Type raftpb.MessageType
	Wire []byte
}

// Size implements timedsim.Message: the protobuf encoding's length.
func (m Message) Size() int { return len(m.Wire) }

// MessageLabel implements timedsim.Labeler: raft's name of the message
// type (MsgApp, MsgVote, MsgHeartbeat, …).
func (m Message) MessageLabel() string { return typeName(m.Type) }

// Decode returns the raft message.
func (m Message) Decode() (*raftpb.Message, error) {
	var pm raftpb.Message
	if err := proto.Unmarshal(m.Wire, &pm); err != nil {
		return nil, fmt.Errorf("raftsim: decoding a %s: %w", typeName(m.Type), err)
	}
	return &pm, nil
}

// Describe renders the message on one line with raft's DescribeMessage
// (entries' data quoted).
func (m Message) Describe() string {
	pm, err := m.Decode()
	if err != nil {
		return err.Error()
	}
	return strings.Join(strings.Fields(raft.DescribeMessage(pm, quoted)), " ")
}

func quoted(b []byte) string { return fmt.Sprintf("%q", b) }

// encode puts a raft message on the wire.
func encode(pm *raftpb.Message) Message {
	b, err := proto.Marshal(pm)
	if err != nil { // a message raft built always encodes
		panic(fmt.Sprintf("raftsim: encoding a %v: %v", pm.GetType(), err))
	}
	return Message{Type: pm.GetType(), Wire: b}
}

// typeNames are raft's message type names by number, built once (the
// generated String goes through the protobuf registry on every call).
var typeNames = func() map[raftpb.MessageType]string {
	out := make(map[raftpb.MessageType]string, len(raftpb.MessageType_name))
	for n, s := range raftpb.MessageType_name {
		out[raftpb.MessageType(n)] = s
	}
	return out
}()

func typeName(t raftpb.MessageType) string {
	if s, ok := typeNames[t]; ok {
		return s
	}
	return t.String()
}
