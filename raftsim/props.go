package raftsim

import (
	"slices"

	"go.etcd.io/raft/v3"

	"github.com/macepc/macepc/timedsim"
)

// Property names.
const (
	PropOneLeaderPerTerm   = "one-leader-per-term"
	PropCommittedLogsAgree = "committed-logs-agree"
	PropOneLeader          = "one-leader"
)

// NodeOf returns the raft node of node id: the service itself, or the
// *Node a wrapping service embeds (any service with a RaftNode method).
// It panics on any other service: a scenario bug.
func NodeOf(w timedsim.World, id timedsim.NodeID) *Node {
	return w.Node(id).(interface{ RaftNode() *Node }).RaftNode()
}

// Safety returns raft's safety properties, checked on the nodes' durable
// state and ghost records after every event:
//
//   - one-leader-per-term (Election Safety): no two nodes have ever been
//     leader in the same term, over the whole history (each node's ghost
//     record of the terms it led survives its resets);
//   - committed-logs-agree (Log Matching on committed entries): any two
//     nodes' persisted logs are identical up to the smaller of their
//     persisted commit indexes (compared by hash chains of term, type and
//     data).
func Safety() []timedsim.Property {
	return []timedsim.Property{
		{Name: PropOneLeaderPerTerm, Check: oneLeaderPerTerm},
		{Name: PropCommittedLogsAgree, Check: committedLogsAgree},
	}
}

func oneLeaderPerTerm(w timedsim.World) bool {
	n := w.Nodes()
	for a := range n {
		da := NodeOf(w, timedsim.NodeID(a)).disk
		if da == nil || len(da.led) == 0 {
			continue
		}
		for b := a + 1; b < n; b++ {
			db := NodeOf(w, timedsim.NodeID(b)).disk
			if db == nil {
				continue
			}
			for _, t := range db.led {
				if _, found := slices.BinarySearch(da.led, t); found {
					return false
				}
			}
		}
	}
	return true
}

func committedLogsAgree(w timedsim.World) bool {
	n := w.Nodes()
	for a := range n {
		da := NodeOf(w, timedsim.NodeID(a)).disk
		if da == nil {
			continue
		}
		for b := a + 1; b < n; b++ {
			db := NodeOf(w, timedsim.NodeID(b)).disk
			if db == nil {
				continue
			}
			k := min(da.commit, db.commit, da.lastIndex(), db.lastIndex())
			ha, okA := da.prefixHash(k)
			hb, okB := db.prefixHash(k)
			if okA && okB && ha != hb {
				return false
			}
		}
	}
	return true
}

// OneLeader is a liveness property: among the nodes that are up (booted,
// and not stopped for good by a crash-stop of the liveness mode:
// timedsim.Crashed), exactly one is leader in the highest term any of
// them has reached.
func OneLeader() timedsim.Property {
	return timedsim.Property{Name: PropOneLeader, Check: oneLeader}
}

func oneLeader(w timedsim.World) bool {
	up := func(i int) (Status, bool) {
		if timedsim.Crashed(w, timedsim.NodeID(i)) {
			return Status{}, false
		}
		st := NodeOf(w, timedsim.NodeID(i)).Status()
		return st, st.Booted
	}
	var top uint64
	for i := range w.Nodes() {
		if st, ok := up(i); ok && st.Term > top {
			top = st.Term
		}
	}
	leaders := 0
	for i := range w.Nodes() {
		if st, ok := up(i); ok && st.Term == top && st.Role == raft.StateLeader {
			leaders++
		}
	}
	return leaders == 1
}
