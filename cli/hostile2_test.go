package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/netmodel"
	"github.com/macepc/macepc/timedsim"
)

// Durations near the end of time, a Context used after its handler
// returned and a bound on --resamples, as the command line sees them.
// Nil arguments, interruption and concurrent runs are the Go API's (pipeline/nilargs_test.go, interrupt_test.go,
// concurrent_test.go).

// Durations near the int64 limit: a what-if factor of 1e20 gives the
// timeouts a factor of 1e15 gives (before: a 492.5 ms median, as if the
// handler had become faster), regress calls it a regression (before: "no
// regression", exit 0), and an edd.json whose durations are 2^63−1 ns is
// refused with a message that says why.
func TestDurationsNearTheInt64LimitAreNotWrapped(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"1e15", "1e20"} {
		var o, e bytes.Buffer
		st := runRandTree(context.Background(), []string{"simulate", "--edd", fixedEDD, "--runs", "10", "--out", filepath.Join(dir, "sim-"+f),
			"--scale", "deliver Join=" + f, "--progress", "never"}, &o, &e)
		if st != cli.ExitOK || !strings.Contains(o.String(), "median=300 s") || !strings.Contains(o.String(), "10 of 10 executions timed out") {
			t.Errorf("simulate --scale 'deliver Join=%s': status %d\n%s%s", f, st, o.String(), e.String())
		}
	}

	base := filepath.Join(dir, "base")
	var o, e bytes.Buffer
	if st := runRandTree(context.Background(), []string{"profile", "--edd", fixedEDD, "--profile-runs", "20", "--out", base, "--progress", "never"}, &o, &e); st != cli.ExitOK {
		t.Fatalf("profile: status %d\n%s", st, e.String())
	}
	o.Reset()
	e.Reset()
	st := runRandTree(context.Background(), []string{"regress", "--baseline", base, "--out", filepath.Join(dir, "cur"), "--scale", "deliver Join=1e20", "--progress", "never"}, &o, &e)
	if st != cli.ExitFinding || !strings.Contains(o.String(), "REGRESSION") {
		t.Errorf("regress --scale 'deliver Join=1e20': status %d\n%s%s", st, o.String(), e.String())
	}

	b, err := os.ReadFile(fixedEDD)
	if err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge-edd.json")
	if err := os.WriteFile(huge, []byte(maxTable(t, string(b))), 0o644); err != nil {
		t.Fatal(err)
	}
	o.Reset()
	e.Reset()
	st = runRandTree(context.Background(), []string{"simulate", "--edd", huge, "--runs", "3", "--out", filepath.Join(dir, "huge"), "--progress", "never"}, &o, &e)
	if st != cli.ExitError || !strings.Contains(e.String(), "exceeds the longest event duration") || !oneError(e.String()) {
		t.Errorf("an edd.json of 2^63-1 ns: status %d\n%s%s", st, o.String(), e.String())
	}
}

// oneError reports whether stderr holds one line besides warnings and
// notes: the error, without a Go trace.
func oneError(stderr string) bool {
	n := 0
	for _, l := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
		if l != "" && !strings.HasPrefix(l, "macepc: warning:") && !strings.HasPrefix(l, "macepc: note:") {
			n++
		}
	}
	return n == 1
}

// maxTable is the edd.json text with every table entry of its first label
// replaced by 2^63−1 ns (a table that stays non-decreasing and of its
// length, so that only the bound refuses it).
func maxTable(t *testing.T, s string) string {
	t.Helper()
	i := strings.Index(s, `"table_ns": [`)
	if i < 0 {
		t.Fatal("no table in the edd.json")
	}
	i += len(`"table_ns": [`)
	j := strings.IndexByte(s[i:], ']')
	n := strings.Count(s[i:i+j], ",") + 1
	return s[:i] + strings.TrimSuffix(strings.Repeat("9223372036854775807, ", n), ", ") + s[i+j:]
}

// leaky: node 0 ticks every 10 ms, 5 times; its first tick starts a
// goroutine that the second tick lets use the first tick's Context, and
// waits for (so that the misuse happens in every execution, while the
// simulator runs another handler: the attack of item 15 without its
// luck).
type leaky struct {
	id      timedsim.NodeID
	ticks   int
	release chan struct{}
	used    chan struct{}
}

func (l *leaky) Init(ctx timedsim.Context) {
	if l.id == 0 {
		ctx.SetTimer("tick", 10*time.Millisecond, nil)
	}
}

func (l *leaky) Deliver(timedsim.Context, timedsim.NodeID, timedsim.Message) {}

func (l *leaky) Timer(ctx timedsim.Context, _ string, _ any) {
	l.ticks++
	switch l.ticks {
	case 1:
		l.release, l.used = make(chan struct{}), make(chan struct{})
		go func() {
			<-l.release
			ctx.SetTimer("tick", time.Millisecond, nil) // the crash of item 15: index out of range in SetTimer
			close(l.used)
		}()
	case 2:
		close(l.release)
		<-l.used
	}
	if l.ticks < 5 {
		ctx.SetTimer("tick", 10*time.Millisecond, nil)
	}
}

func leakySystem() timedsim.System {
	return timedsim.System{
		Name: "leaky", Doc: "test system whose handler's goroutine uses its Context after the handler returned",
		Variants: []timedsim.Variant{{Name: "v"}}, DefaultNodes: 2,
		Build: func(_ string, nodes int) (*timedsim.Scenario, error) {
			return &timedsim.Scenario{Nodes: nodes, New: func(id timedsim.NodeID) timedsim.Service { return &leaky{id: id} },
				Stop:    func(w timedsim.World) bool { return w.Node(0).(*leaky).ticks >= 5 },
				Timeout: time.Second, Network: netmodel.DefaultConfig()}, nil
		},
	}
}

// A goroutine that uses its handler's Context after the handler returned
// is a finding, "Context used after its handler returned", with a path file
// whose replay finds it again, instead of a crash with a Go trace.
func TestContextUsedAfterItsHandlerReturnedIsAFinding(t *testing.T) {
	dir := t.TempDir()
	out, errOut, st := runWith(t, leakySystem(), "simulate", "--system", "leaky", "--runs", "20", "--out", dir, "--progress", "never")
	const want = "Context used after its handler returned: the Context of step 2 on n0 in \"timer tick\""
	if st != cli.ExitFinding || strings.Count(out, want) != 20 || strings.Contains(errOut, "goroutine ") {
		t.Fatalf("status %d\nstdout:\n%s\nstderr:\n%s", st, out, errOut)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "finding-*.path.json"))
	if len(files) == 0 {
		t.Fatal("no finding path file")
	}
	_, errOut, st = runWith(t, leakySystem(), "replay", "--path", files[0], "--log", filepath.Join(dir, "f.log"))
	if st != cli.ExitFinding || !strings.Contains(errOut, "FINDING: "+want) {
		t.Fatalf("replay: status %d\n%s", st, errOut)
	}
}

// --resamples beyond pipeline.MaxResamples is refused at once, as the
// other counts are (before: 1e12 ran out of memory, 1e7 took 43 s).
func TestResamplesAreBounded(t *testing.T) {
	for _, n := range []string{"1000000000000", "100001", "0"} {
		var o, e bytes.Buffer
		st := runRandTree(context.Background(), []string{"regress", "--baseline", t.TempDir(), "--out", t.TempDir(), "--resamples", n}, &o, &e)
		if st != cli.ExitError || !strings.Contains(e.String(), "--resamples must be between 1 and 100000, got "+n) || !oneError(e.String()) {
			t.Errorf("--resamples %s: status %d\n%s", n, st, e.String())
		}
	}
}
