package liveness

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/macepc/macepc/systems/randtree"
)

// TestTraceAgreesWithReplay: the trace of RT3's dead path has Replay's
// steps (each step's description is its log line), ends as Replay says,
// its last state of each node is the node's final state in the log, and
// each delivery points at the send that made its message.
func TestTraceAgreesWithReplay(t *testing.T) {
	cfg := randtreeConfig(t, randtree.VariantLivenessBug, 1)
	cfg.NoCritical = true
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Violation == nil {
		t.Fatal("no violation")
	}
	p := rep.Violation.Path
	lines, err := Replay(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := TracePath(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	var descs []string
	final := map[int]string{}
	for i, l := range lines {
		if f := strings.Fields(l); len(f) > 1 && strconv.Itoa(len(descs)) == f[0] {
			descs = append(descs, strings.SplitN(l, " ", 2)[1])
		}
		if n, ok := strings.CutPrefix(l, "# state n"); ok {
			id, _ := strconv.Atoi(n)
			final[id] = lines[i+1]
		}
	}
	if len(tr.Steps) != len(descs) || len(tr.Steps) == 0 {
		t.Fatalf("%d traced steps, %d in the log", len(tr.Steps), len(descs))
	}
	if !strings.Contains(strings.Join(tr.Failing, ","), randtree.PropOneRoot) {
		t.Errorf("failing %v, want %s among them", tr.Failing, randtree.PropOneRoot)
	}
	last := append([]string(nil), tr.Initial...)
	delivered := 0
	for i, st := range tr.Steps {
		if want := st.Desc + " [choice " + strconv.Itoa(st.Choice) + " of " + strconv.Itoa(st.Enabled) + "]"; want != descs[i] {
			t.Fatalf("step %d: traced %q, logged %q", i, want, descs[i])
		}
		if !strings.HasPrefix(st.Desc, "n"+strconv.Itoa(st.Node)+" "+st.Label) {
			t.Fatalf("step %d: node %d label %q, desc %q", i, st.Node, st.Label, st.Desc)
		}
		last[st.Node] = st.State
		if st.Kind == "message" && st.SentStep >= 0 {
			s := tr.Steps[st.SentStep]
			if st.SentStep >= i || s.Node != st.From || s.Sends[st.SentIndex].To != st.Node || "deliver "+s.Sends[st.SentIndex].Type != st.Label {
				t.Fatalf("step %d %s from n%d: sent by step %d send %d %+v", i, st.Label, st.From, st.SentStep, st.SentIndex, s)
			}
			delivered++
		}
	}
	if delivered == 0 {
		t.Fatal("no delivery traced to its send")
	}
	for n, st := range last {
		if st != final[n] {
			t.Errorf("n%d: last traced state %q, final state in the log %q", n, st, final[n])
		}
	}
}
