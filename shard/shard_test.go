package shard_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/macepc/macepc/shard"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestResolve(t *testing.T) {
	cases := []struct {
		flag   string
		env    func(string) string
		want   shard.Spec
		ok     bool
		source string // substring
		err    string // substring
	}{
		{"", env(), shard.Spec{}, false, "", ""},
		{"2/8", env(shard.EnvK8sIndex, "1", shard.EnvCount, "3"), shard.Spec{Index: 2, Count: 8}, true, "--shard 2/8", ""},
		{"off", env(shard.EnvSlurmID, "1"), shard.Spec{}, false, "", ""},
		{"", env(shard.EnvK8sIndex, "3", shard.EnvCount, "8"), shard.Spec{Index: 3, Count: 8}, true, "kubernetes indexed job (JOB_COMPLETION_INDEX=3, MACEPC_SHARD_COUNT=8)", ""},
		{"", env(shard.EnvSlurmID, "7", shard.EnvSlurmMin, "5", shard.EnvSlurmCount, "3"), shard.Spec{Index: 2, Count: 3}, true, "slurm array", ""},
		{"", env(shard.EnvK8sIndex, "3", shard.EnvCount, "8", shard.EnvSlurmID, "0", shard.EnvSlurmMin, "0", shard.EnvSlurmCount, "1"), shard.Spec{Index: 3, Count: 8}, true, "kubernetes", ""},
		{"", env(shard.EnvK8sIndex, "3"), shard.Spec{}, false, "", "MACEPC_SHARD_COUNT is not"},
		{"", env(shard.EnvK8sIndex, "8", shard.EnvCount, "8"), shard.Spec{}, false, "", "index 8 is not in 0..7"},
		{"", env(shard.EnvK8sIndex, "x", shard.EnvCount, "8"), shard.Spec{}, false, "", `JOB_COMPLETION_INDEX="x" is not a non-negative integer`},
		{"", env(shard.EnvK8sIndex, "1", shard.EnvCount, "0"), shard.Spec{}, false, "", "count must be at least 1"},
		{"", env(shard.EnvSlurmID, "8", shard.EnvSlurmMin, "0", shard.EnvSlurmCount, "4"), shard.Spec{}, false, "", "contiguous range such as --array=0-3"},
		{"", env(shard.EnvSlurmID, "2", shard.EnvSlurmCount, "4"), shard.Spec{}, false, "", "SLURM_ARRAY_TASK_MIN is not"},
		{"", env(shard.EnvSlurmID, "2", shard.EnvSlurmMin, "-1", shard.EnvSlurmCount, "4"), shard.Spec{}, false, "", "SLURM_ARRAY_TASK_MIN"},
		{"8/8", env(), shard.Spec{}, false, "", "--shard: \"8/8\": index 8 is not in 0..7"},
		{"2", env(), shard.Spec{}, false, "", "is not i/n"},
		{"a/b", env(), shard.Spec{}, false, "", "two integers"},
	}
	for _, c := range cases {
		s, src, ok, err := shard.Resolve(c.flag, c.env)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Resolve(%q): err %v, want %q", c.flag, err, c.err)
			}
			continue
		}
		if err != nil || ok != c.ok || s != c.want || !strings.Contains(src, c.source) {
			t.Errorf("Resolve(%q) = %v %q %v %v, want %v %q %v", c.flag, s, src, ok, err, c.want, c.source, c.ok)
		}
	}
}

func TestSpecCoversEveryIndexOnce(t *testing.T) {
	for _, total := range []int{0, 1, 7, 8, 9, 100} {
		for n := 1; n <= 9; n++ {
			seen := make([]int, total)
			for i := 0; i < n; i++ {
				s := shard.Spec{Index: i, Count: n}
				for j := 0; j < s.Len(total); j++ {
					seen[s.Global(j)]++
				}
			}
			for g, c := range seen {
				if c != 1 {
					t.Fatalf("total %d n %d: index %d covered %d times", total, n, g, c)
				}
			}
		}
	}
}

// mk builds shard i of n of a run of total executions; stopAt >= 0 stops
// it after that global index.
func mk(i, n, total, stopAt int) *shard.File {
	s := shard.Spec{Index: i, Count: n}
	f := &shard.File{Name: shard.FileName("search", s), Header: shard.Header{Phase: "search", ConfigHash: "abc", System: "sys", Variant: "v", Nodes: 3, Seed: 1,
		Shard: i, Shards: n, Source: "--shard", Runs: total, Planned: s.Len(total), Params: json.RawMessage(`{"max_runs":10}`)}}
	for j := 0; j < s.Len(total); j++ {
		g := s.Global(j)
		f.Records = append(f.Records, shard.Record{Index: g, Data: json.RawMessage(fmt.Sprintf(`{"v":%d}`, g*g))})
		if g == stopAt {
			f.Footer.Stop = "anomaly"
			break
		}
	}
	return f
}

func encode(t *testing.T, f *shard.File) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := shard.Write(&b, f); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func roundTrip(t *testing.T, f *shard.File) *shard.File {
	t.Helper()
	g, err := shard.Read(bytes.NewReader(encode(t, f)), f.Name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestWriteReadRoundTrip(t *testing.T) {
	f := mk(1, 3, 10, -1)
	b := encode(t, f)
	g, err := shard.Read(bytes.NewReader(b), f.Name)
	if err != nil {
		t.Fatal(err)
	}
	if b2 := encode(t, g); !bytes.Equal(b, b2) {
		t.Fatalf("read and written again differs:\n%s\n%s", b, b2)
	}
	if len(g.Records) != 3 || g.Records[2].Index != 7 || string(g.Records[2].Data) != `{"v":49}` {
		t.Fatalf("records %+v", g.Records)
	}
}

func TestReadRefusesDamagedFiles(t *testing.T) {
	good := encode(t, mk(1, 3, 10, -1))
	lines := strings.SplitAfter(string(good), "\n")
	cases := map[string]struct{ data, err string }{
		"cut mid-line":     {string(good[:len(good)-5]), "ends in the middle of a line"},
		"no footer":        {strings.Join(lines[:len(lines)-2], ""), "has no footer"},
		"record dropped":   {lines[0] + lines[1] + lines[2] + lines[4], "footer counts 3 executions, it holds 2"},
		"record repeated":  {lines[0] + lines[1] + lines[1] + lines[2] + lines[4], "record 2 has execution index 1, want 4"},
		"empty":            {"", "is empty"},
		"not a shard":      {`{"format":"macepc-path"}` + "\n", "not a macepc-shard file"},
		"wrong count":      {lines[0] + lines[1] + lines[2] + strings.Replace(lines[4], `"count":3`, `"count":2`, 1), "incomplete: 2 of its 3"},
		"garbage record":   {lines[0] + "{\"index\":1,\n" + lines[2] + lines[3] + lines[4], "line 2"},
		"unknown field":    {strings.Replace(string(good), `"planned":3`, `"planned":3,"x":1`, 1), "unknown field"},
		"bad planned":      {strings.Replace(string(good), `"planned":3`, `"planned":4`, 1), "4 planned executions"},
		"index of a shard": {strings.Replace(string(good), `"shard":1,`, `"shard":2,`, 1), "record 1 has execution index 1, want 2"},
	}
	for name, c := range cases {
		_, err := shard.Read(strings.NewReader(c.data), "s.jsonl")
		if err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "shard: ") {
			t.Errorf("%s: err %v, want %q", name, err, c.err)
		}
	}
}

func TestMergeChecksTheSet(t *testing.T) {
	all := func(n int) []*shard.File {
		var fs []*shard.File
		for i := n - 1; i >= 0; i-- { // any order
			fs = append(fs, roundTrip(t, mk(i, n, 10, -1)))
		}
		return fs
	}
	for _, n := range []int{1, 3, 8} {
		set, err := shard.Merge(all(n))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := set.Upto(10)
		if err != nil {
			t.Fatal(err)
		}
		for g, r := range recs {
			if r.Index != g || string(r.Data) != fmt.Sprintf(`{"v":%d}`, g*g) {
				t.Fatalf("n=%d: record %d is %d %s", n, g, r.Index, r.Data)
			}
		}
		if _, ok := set.FirstStop(); ok {
			t.Fatalf("n=%d: a stop without a stopped shard", n)
		}
	}
	other := roundTrip(t, mk(2, 3, 10, -1))
	other.Header.ConfigHash = "def"
	params := roundTrip(t, mk(2, 3, 10, -1))
	params.Header.Params = json.RawMessage(`{"max_runs":11}`)
	phase := roundTrip(t, mk(2, 3, 10, -1))
	phase.Header.Phase = "profile"
	cases := map[string]struct {
		files []*shard.File
		err   string
	}{
		"missing":      {all(3)[:2], "missing shard 0 of 3"},
		"duplicated":   {append(all(3), roundTrip(t, mk(1, 3, 10, -1))), "shard 1 of 3 is given twice"},
		"other config": {append(all(3)[:2], other), "belongs to another configuration"},
		"other params": {append(all(3)[:2], params), "(max_runs 11 vs 10)"},
		"other phase":  {append(all(3)[:2], phase), "a profile shard"},
		"mixed counts": {append(all(3)[:2], roundTrip(t, mk(0, 4, 10, -1))), "shard 0 of 4"},
		"none":         {nil, "no shard files"},
	}
	for name, c := range cases {
		_, err := shard.Merge(c.files)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: err %v, want %q", name, err, c.err)
		}
	}

	// The error names the odd one out, wherever it is in the list: here
	// the first file, against the two that agree.
	name := func(fs []*shard.File) []*shard.File {
		for _, f := range fs {
			f.Name = fmt.Sprintf("shard%d.jsonl", f.Header.Shard)
		}
		return fs
	}
	oddFirst := name(append([]*shard.File{other}, all(3)[1:]...))
	_, err := shard.Merge(oddFirst)
	if err == nil || !strings.HasPrefix(err.Error(), "shard: shard2.jsonl belongs to another configuration") || !strings.Contains(err.Error(), "and 1 more") {
		t.Errorf("odd one first: %v", err)
	}
	// Two files that disagree: one is named against the other alone.
	_, err = shard.Merge(name([]*shard.File{other, roundTrip(t, mk(0, 3, 10, -1))}))
	if err == nil || !strings.Contains(err.Error(), "belongs to another configuration") || strings.Contains(err.Error(), "more") {
		t.Errorf("two files: %v", err)
	}
}

// A search shard stops at its own first anomaly; the merged run stops at
// the lowest, and needs every index below it.
func TestStopsAndGaps(t *testing.T) {
	fs := []*shard.File{roundTrip(t, mk(0, 3, 20, 9)), roundTrip(t, mk(1, 3, 20, 4)), roundTrip(t, mk(2, 3, 20, -1))}
	set, err := shard.Merge(fs)
	if err != nil {
		t.Fatal(err)
	}
	k, ok := set.FirstStop()
	if !ok || k != 4 {
		t.Fatalf("first stop %d %v, want 4", k, ok)
	}
	recs, err := set.Upto(k + 1)
	if err != nil || len(recs) != 5 || recs[4].Index != 4 {
		t.Fatalf("Upto(5) = %v, %v", recs, err)
	}
	if _, err := set.Upto(8); err == nil || !strings.Contains(err.Error(), "execution 7 is missing") {
		t.Fatalf("Upto past a stopped shard: %v", err)
	}
}

func Example() {
	s, source, _, _ := shard.Resolve("", env("SLURM_ARRAY_TASK_ID", "5", "SLURM_ARRAY_TASK_MIN", "4", "SLURM_ARRAY_TASK_COUNT", "3"))
	fmt.Println(s, source)
	var files []*shard.File
	for i := 0; i < 3; i++ {
		sp := shard.Spec{Index: i, Count: 3}
		f := &shard.File{Header: shard.Header{Phase: "simulate", ConfigHash: "h", Shard: i, Shards: 3, Runs: 7, Planned: sp.Len(7)}}
		for j := 0; j < sp.Len(7); j++ {
			f.Records = append(f.Records, shard.Record{Index: sp.Global(j), Data: json.RawMessage(fmt.Sprint(10 * sp.Global(j)))})
		}
		var b bytes.Buffer
		shard.Write(&b, f)
		g, err := shard.Read(&b, shard.FileName("simulate", sp))
		if err != nil {
			fmt.Println(err)
			return
		}
		files = append(files, g)
	}
	set, _ := shard.Merge(files)
	recs, _ := set.Upto(7)
	for _, r := range recs {
		fmt.Print(string(r.Data), " ")
	}
	fmt.Println()
	// Output:
	// 1/3 slurm array (SLURM_ARRAY_TASK_ID=5 - SLURM_ARRAY_TASK_MIN=4, SLURM_ARRAY_TASK_COUNT=3)
	// 0 10 20 30 40 50 60
}
