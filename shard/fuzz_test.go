package shard_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/macepc/macepc/shard"
)

// FuzzRead: a shard file of any content is read and merged without a
// panic, or refused with a one-line error of this package; one that is
// read writes back to the same bytes.
func FuzzRead(f *testing.F) {
	for _, m := range []*shard.File{mk(1, 3, 10, -1), mk(0, 1, 5, -1), mk(0, 2, 10, 4)} {
		var b bytes.Buffer
		if err := shard.Write(&b, m); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Add([]byte("{}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := shard.Read(bytes.NewReader(b), "f.jsonl")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "shard: ") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("not a one-line shard error: %q", err)
			}
			return
		}
		if _, err := shard.Merge([]*shard.File{g}); err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("merge: not one line: %q", err)
		}
		var w bytes.Buffer
		if err := shard.Write(&w, g); err != nil {
			t.Fatalf("a file that was read cannot be written: %v", err)
		}
		if _, err := shard.Read(bytes.NewReader(w.Bytes()), "f.jsonl"); err != nil {
			t.Fatalf("written again, it is refused: %v", err)
		}
	})
}

// A damaged header's shard count is not allocated: merging shard 0 of
// 2^40 names the missing ones and stops.
func TestMergeHugeShardCount(t *testing.T) {
	g := roundTrip(t, mk(0, 1<<40, 1, -1))
	_, err := shard.Merge([]*shard.File{g})
	if err == nil || !strings.Contains(err.Error(), "missing shard 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, and 1099511627765 more of 1099511627776") {
		t.Fatalf("err %v", err)
	}
}
