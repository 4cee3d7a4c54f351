package realnet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/macepc/macepc/realnet"
	"github.com/macepc/macepc/systems/pingpong"
)

// A real run of two pingpong nodes on loopback, recorded and replayed.
// The timings vary from run to run; what the replay finds does not.
func Example() {
	dir, _ := os.MkdirTemp("", "realnet-example")
	defer os.RemoveAll(dir)
	run := filepath.Join(dir, realnet.RunDirName(0))
	sc := pingpong.Scenario(2, 10)
	res, err := realnet.Run(context.Background(), realnet.Config{System: "pingpong", Variant: "default", Scenario: sc, Seed: 1, Dir: run})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("stopped:", res.Stopped, "messages:", res.Messages)
	rt, err := realnet.ReadRun(run)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := realnet.Replay(pingpong.Scenario(2, 10), rt, realnet.ReplayOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("replayed", rep.Steps, "of", rep.Total, "events; nondeterminism:", rep.Nondeterminism != nil, "; stop at step", rep.StopStep)
	// Output:
	// stopped: true messages: 20
	// replayed 22 of 22 events; nondeterminism: false ; stop at step 21
}
