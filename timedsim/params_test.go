package timedsim_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/macepc/macepc/timedsim"
)

// paramSystem is gossip with two parameters: a scenario choice that sets
// the timeout and a node-count knob checked by CheckInt.
func paramSystem() timedsim.System {
	return timedsim.System{
		Name:         "gossip-p",
		Variants:     []timedsim.Variant{{Name: "v1"}},
		DefaultNodes: 4,
		Params: []timedsim.Param{
			{Name: "scenario", Default: "short", Doc: "which timeout", Values: []string{"short", "long"}},
			{Name: "extra", Default: "0", Doc: "nodes added", Check: timedsim.CheckInt(0, 3)},
			{Name: "tick", Default: "100ms", Doc: "unused", Check: timedsim.CheckDuration(time.Millisecond)},
			{Name: "flag", Default: "false", Check: timedsim.CheckBool},
			{Name: "rate", Default: "0.5", Check: timedsim.CheckFloat(0, 1)},
		},
		BuildParams: func(variant string, nodes int, p timedsim.Params) (*timedsim.Scenario, error) {
			sc := gossipScenario(nodes + p.Int("extra"))
			if p.Get("scenario") == "long" {
				sc.Timeout = 2 * time.Minute
			}
			_, _ = p.Duration("tick"), p.Bool("flag")
			if p.Float("rate") == 1 {
				sc.Timeout = 3 * time.Minute
			}
			return sc, nil
		},
	}
}

func TestParamsResolve(t *testing.T) {
	sys := paramSystem()
	sc, err := sys.Scenario("", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := sc.Params.String(); got != "extra=0,flag=false,rate=0.5,scenario=short,tick=100ms" {
		t.Errorf("defaults resolved to %q", got)
	}
	sc, err = sys.ScenarioParams("v1", 4, timedsim.Params{"scenario": "long", "extra": "2"})
	if err != nil {
		t.Fatal(err)
	}
	if sc, err := sys.ScenarioParams("v1", 4, timedsim.Params{"rate": "1"}); err != nil || sc.Timeout != 3*time.Minute {
		t.Errorf("rate=1 did not reach BuildParams: %v, %v", sc, err)
	}
	if sc.Nodes != 6 || sc.Timeout != 2*time.Minute || sc.Params.Get("extra") != "2" {
		t.Errorf("values did not reach BuildParams: %d nodes, timeout %v, params %v", sc.Nodes, sc.Timeout, sc.Params)
	}
	for _, c := range []struct {
		set  timedsim.Params
		want string
	}{
		{timedsim.Params{"nosuch": "1"}, `has no parameter "nosuch" (parameters: scenario, extra, tick, flag, rate)`},
		{timedsim.Params{"scenario": "medium"}, `parameter scenario: value "medium" is not one of short, long`},
		{timedsim.Params{"extra": "9"}, `parameter extra: value "9": out of range [0, 3]`},
		{timedsim.Params{"extra": "x"}, `parameter extra: value "x": not an integer`},
		{timedsim.Params{"tick": "1us"}, `below the minimum 1ms`},
		{timedsim.Params{"flag": "yes"}, `not true or false`},
		{timedsim.Params{"rate": "1.5"}, `value "1.5": out of range [0, 1]`},
		{timedsim.Params{"rate": "NaN"}, `value "NaN": not a number`},
		{timedsim.Params{"rate": "half"}, `value "half": not a number`},
		{timedsim.Params{"scenario": "a\nb"}, `spans lines`},
	} {
		_, err := sys.ScenarioParams("v1", 4, c.set)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "timedsim: ") {
			t.Errorf("%v: error %v, want one containing %q", c.set, err, c.want)
		}
	}
	plain := timedsim.System{Name: "plain", Variants: []timedsim.Variant{{Name: "v"}}, DefaultNodes: 2,
		Build: func(string, int) (*timedsim.Scenario, error) { return gossipScenario(2), nil }}
	if _, err := plain.ScenarioParams("", 0, timedsim.Params{"a": "b"}); err == nil || !strings.Contains(err.Error(), `system "plain" has no parameters`) {
		t.Errorf("parameters given to a system without any: %v", err)
	}
	if sc, err := plain.Scenario("", 0); err != nil || sc.Params != nil {
		t.Errorf("a system without parameters got %v, %v", sc.Params, err)
	}
	bad := paramSystem()
	bad.Params[0].Default = "medium"
	if _, err := bad.Scenario("", 0); err == nil || !strings.Contains(err.Error(), "the default of parameter scenario") {
		t.Errorf("an invalid default was accepted: %v", err)
	}
	bad = paramSystem()
	bad.BuildParams = nil
	if _, err := bad.Scenario("", 0); err == nil {
		t.Error("a system with Params but no BuildParams built a scenario")
	}
}

func TestParamsEnterConfigHashAndPathFile(t *testing.T) {
	sys := paramSystem()
	a, _ := sys.Scenario("v1", 4)
	b, _ := sys.ScenarioParams("v1", 4, timedsim.Params{"tick": "50ms"})
	a2, _ := sys.ScenarioParams("v1", 4, timedsim.Params{"tick": "100ms"}) // the default, given
	opts := timedsim.Options{}
	ha, hb, ha2 := timedsim.ConfigHash("g", "v1", a, opts), timedsim.ConfigHash("g", "v1", b, opts), timedsim.ConfigHash("g", "v1", a2, opts)
	if ha == hb {
		t.Error("a parameter that changed left the config hash unchanged")
	}
	if ha != ha2 {
		t.Error("giving a parameter its default value changed the config hash")
	}
	// Without parameters the hash is what it always was.
	plain := gossipScenario(4)
	withEmpty := gossipScenario(4)
	withEmpty.Params = timedsim.Params{}
	if timedsim.ConfigHash("g", "v1", plain, opts) != timedsim.ConfigHash("g", "v1", withEmpty, opts) {
		t.Error("empty parameters changed the hash")
	}

	pf, err := timedsim.NewPathFile("gossip-p", "v1", b, opts, timedsim.SeedPath(3), "")
	if err != nil {
		t.Fatal(err)
	}
	if pf.Version != 2 || pf.Params.Get("tick") != "50ms" {
		t.Fatalf("path file of a system with parameters: version %d, params %v", pf.Version, pf.Params)
	}
	var buf bytes.Buffer
	if err := timedsim.WritePathFile(&buf, pf); err != nil {
		t.Fatal(err)
	}
	got, err := timedsim.ReadPathFile(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	rebuilt, err := sys.ScenarioParams(got.Variant, got.Nodes, got.Params)
	if err != nil {
		t.Fatal(err)
	}
	gotOpts, _ := got.Options()
	if err := got.Check(rebuilt, gotOpts); err != nil {
		t.Fatalf("the file's own parameters were refused: %v", err)
	}
	if err := got.Check(a, gotOpts); err == nil || !strings.Contains(err.Error(), "stale path file") {
		t.Errorf("a scenario with other parameter values was accepted: %v", err)
	}

	// A system without parameters writes version 1 without the key.
	pf1, _ := timedsim.NewPathFile("gossip", "v1", plain, opts, timedsim.SeedPath(3), "")
	buf.Reset()
	timedsim.WritePathFile(&buf, pf1)
	if pf1.Version != 1 || strings.Contains(buf.String(), `"params"`) {
		t.Errorf("a path file without parameters changed: version %d\n%s", pf1.Version, buf.String())
	}
	// Version 1 with params, and an unknown version, are refused.
	var m map[string]any
	json.Unmarshal(buf.Bytes(), &m)
	m["params"] = map[string]string{"tick": "1s"}
	v1p, _ := json.Marshal(m)
	if _, err := timedsim.ReadPathFile(bytes.NewReader(v1p)); err == nil || !strings.Contains(err.Error(), "version 1 has no params") {
		t.Errorf("version 1 with params: %v", err)
	}
	m["version"] = 3
	v3, _ := json.Marshal(m)
	if _, err := timedsim.ReadPathFile(bytes.NewReader(v3)); err == nil || !strings.Contains(err.Error(), "versions 1 to 2") {
		t.Errorf("version 3: %v", err)
	}
}

func TestParseParam(t *testing.T) {
	n, v, err := timedsim.ParseParam("scenario=a=b")
	if err != nil || n != "scenario" || v != "a=b" {
		t.Errorf("got %q %q %v", n, v, err)
	}
	for _, bad := range []string{"scenario", "=x", ""} {
		if _, _, err := timedsim.ParseParam(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
