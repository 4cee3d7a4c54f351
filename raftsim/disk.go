package raftsim

import (
	"encoding/binary"
	"slices"

	"github.com/cespare/xxhash/v2"
	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
)

// Disk is what survives a node's reset (timedsim.Durable): raft's
// MemoryStorage, holding exactly what the node has persisted — entries,
// HardState and snapshot are written to it only in the persist step, so
// nothing raft holds in memory only survives — and two records that are
// not raft's state but the world's around it:
//
//   - the clients' proposals the node accepted and has not applied yet
//     (a client outlives the crash of its server and submits them again
//     when it is back), and
//   - ghost records for the safety properties: the terms in which the node
//     was leader, and a hash chain of its persisted log. They are never
//     read by the node.
type Disk struct {
	Storage *raft.MemoryStorage
	// pending client proposals, in arrival order
	pending []proposal
	// ghost: terms in which the node was leader, ascending
	led []uint64
	// ghost: chain[i] hashes the persisted log up to index base+i
	base  uint64
	chain []uint64
	// the persisted HardState's commit index
	commit uint64
	h      *xxhash.Digest
}

type proposal struct {
	data  []byte
	tried int // tick of the last attempt, -1: not accepted by raft yet
}

// newDisk returns a disk whose log starts after a snapshot at index 1,
// term 1, with every node a voter: the state of a freshly bootstrapped
// cluster, as raft's documentation recommends.
func newDisk(nodes int) *Disk {
	ms := raft.NewMemoryStorage()
	voters := make([]uint64, nodes)
	for i := range voters {
		voters[i] = uint64(i) + 1
	}
	snap := &raftpb.Snapshot{Metadata: &raftpb.SnapshotMetadata{Index: new(uint64(1)), Term: new(uint64(1)), ConfState: &raftpb.ConfState{Voters: voters}}}
	if err := ms.ApplySnapshot(snap); err != nil {
		panic("raftsim: bootstrapping the storage: " + err.Error())
	}
	return &Disk{Storage: ms, base: 1, chain: []uint64{1}, h: xxhash.New()} // chain[0]: the snapshot's term
}

// write persists a Ready's snapshot, entries and HardState, in the order
// raft's documentation gives.
func (d *Disk) write(rd *raft.Ready) {
	if !raft.IsEmptySnap(rd.Snapshot) {
		if err := d.Storage.ApplySnapshot(rd.Snapshot); err != nil {
			panic("raftsim: persisting a snapshot: " + err.Error())
		}
		d.base = rd.Snapshot.GetMetadata().GetIndex()
		d.chain = append(d.chain[:0], rd.Snapshot.GetMetadata().GetTerm())
	}
	if len(rd.Entries) > 0 {
		if err := d.Storage.Append(rd.Entries); err != nil {
			panic("raftsim: persisting entries: " + err.Error())
		}
		d.extend(rd.Entries)
	}
	if !raft.IsEmptyHardState(rd.HardState) {
		if err := d.Storage.SetHardState(rd.HardState); err != nil {
			panic("raftsim: persisting the HardState: " + err.Error())
		}
		d.commit = rd.HardState.GetCommit()
	}
}

// extend updates the hash chain for entries just appended (which may
// overwrite a suffix of the log).
func (d *Disk) extend(ents []*raftpb.Entry) {
	first := ents[0].GetIndex()
	if first <= d.base {
		return // below the snapshot: not kept
	}
	keep := min(int(first-d.base), len(d.chain))
	d.chain = d.chain[:keep]
	var buf [17]byte
	for _, e := range ents {
		d.h.Reset()
		binary.LittleEndian.PutUint64(buf[:8], d.chain[len(d.chain)-1])
		binary.LittleEndian.PutUint64(buf[8:16], e.GetTerm())
		buf[16] = byte(e.GetType())
		d.h.Write(buf[:])
		d.h.Write(e.GetData())
		d.chain = append(d.chain, d.h.Sum64())
	}
}

// prefixHash returns the hash of the persisted log up to index i, and
// false if the disk does not hold index i.
func (d *Disk) prefixHash(i uint64) (uint64, bool) {
	if i < d.base || i-d.base >= uint64(len(d.chain)) {
		return 0, false
	}
	return d.chain[i-d.base], true
}

// lastIndex is the last persisted log index.
func (d *Disk) lastIndex() uint64 { return d.base + uint64(len(d.chain)) - 1 }

// ledTerm records that the node was leader in term t.
func (d *Disk) ledTerm(t uint64) {
	if n := len(d.led); n == 0 || d.led[n-1] != t {
		if i, found := slices.BinarySearch(d.led, t); !found {
			d.led = slices.Insert(d.led, i, t)
		}
	}
}

// Led returns the terms in which the node has been leader (a ghost record,
// kept across resets).
func (d *Disk) Led() []uint64 { return slices.Clone(d.led) }

// Commit returns the persisted commit index.
func (d *Disk) Commit() uint64 { return d.commit }
