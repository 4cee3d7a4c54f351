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

// Hostile protocols as `run --liveness` sees them: a Describe
// that panics, a Describe that is not deterministic, and the cost of a
// search too large to finish.

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

// Item 13: a Describe that panics is a panic, a finding with the path
// that replays to it (before: "VIOLATION (liveness)", every state hashed
// alike); its text shows on one line, its line break made visible.
func TestRunLivenessDescribePanicIsAFinding(t *testing.T) {
	dir := t.TempDir()
	out, errOut, st := runWith(t, counterSystem(0), "run", "--liveness", "--system", "counter", "--variant", "boom", "--out", dir, "--progress", "never")
	const want = `VIOLATION (panic): n0: Describe panicked: no state\nsearch: depth 10, 0 paths, 0 states; ended: exhausted\nno violation\u202e at step -1`
	if st != cli.ExitFinding || !strings.Contains(out, want) || strings.Contains(out, "(liveness)") || strings.Contains(out, "\u202e") {
		t.Fatalf("status %d\nstdout:\n%s\nstderr:\n%s", st, out, errOut)
	}
	log := filepath.Join(dir, "replayed.log")
	_, errOut, st = runWith(t, counterSystem(0), "replay", "--path", filepath.Join(dir, "dead.path.json"), "--log", log)
	b, _ := os.ReadFile(log)
	if st != cli.ExitFinding || !strings.Contains(string(b), "# end after 0 steps: panic: n0: Describe panicked: no state") {
		t.Fatalf("replay: status %d %s\n%s", st, errOut, b)
	}
	summary, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(summary), "Panic at step -1: n0: Describe panicked: no state") {
		t.Errorf("summary.md does not name the panic:\n%s", summary)
	}
}

// Item 14: a Describe that follows a map's order is a warning on stdout,
// in liveness.json and under the verdict of summary.md; the search goes
// on (its findings still replay), and a deterministic Describe gets none.
func TestRunLivenessNondeterministicDescribeIsWarned(t *testing.T) {
	const want = "warning: node n0's Describe is not deterministic: two calls on the same state gave different text (a map iterated in Go's random order?)"
	dir := t.TempDir()
	out, errOut, st := runWith(t, counterSystem(0), "run", "--liveness", "--system", "counter", "--variant", "mapped", "--nodes", "1", "--out", dir, "--progress", "never")
	if st != cli.ExitOK || strings.Count(out, want) != 1 {
		t.Fatalf("status %d\nstdout:\n%s\nstderr:\n%s", st, out, errOut)
	}
	for _, f := range []string{"liveness.json", "summary.md"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		if !strings.Contains(string(b), "Describe is not deterministic") {
			t.Errorf("%s lacks the warning:\n%s", f, b)
		}
	}
	out, _, _ = runRT(t, context.Background(), "run", "--liveness", "--system", "randtree", "--variant", "fixed", "--max-depth", "5", "--out", t.TempDir(), "--progress", "never")
	if strings.Contains(out, "warning") {
		t.Errorf("randtree's Describe is deterministic:\n%s", out)
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
	if st != cli.ExitError || warn < 0 || !strings.Contains(out, "the first iteration (depth 5) runs at least one sequence per enabled event (unless a violation ends it first), at least ") ||
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
