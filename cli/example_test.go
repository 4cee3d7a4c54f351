package cli_test

import (
	"context"
	"fmt"
	"os"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/systems/pingpong"
)

// A binary of your own registers its systems and gets the whole command
// line; here it lists them.
func ExampleRun() {
	status := cli.Run(context.Background(), []string{"systems"}, os.Stdout, os.Stderr, pingpong.System())
	fmt.Println("exit status", status)
	// Output:
	// pingpong: null protocol: pairs of nodes exchange Ping/Pong (benchmarks, CLI tests)
	//   default: --variant default --nodes 2
	//   variant default  every pair plays 10 rounds
	//   variant endless  pairs play forever (bound it with a step limit)
	// exit status 0
}
