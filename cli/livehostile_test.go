package cli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// Issue 28 items 13 and 17 as the commands see them: a Describe that
// panics in a replay, and the cost of a liveness search too large to
// finish.

// counter counts its ticks to three; live when every node has. Its
// Describe panics (with a line that would forge one of stdout) if boom,
// or ranges over a map if mapped.
type counter struct {
	Ticks        int
	Seen         map[int]bool
	boom, mapped bool
}

const forgedSearch = "\nsearch: depth 10, 0 paths, 0 states; ended: exhausted\nno violation\u202e"

func (c *counter) Init(ctx timedsim.Context)                                   { ctx.SetTimer("tick", time.Millisecond, nil) }
func (c *counter) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}
func (c *counter) Timer(ctx timedsim.Context, _ string, _ any) {
	c.Ticks++
	c.Seen[c.Ticks] = true
	if c.Ticks < 3 {
		ctx.SetTimer("tick", time.Millisecond, nil)
	}
}

func (c *counter) Describe() string {
	if c.boom {
		panic("no state" + forgedSearch)
	}
	s := fmt.Sprintf("ticks=%d", c.Ticks)
	if c.mapped {
		for k := range c.Seen {
			s += fmt.Sprintf(" %d", k)
		}
	}
	return s
}

// counterSystem is the counter with variants "boom" and "mapped"; slow,
// if positive, is how long node 0's constructor takes.
func counterSystem(slow time.Duration) timedsim.System {
	return timedsim.System{
		Name: "counter", Doc: "test system whose Describe panics (boom) or follows a map's order (mapped)",
		Variants: []timedsim.Variant{{Name: "boom"}, {Name: "mapped"}}, DefaultNodes: 2,
		Build: func(variant string, nodes int) (*timedsim.Scenario, error) {
			return &timedsim.Scenario{Nodes: nodes, Timeout: time.Second, Network: netmodel.DefaultConfig(), Stop: func(timedsim.World) bool { return false },
				New: func(id timedsim.NodeID) timedsim.Service {
					if id == 0 && slow > 0 {
						time.Sleep(slow)
					}
					c := &counter{Seen: map[int]bool{}, boom: variant == "boom", mapped: variant == "mapped"}
					for k := 10; k < 20; k++ {
						c.Seen[k] = true
					}
					return c
				},
				Liveness: []timedsim.Property{{Name: "counted", Check: func(w timedsim.World) bool {
					for i := range w.Nodes() {
						if w.Node(timedsim.NodeID(i)).(*counter).Ticks < 3 {
							return false
						}
					}
					return true
				}}},
			}, nil
		},
	}
}

// cancelOn is a writer, shared by stdout and stderr, that cancels the
// command when a line with one of words is written.
type cancelOn struct {
	mu     sync.Mutex
	b      strings.Builder
	words  []string
	cancel func()
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.b.Write(p)
	for _, w := range c.words {
		if strings.Contains(string(p), w) {
			c.cancel()
		}
	}
	return len(p), nil
}

// Item 17: before the search starts, a search whose first iteration
// alone will take more than the cost warning's limit says so, from the
// initial state's enabled events and the time to start again from it
// (here 5000 nodes, whose start takes at least 0.2 s: at least 1000 s),
// as the timed phases do from their first executions (before: minutes
// without a word). The test stops the search at the warning, or at its
// first progress line, which comes only after the search started.
func TestRunLivenessWarnsOfItsCost(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &cancelOn{words: []string{"macepc: warning:", "macepc: progress:"}, cancel: cancel}
	st := cli.Run(ctx, []string{"run", "--liveness", "--system", "counter", "--variant", "mapped", "--nodes", "5000", "--out", t.TempDir(), "--progress", "always"}, w, w, counterSystem(200*time.Millisecond))
	out := w.b.String()
	warn := strings.Index(out, "macepc: warning: liveness: the initial state has 5000 enabled events, and every DFS sequence starts again from it, which took ")
	header, search := strings.Index(out, "macepc run --liveness:"), strings.Index(out, "search: ")
	if st != cli.ExitError || warn < 0 || !strings.Contains(out, "the first iteration (depth 5) runs at least one sequence per enabled event, at least ") ||
		!(header < warn && (search < 0 || warn < search)) || !strings.Contains(out, "search interrupted") {
		t.Fatalf("status %d\n%s", st, out)
	}
}

// Item 13 in the timed pipeline: simulate describes no state, so a
// Describe that panics changes none of its results; a replay, which
// describes the states, says FINDING (exit 1) and where, and explore
// marks it, instead of showing "<Describe panicked: …>" as a state.
func TestReplayDescribePanicIsAFinding(t *testing.T) {
	dir := t.TempDir()
	out, errOut, st := runWith(t, counterSystem(0), "simulate", "--system", "counter", "--variant", "boom", "--runs", "2", "--out", dir, "--progress", "never")
	if st != cli.ExitOK {
		t.Fatalf("simulate: status %d\n%s%s", st, out, errOut)
	}
	path := filepath.Join(dir, "replayed.path.json")
	_, errOut, st = runWith(t, counterSystem(0), "replay", "--run", dir, "--index", "0", "--log", filepath.Join(dir, "replayed.log"), "--save-path", path)
	const want = `FINDING: n0's Describe panicked on its state after step 7: no state\nsearch: depth 10`
	if st != cli.ExitFinding || !strings.Contains(errOut, want) {
		t.Fatalf("replay: status %d\n%s", st, errOut)
	}
	html := filepath.Join(dir, "x.html")
	if _, errOut, st = runWith(t, counterSystem(0), "explore", "--path", path, "--out", html); st != cli.ExitOK {
		t.Fatalf("explore: status %d\n%s", st, errOut)
	}
	if b, _ := os.ReadFile(html); !strings.Contains(string(b), "Describe panicked on its initial state") {
		t.Errorf("explore.html does not mark the panic")
	}
}
