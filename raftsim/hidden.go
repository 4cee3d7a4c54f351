package raftsim

import (
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/tracker"
)

// hidden renders the state raft keeps to itself and that decides what it
// does next — its election and heartbeat clocks, its randomized election
// timeout, the votes it has counted, its unstable log — read by
// reflection (never written), and the leader's view of its followers
// (RawNode.WithProgress). Without them two states that differ in a tick
// count look alike to the liveness mode's state hashing, which would then
// prune sequences that were not duplicates and could declare a state
// space exhausted that is not. Field names are those of the pinned raft
// version; a missing field renders as "?" (TestHiddenFieldsFound checks).
func hidden(rn *raft.RawNode) string {
	r := reflect.ValueOf(rn).Elem().FieldByName("raft")
	if !r.IsValid() || r.IsNil() {
		return "raft{?}"
	}
	r = r.Elem()
	var b strings.Builder
	b.WriteString("raft{elapsed=" + intField(r, "electionElapsed") + "/" + intField(r, "randomizedElectionTimeout") +
		" hb=" + intField(r, "heartbeatElapsed"))
	if votes := r.FieldByName("trk").FieldByName("Votes"); votes.IsValid() && votes.Len() > 0 {
		ids := make([]uint64, 0, votes.Len())
		granted := map[uint64]bool{}
		it := votes.MapRange()
		for it.Next() {
			ids = append(ids, it.Key().Uint())
			granted[it.Key().Uint()] = it.Value().Bool()
		}
		slices.Sort(ids)
		b.WriteString(" votes=")
		for i, id := range ids {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatUint(id, 10))
			if granted[id] {
				b.WriteString("+")
			} else {
				b.WriteString("-")
			}
		}
	}
	if u := r.FieldByName("raftLog"); u.IsValid() && !u.IsNil() {
		u = u.Elem().FieldByName("unstable")
		if ents := u.FieldByName("entries"); ents.IsValid() && ents.Len() > 0 {
			off := uintField(u, "offset")
			b.WriteString(" unstable=" + off + "+" + strconv.Itoa(ents.Len()))
		}
	}
	first := true
	rn.WithProgress(func(id uint64, _ raft.ProgressType, pr tracker.Progress) {
		if first {
			b.WriteString(" progress=")
			first = false
		} else {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatUint(id, 10) + ":" + pr.State.String() + ":" + strconv.FormatUint(pr.Match, 10) + "/" + strconv.FormatUint(pr.Next, 10))
		if pr.RecentActive {
			b.WriteString("a")
		}
		if pr.MsgAppFlowPaused {
			b.WriteString("p")
		}
	})
	b.WriteByte('}')
	return b.String()
}

func intField(v reflect.Value, name string) string {
	f := v.FieldByName(name)
	if !f.IsValid() || !f.CanInt() {
		return "?"
	}
	return strconv.FormatInt(f.Int(), 10)
}

func uintField(v reflect.Value, name string) string {
	f := v.FieldByName(name)
	if !f.IsValid() || !f.CanUint() {
		return "?"
	}
	return strconv.FormatUint(f.Uint(), 10)
}
