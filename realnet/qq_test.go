package realnet_test

import (
	"bytes"
	"flag"
	"fmt"
	"github.com/macepc/macepc/internal/golden"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/realnet"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, rewriting it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got, *update)
}

// fidelityFixture is a comparison whose real runs are slower than the
// simulation in the upper tail: 5 real runs, 8 simulated.
func fidelityFixture() *realnet.Fidelity {
	ms := func(xs ...float64) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x * 1e6)
		}
		return out
	}
	return &realnet.Fidelity{Real: ms(10, 11, 12, 15, 30), Sim: ms(9, 10, 10.5, 11, 11.5, 12, 12.5, 13)}
}

// The Q-Q plot's points: as many as the smaller sample, at the
// probabilities (i+1/2)/k, each sample's quantile interpolated linearly.
func TestQQPlotData(t *testing.T) {
	var b bytes.Buffer
	pts := realnet.QQ(fidelityFixture())
	fmt.Fprintln(&b, "p real_ms sim_ms")
	for _, q := range pts {
		fmt.Fprintf(&b, "%.2f %.4f %.4f\n", q.P, float64(q.Real)/1e6, float64(q.Sim)/1e6)
	}
	checkGolden(t, "qq_golden.txt", b.Bytes())
	if len(pts) != 5 || pts[4].Real <= pts[4].Sim || pts[0].Real < pts[0].Sim {
		t.Errorf("points %+v: want 5, the last real above simulated", pts)
	}
	if realnet.QQ(&realnet.Fidelity{Real: fidelityFixture().Real}) != nil {
		t.Error("a Q-Q plot of an empty simulated sample has points")
	}
}

// WriteQQPlot writes a PNG, the same bytes for the same data.
func TestWriteQQPlot(t *testing.T) {
	dir := t.TempDir()
	var files [2][]byte
	for i := range files {
		f := filepath.Join(dir, fmt.Sprintf("qq%d.png", i))
		if err := realnet.WriteQQPlot(f, fidelityFixture(), "pingpong/default, 4 nodes"); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = b
	}
	img, err := png.Decode(bytes.NewReader(files[0]))
	if err != nil {
		t.Fatal(err)
	}
	if r := img.Bounds(); r.Dx() != 480 || r.Dy() != 480 {
		t.Errorf("plot is %v, want 480x480 (5 in at 96 dpi)", r)
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("the same data gave two different PNGs")
	}
	// A tail 60 times the body: logarithmic axes, which must draw too.
	f := fidelityFixture()
	f.Real[len(f.Real)-1] = 600 * time.Millisecond
	if err := realnet.WriteQQPlot(filepath.Join(dir, "tail.png"), f, "tail"); err != nil {
		t.Error(err)
	}
	if p, err := realnet.QQPlot(f, "tail"); err != nil || !strings.Contains(p.Y.Label.Text, "log scale") {
		t.Errorf("a 60-fold span is not drawn on log axes: %v", err)
	}
	if p, _ := realnet.QQPlot(fidelityFixture(), ""); strings.Contains(p.Y.Label.Text, "log") {
		t.Errorf("a 3-fold span is drawn on log axes")
	}
	if err := realnet.WriteQQPlot(filepath.Join(dir, "none.png"), &realnet.Fidelity{}, ""); err == nil {
		t.Error("a Q-Q plot of no data was written")
	}
}
