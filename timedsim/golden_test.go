package timedsim_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/timedsim"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// The event log of a small execution, pinned: its format, and every
// duration, delay and ordering the simulator produced for this path. A
// change here means old paths replay differently — bump the affected
// systems' Revision. Regenerate with go test ./timedsim -update and review.
func TestEventLogGolden(t *testing.T) {
	cases := map[string]func() *timedsim.Scenario{
		"pingpong-2x3": func() *timedsim.Scenario { return pingpong.Scenario(2, 3) },
		"gossip-4":     func() *timedsim.Scenario { return gossipScenario(4) },
	}
	for name, sc := range cases {
		t.Run(name, func(t *testing.T) {
			scen := sc()
			r := newSim(t, scen, timedsim.Options{Record: true}).Run(timedsim.SeedPath(1).Branch(4, 2))
			var b bytes.Buffer
			if err := timedsim.WriteEventLog(&b, timedsim.LogHeader{System: name, Variant: "v", Nodes: scen.Nodes, ConfigHash: "-", Path: r.Path}, r); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", name+".log.golden")
			if *update {
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test ./timedsim -update creates it)", err)
			}
			if got := b.String(); got != string(want) {
				t.Fatalf("event log differs from %s:\n%s", path, firstDiff(string(want), got))
			}
			if !strings.Contains(b.String(), "# path=0:1,4:2") {
				t.Fatal("header does not name the path")
			}
		})
	}
}
