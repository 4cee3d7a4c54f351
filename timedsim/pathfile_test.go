package timedsim_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/macepc/macepc/timedsim"
)

func TestPathFileRoundTripAndStaleness(t *testing.T) {
	sc := gossipScenario(6)
	opts := timedsim.Options{}
	p := timedsim.SeedPath(42).Branch(17, 7)
	pf, err := timedsim.NewPathFile("gossip", "v1", sc, opts, p, "test")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := timedsim.WritePathFile(&b, pf); err != nil {
		t.Fatal(err)
	}
	got, err := timedsim.ReadPathFile(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var b2 bytes.Buffer
	timedsim.WritePathFile(&b2, got)
	if b.String() != b2.String() {
		t.Fatalf("round trip changed the file:\n%s\n%s", b.String(), b2.String())
	}
	gotOpts, err := got.Options()
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Check(sc, gotOpts); err != nil {
		t.Fatalf("fresh file refused: %v", err)
	}
	// The replayed execution is the original.
	a := newSim(t, sc, opts).Run(p)
	r := newSim(t, sc, gotOpts).Run(got.Path())
	if a.ExecTime != r.ExecTime || a.Steps != r.Steps {
		t.Fatal("replay from file differs")
	}
	// A changed configuration makes the file stale.
	sc2 := gossipScenario(6)
	sc2.Network.BandwidthKbps = 1000
	if err := got.Check(sc2, gotOpts); err == nil || !strings.Contains(err.Error(), "stale path file") {
		t.Fatalf("changed network accepted: %v", err)
	}
	sc3 := gossipScenario(6)
	sc3.Revision = "2"
	if err := got.Check(sc3, gotOpts); err == nil {
		t.Fatal("changed revision accepted")
	}
	gotOpts.Semantics = timedsim.Paper
	if err := got.Check(sc, gotOpts); err == nil {
		t.Fatal("changed semantics accepted")
	}
}

func TestReadPathFileRejectsBadInput(t *testing.T) {
	good := func() string {
		pf, _ := timedsim.NewPathFile("gossip", "v1", gossipScenario(3), timedsim.Options{}, timedsim.SeedPath(1), "")
		var b bytes.Buffer
		timedsim.WritePathFile(&b, pf)
		return b.String()
	}()
	cases := map[string]struct{ text, want string }{
		"not json":      {"hello", "malformed path file"},
		"truncated":     {good[:len(good)/2], "malformed path file"},
		"other format":  {strings.Replace(good, `"macepc-path"`, `"macepc-edd"`, 1), "not a path file"},
		"newer version": {strings.Replace(good, `"version": 1`, `"version": 9`, 1), "version 9 is not supported"},
		"bad segments":  {strings.Replace(good, `"from": 0`, `"from": 5`, 1), "first segment starts at step 5"},
		"trailing data": {good + good, "data after the JSON object"},
		"unknown field": {strings.Replace(good, `"nodes"`, `"nodez"`, 1), "unknown field"},
		"no hash":       {regexp.MustCompile(`"config_hash": "[0-9a-f]+"`).ReplaceAllString(good, `"config_hash": ""`), "no config_hash"},
	}
	for name, c := range cases {
		_, err := timedsim.ReadPathFile(strings.NewReader(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want it to mention %q", name, err, c.want)
		}
	}
}

// Whatever bytes a path file holds, reading it returns an error or a file
// that validates; it never panics.
func FuzzReadPathFile(f *testing.F) {
	pf, _ := timedsim.NewPathFile("gossip", "v1", gossipScenario(3), timedsim.Options{}, timedsim.SeedPath(1).Branch(3, 4), "")
	var b bytes.Buffer
	timedsim.WritePathFile(&b, pf)
	f.Add(b.Bytes())
	f.Add([]byte(`{"format":"macepc-path","version":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := timedsim.ReadPathFile(bytes.NewReader(data))
		if err != nil {
			return
		}
		if err := got.Path().Validate(); err != nil {
			t.Fatalf("accepted an invalid path: %v", err)
		}
		if _, err := got.Options(); err != nil && !strings.HasPrefix(err.Error(), "timedsim: ") {
			t.Fatalf("error without prefix: %v", err)
		}
	})
}
