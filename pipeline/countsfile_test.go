package pipeline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/macepc/macepc/divergence"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/timedsim"
)

// walksFixture is a divergence.json and the lines of its
// divergence-walks.jsonl.
func walksFixture(t testing.TB) (*DivergenceFile, []byte) {
	df := &DivergenceFile{Seed: 77, TotalSteps: 40, Executions: 9}
	var b bytes.Buffer
	for _, p := range []int{0, 20, 40} {
		for j := range 3 {
			rec := j == 2
			l := results.CountsLine{Phase: string(PhaseDiverge), Index: j, Prefix: p, Seed: divergence.WalkSeed(df.Seed, p, j), ExecTimeNS: 5e8 + int64(j), Steps: 100,
				Outcome: timedsim.Finished, Recovered: &rec, Counts: map[string]int{"deliver Join": 3, "timer probe": 2}, Window: map[string]int{"deliver Join": 1}}
			line, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(append(line, '\n'))
		}
	}
	return df, b.Bytes()
}

func TestWalkLinesFixtureIsValid(t *testing.T) {
	df, b := walksFixture(t)
	lines, err := results.DecodeCountsLines(bytes.NewReader(b), "w.jsonl", walkLines(df))
	if err != nil || len(lines) != 9 {
		t.Fatalf("%d lines, %v", len(lines), err)
	}
}

// FuzzReadWalks: a divergence-walks.jsonl of any content is read or
// refused with a one-line error naming the file; the lines read are
// walks of the divergence file, each once, within their counts.
func FuzzReadWalks(f *testing.F) {
	df, seed := walksFixture(f)
	f.Add(seed)
	first, _, _ := bytes.Cut(seed, []byte("\n"))
	f.Add(append(append([]byte{}, seed...), first...))
	f.Add([]byte(`{"phase":"diverge","counts":null}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		lines, err := results.DecodeCountsLines(bytes.NewReader(b), "w.jsonl", walkLines(df))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "results: w.jsonl") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("not a one-line error naming the file: %q", err)
			}
			return
		}
		if len(lines) > df.Executions {
			t.Fatalf("%d lines for %d executions", len(lines), df.Executions)
		}
		seen := map[[2]int]bool{}
		for _, l := range lines {
			k := [2]int{l.Prefix, l.Index}
			if seen[k] || l.Seed != divergence.WalkSeed(df.Seed, l.Prefix, l.Index) || l.Counts == nil || l.ExecTimeNS < 0 {
				t.Fatalf("accepted a bad line %+v", l)
			}
			seen[k] = true
			for k, c := range l.Window {
				if c < 0 || c > l.Counts[k] {
					t.Fatalf("accepted window count %d of %q", c, k)
				}
			}
		}
	})
}
