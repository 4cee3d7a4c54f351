package realnet_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/macepc/macepc/realnet"
	"github.com/macepc/macepc/systems/pingpong"
)

// BenchmarkLive measures the messages per second of a real run of 16
// pingpong nodes (8 pairs, 200 rounds each) on loopback, with the traces
// recorded and without: the recording's overhead.
func BenchmarkLive(b *testing.B) {
	for _, record := range []bool{false, true} {
		b.Run(fmt.Sprintf("record=%v", record), func(b *testing.B) {
			dir := b.TempDir()
			msgs := 0
			var real time.Duration
			for i := 0; b.Loop(); i++ {
				cfg := realnet.Config{System: "pingpong", Variant: "bench", Scenario: pingpong.Scenario(16, 200), Run: i, Seed: 1}
				if record {
					cfg.Dir = filepath.Join(dir, realnet.RunDirName(i))
				}
				res, err := realnet.Run(context.Background(), cfg)
				if err != nil || !res.Stopped {
					b.Fatal(err, res)
				}
				msgs += res.Messages
				real += res.ExecTime
			}
			b.ReportMetric(float64(msgs)/real.Seconds(), "msgs/s")
		})
	}
}
