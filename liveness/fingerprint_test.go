package liveness

import (
	"bytes"
	"testing"

	"github.com/macepc/macepc/systems/chord"
	"github.com/macepc/macepc/systems/elect"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// fingerprintScenarios are the bundled systems' scenarios whose services
// implement Fingerprinter, with the liveness configuration they are
// searched with.
func fingerprintScenarios(t *testing.T) map[string]Config {
	t.Helper()
	out := map[string]Config{}
	for _, v := range append([]string{randtree.VariantFixed, randtree.VariantLivenessBug}, variantNames(randtree.MaceMCVariants)...) {
		out["randtree/"+v] = randtreeConfig(t, v, 1)
	}
	for _, sys := range []timedsim.System{chord.System(), elect.System()} {
		for _, v := range sys.Variants {
			sc, err := sys.Scenario(v.Name, 3)
			if err != nil {
				t.Fatal(err)
			}
			out[sys.Name+"/"+v.Name] = Config{Scenario: sc, Seed: 1}
		}
	}
	return out
}

func variantNames(vs []timedsim.Variant) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Name)
	}
	return out
}

// TestFingerprintAsFineAsDescribe: on the states that random walks of
// each scenario reach (every node after every step), a node's
// AppendFingerprint bytes and its Describe text determine each other: two
// states with equal texts have equal fingerprints (hashing does not split
// a state the search counted as one), and two with different texts have
// different fingerprints (it does not merge states the search told
// apart). The node's ID is part of both.
func TestFingerprintAsFineAsDescribe(t *testing.T) {
	const walks, steps = 150, 120
	for name, cfg := range fingerprintScenarios(t) {
		t.Run(name, func(t *testing.T) {
			r, err := cfg.resolve()
			if err != nil {
				t.Fatal(err)
			}
			drv, err := driverSchedule(r.Scenario, cfg.Seed)
			if err != nil {
				t.Fatal(err)
			}
			w := newWorld(r.set, drv)
			byDesc := map[string][]byte{}
			byFP := map[string]string{}
			record := func() {
				for i := range w.nodes {
					svc := w.nodes[i].svc
					f, ok := svc.(Fingerprinter)
					if !ok {
						t.Fatalf("%T does not implement Fingerprinter", svc)
					}
					d, fp := timedsim.Describe(svc), f.AppendFingerprint(nil)
					if old, seen := byDesc[d]; seen && !bytes.Equal(old, fp) {
						t.Fatalf("one Describe text, two fingerprints: %q: %x and %x", d, old, fp)
					}
					if old, seen := byFP[string(fp)]; seen && old != d {
						t.Fatalf("one fingerprint %x, two Describe texts: %q and %q", fp, old, d)
					}
					byDesc[d], byFP[string(fp)] = fp, d
					// Appending keeps what b held.
					if got := f.AppendFingerprint([]byte("x")); !bytes.Equal(got, append([]byte("x"), fp...)) {
						t.Fatalf("AppendFingerprint(%q) = %x, want x then %x", "x", got, fp)
					}
				}
			}
			for k := range walks {
				p := startPath(cfg.Seed).Branch(0, uint64(k)+1, steps)
				w.start(p)
				record()
				res := w.walk(p, walkOptions{liveFrom: -1, onChoice: func(int) { record() }})
				if res.err != nil || res.panicked != "" {
					t.Fatalf("walk %d: %+v", k, res)
				}
			}
			if len(byDesc) < 5 {
				t.Fatalf("only %d distinct node states reached: the test sees too little", len(byDesc))
			}
			t.Logf("%d distinct node states", len(byDesc))
		})
	}
}

// TestFingerprintHashesLikeDescribe: a search hashing RandTree's nodes by
// their fingerprints reaches the same distinct states, duplicates and
// paths as one hashing their Describe texts (Config.describeOnly), with
// the sequential and the level division.
func TestFingerprintHashesLikeDescribe(t *testing.T) {
	for _, level := range []bool{false, true} {
		fp := randtreeConfig(t, randtree.VariantFixed, 1)
		fp.Depth, fp.DepthStep, fp.MaxDepth, fp.LevelDivision = 4, 4, 12, level
		desc := fp
		desc.describeOnly = true
		a, err := Run(t.Context(), fp)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Run(t.Context(), desc)
		if err != nil {
			t.Fatal(err)
		}
		if a.Stats.States == 0 || a.Stats != b.Stats || a.End != b.End {
			t.Fatalf("level %v: fingerprints: %+v (%s); Describe: %+v (%s)", level, a.Stats, a.End, b.Stats, b.End)
		}
	}
}

// A node whose fingerprint panics ends the execution as a Describe that
// panics does: the panic is a finding, not a state.
type panickyFP struct{ adder }

func (*panickyFP) AppendFingerprint([]byte) []byte { panic("no fingerprint") }

func TestFingerprintPanic(t *testing.T) {
	sc := adderSystem()
	sc.New = func(timedsim.NodeID) timedsim.Service { return &panickyFP{} }
	rep, err := Run(t.Context(), Config{Scenario: sc, Depth: 2, MaxDepth: 2, Seed: 1, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Violation == nil || rep.Violation.Kind != KindPanic {
		t.Fatalf("violation %+v, want a panic", rep.Violation)
	}
}
