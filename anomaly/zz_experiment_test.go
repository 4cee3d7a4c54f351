package anomaly

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"
)

func loadPool(t *testing.T, path string) []time.Duration {
	f, err := os.Open(path)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	var out []time.Duration
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var l struct {
			ExecTimeNS int64 `json:"exec_time_ns"`
			Outcome    string
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		out = append(out, time.Duration(l.ExecTimeNS))
	}
	return out
}

func TestZZExperiment(t *testing.T) {
	pools, _ := filepath.Glob("/tmp/pools/*/executions.jsonl")
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	sort.Strings(pools)
	lvl := 0.0
	if v := os.Getenv("LEVEL"); v != "" {
		fmt.Sscan(v, &lvl)
	}
	floor := 0.0
	if os.Getenv("FLOOR") != "" {
		floor = 1.0 / 3
	}
	for _, p := range pools {
		pool := loadPool(t, p)
		trials, fenceHits, sig := 200, 0, 0
		var ex string
		for tr := 0; tr < trials; tr++ {
			r := rand.New(rand.NewPCG(uint64(tr), 7))
			perm := r.Perm(len(pool))
			at := func(i int) time.Duration { return pool[perm[i%len(pool)]] }
			prof := make([]time.Duration, 50)
			for i := range prof {
				prof[i] = at(i)
			}
			pr, _ := NewProfile(prof, 0, MildOutliers)
			pr.RequireSlowdown(1.5)
			pr.RequireExcess(time.Millisecond)
			ref := slices.Clone(prof)
			var cands []Candidate
			last := 999
			n := 0
			for i := 0; i <= last; i++ {
				d := at(50 + i)
				ref = append(ref, d)
				n++
				if d > pr.Threshold {
					if len(cands) == 0 && i+200 < last {
						last = i + 200
					}
					cands = append(cands, Candidate{Index: i, ExecTime: d})
				}
			}
			if len(cands) > 0 {
				fenceHits++
			}
			res := Significance(prof, ref[len(prof):], cands, SignificanceConfig{Tail: TailConfig{MinShape: floor, Level: lvl}})
			if res.Cut > 0 {
				sig++
			}
			if tr < 3 && len(cands) > 0 {
				m := res.Models[0]
				if m != nil {
					ex += fmt.Sprintf("\n   tr%d fence %v U %v k=%d rate %.3f sigma %v xi %.2f [%.2f,%.2f] | n=%d J=%d top %v p=%.2g pv=%.2g cut %v", tr, pr.Threshold, m.U, m.Excesses, m.Rate, time.Duration(m.Sigma), m.Xi, m.XiLow, m.XiHigh, n, len(cands), res.Tests[0].ExecTime, res.Tests[0].P, res.Tests[0].PValue, res.Cut)
					lt := res.Tests[len(res.Tests)-1]
					ex += fmt.Sprintf(" | low %v rank %d p=%.2g pv=%.2g", lt.ExecTime, lt.Rank, lt.P, lt.PValue)
				} else {
					ex += "\n   " + res.Reasons[0]
				}
			}
		}
		t.Logf("%-40s fence %3d/%d significant %3d/%d%s", filepath.Base(filepath.Dir(p)), fenceHits, trials, sig, trials, ex)
	}
}

func TestZZOne(t *testing.T) {
	pool := loadPool(t, "/tmp/pools/"+os.Getenv("POOL")+"/executions.jsonl")
	for tr := 0; tr < 200; tr++ {
		r := rand.New(rand.NewPCG(uint64(tr), 7))
		perm := r.Perm(len(pool))
		at := func(i int) time.Duration { return pool[perm[i%len(pool)]] }
		prof := make([]time.Duration, 50)
		for i := range prof {
			prof[i] = at(i)
		}
		pr, _ := NewProfile(prof, 0, MildOutliers)
		pr.RequireSlowdown(1.5)
		pr.RequireExcess(time.Millisecond)
		ref := slices.Clone(prof)
		var cands []Candidate
		last, n := 999, 0
		for i := 0; i <= last; i++ {
			d := at(50 + i)
			ref = append(ref, d)
			n++
			if d > pr.Threshold {
				if len(cands) == 0 && i+200 < last {
					last = i + 200
				}
				cands = append(cands, Candidate{Index: i, ExecTime: d})
			}
		}
		res := Significance(prof, ref[len(prof):], cands, SignificanceConfig{Tail: TailConfig{MinShape: 1.0 / 3}})
		if (res.Cut > 0) == (os.Getenv("MISS") != "") {
			continue
		}
		t.Logf("trial %d: n=%d J=%d fence %v cut %v", tr, n, len(cands), pr.Threshold, res.Cut)
		for _, m := range res.Models {
			if m != nil {
				t.Logf("  model U=%v below=%v k=%d rate=%.3f sigma=%v xi=%.2f [%.2f %.2f]", m.U, m.Below, m.Excesses, m.Rate, time.Duration(m.Sigma), m.Xi, m.XiLow, m.XiHigh)
			}
		}
		for _, w := range res.Windows {
			t.Logf("  window %+v", w)
		}
		for i, c := range res.Tests {
			if i < 4 {
				t.Logf("  %v rank %d model %d p=%.3g pv=%.3g sig=%v", c.ExecTime, c.Rank, c.Model, c.P, c.PValue, c.Significant)
			}
		}
	}
}
