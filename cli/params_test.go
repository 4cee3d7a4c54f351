package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/timedsim"
)

// paramPingpong is pingpong with a parameter: the number of rounds.
func paramPingpong() timedsim.System {
	return timedsim.System{
		Name:         "pingpong-p",
		Doc:          "pingpong with a rounds parameter",
		Variants:     []timedsim.Variant{{Name: "default"}},
		DefaultNodes: 2,
		Params:       []timedsim.Param{{Name: "rounds", Default: "3", Doc: "rounds per pair", Check: timedsim.CheckInt(1, 100)}},
		BuildParams: func(_ string, nodes int, p timedsim.Params) (*timedsim.Scenario, error) {
			sc := pingpong.Scenario(nodes, p.Int("rounds"))
			sc.Liveness = []timedsim.Property{{Name: "never", Check: func(timedsim.World) bool { return false }}}
			return sc, nil
		},
	}
}

func runP(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var o, e bytes.Buffer
	st := cli.Run(context.Background(), args, &o, &e, pingpong.System(), paramPingpong())
	return o.String(), e.String(), st
}

// --param reaches the system, path files carry the values, replay rebuilds
// the scenario from them, and a path whose values were edited is refused.
func TestParamsThroughTheCLI(t *testing.T) {
	out, _, st := runP(t, "systems")
	if st != 0 || !strings.Contains(out, "  param   rounds=3  rounds per pair\n") {
		t.Errorf("systems does not list the parameter (status %d):\n%s", st, out)
	}
	if strings.Contains(strings.Split(out, "pingpong-p:")[0], "param") {
		t.Errorf("a system without parameters lists some:\n%s", out)
	}

	dir := t.TempDir()
	steps := map[string]string{}
	for _, rounds := range []string{"3", "7"} {
		o := filepath.Join(dir, rounds)
		stdout, stderr, st := runP(t, "simulate", "--system", "pingpong-p", "--param", "rounds="+rounds, "--runs", "3", "--out", o)
		if st != 0 {
			t.Fatalf("simulate rounds=%s: status %d: %s", rounds, st, stderr)
		}
		if !strings.Contains(stdout, "variant=default params=rounds="+rounds+" nodes=2") {
			t.Errorf("the header does not show the parameter:\n%s", stdout)
		}
		b, err := os.ReadFile(filepath.Join(o, "slowest.path.json"))
		if err != nil {
			t.Fatal(err)
		}
		var pf timedsim.PathFile
		if err := json.Unmarshal(b, &pf); err != nil {
			t.Fatal(err)
		}
		if pf.Version != 2 || pf.Params["rounds"] != rounds {
			t.Fatalf("path file: version %d params %v", pf.Version, pf.Params)
		}
		log, stderr, st := runP(t, "replay", "--path", filepath.Join(o, "slowest.path.json"))
		if st != 0 || !strings.Contains(log, "# params=rounds="+rounds+"\n") {
			t.Fatalf("replay: status %d %s\n%.300s", st, stderr, log)
		}
		steps[rounds] = strings.Split(strings.SplitAfter(log, "steps=")[1], "\n")[0]

		// Edit the value: the configuration hash no longer matches.
		edited := bytes.Replace(b, []byte(`"rounds": "`+rounds+`"`), []byte(`"rounds": "5"`), 1)
		bad := filepath.Join(o, "edited.path.json")
		os.WriteFile(bad, edited, 0o644)
		if _, stderr, st := runP(t, "replay", "--path", bad); st != 2 || !strings.Contains(stderr, "stale path file") {
			t.Errorf("an edited parameter was replayed: status %d %s", st, stderr)
		}
	}
	if steps["3"] == steps["7"] {
		t.Errorf("rounds=3 and rounds=7 replayed the same number of steps (%s): the parameter did not reach the scenario", steps["3"])
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--system", "pingpong", "--param", "rounds=3"}, `system "pingpong" has no parameters`},
		{[]string{"simulate", "--system", "pingpong-p", "--param", "round=3"}, `unknown parameter "round"; did you mean rounds? (parameters of pingpong-p: rounds)`},
		{[]string{"simulate", "--system", "pingpong-p", "--param", "rounds=0"}, `parameter rounds: value "0": out of range [1, 100]`},
		{[]string{"simulate", "--system", "pingpong-p", "--param", "rounds=3", "--param", "rounds=4"}, `--param: rounds given twice`},
		{[]string{"simulate", "--system", "pingpong-p", "--param", "rounds"}, `is not name=value`},
		{[]string{"run", "--liveness", "--system", "pingpong-p", "--param", "rounds=x"}, `not an integer`},
	} {
		_, stderr, st := runP(t, append(c.args, "--out", filepath.Join(dir, "bad"))...)
		if st != 2 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: status %d, stderr %q, want one line with %q", c.args, st, stderr, c.want)
		}
	}
}

// A liveness path file carries the parameters, replays with them, and a
// prefix with other values is refused.
func TestParamsInLivenessPaths(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	stdout, stderr, st := runP(t, "run", "--liveness", "--system", "pingpong-p", "--param", "rounds=2", "--nodes", "2",
		"--depth", "2", "--max-depth", "2", "--dmax", "20", "--walks", "2", "--out", a)
	// A property that never holds: no walk becomes live even from the
	// initial state, with dmax raised eightfold: dead from the start, a
	// violation (exit 1).
	if st != 1 || !strings.Contains(stdout, "dead from the start") {
		t.Fatalf("liveness with a property that never holds: status %d: %s%s", st, stdout, stderr)
	}
	dead := filepath.Join(a, "dead.path.json")
	b, err := os.ReadFile(dead)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"params": {
    "rounds": "2"
  }`) {
		t.Errorf("the dead path does not carry the parameters:\n%s", b)
	}
	if out, stderr, st := runP(t, "replay", "--path", dead, "--log", filepath.Join(dir, "dead.log")); st != 1 || !strings.Contains(out, "pingpong-p/default params=rounds=2") {
		t.Errorf("replay of the dead path: status %d %s %s", st, out, stderr)
	}
	_, stderr, st = runP(t, "run", "--liveness", "--system", "pingpong-p", "--param", "rounds=3", "--nodes", "2", "--prefix", dead, "--out", filepath.Join(dir, "b"))
	if st != 2 || !strings.Contains(stderr, fmt.Sprintf("parameters %q, not %q", "rounds=2", "rounds=3")) {
		t.Errorf("a prefix with other parameters: status %d %s", st, stderr)
	}
}
