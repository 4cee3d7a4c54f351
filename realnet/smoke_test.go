package realnet_test

import (
	"context"
	"testing"

	"github.com/macepc/macepc/realnet"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/systems/randtree"
)

func TestSmoke(t *testing.T) {
	dir := t.TempDir()
	sc, _ := pingpong.System().Scenario("default", 4)
	res, err := realnet.Run(context.Background(), realnet.Config{System: "pingpong", Variant: "default", Scenario: sc, Seed: 1, Dir: dir})
	t.Logf("%+v %v", res, err)
	rs, _ := randtree.System().Scenario("buggy", 16)
	res, err = realnet.Run(context.Background(), realnet.Config{System: "randtree", Variant: "buggy", Scenario: rs, Seed: 1, Dir: dir + "/r", TimeScale: 0.05})
	t.Logf("%+v %v", res, err)
	rr, err := realnet.ReadRun(dir + "/r")
	t.Log(err, len(rr.Nodes))
}
