package etcdraft_test

import (
	"testing"

	"github.com/macepc/macepc/systems/etcdraft"
	"github.com/macepc/macepc/timedsim"
)

// TestNotForkable: etcd raft's RawNode keeps its volatile state (the
// progress tracker, votes, election timers) in unexported fields that no
// API copies, so the service is not a timedsim.Cloner and the divergence
// search replays its prefixes. This test fails if that changes, so that
// the change comes with a forktest.Check.
func TestNotForkable(t *testing.T) {
	for _, v := range etcdraft.System().VariantNames() {
		sc, err := etcdraft.System().Scenario(v, 0)
		if err != nil {
			t.Fatal(err)
		}
		if timedsim.Forkable(sc) {
			t.Errorf("%s: the services are Cloners now: check them with forktest.CheckSystem", v)
		}
	}
}
