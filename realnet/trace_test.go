package realnet_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macepc/macepc/realnet"
)

const goodTrace = `{"format":"macepc-realnet-trace","version":1,"system":"pingpong","variant":"default","nodes":2,"node":0,"run":0,"seed":1,"time_scale":1}
{"seq":0,"lamport":1,"kind":"init","start_ns":10,"dur_ns":5,"now_ns":10,"peer":-1,"sends":[{"to":1,"transport":"tcp","id":1,"label":"Ping"}]}
{"seq":1,"lamport":4,"kind":"deliver","start_ns":90,"dur_ns":5,"now_ns":90,"peer":1,"transport":"tcp","msg":1,"sender_lamport":3,"sent_ns":60,"name":"Pong"}
{"end":{"events":2,"stopped":true}}
`

func TestDecodeTrace(t *testing.T) {
	tr, err := realnet.DecodeTrace("node-000.jsonl", strings.NewReader(goodTrace))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Events) != 2 || tr.Lines[1] != 3 || !tr.Stopped || tr.Events[1].Name != "Pong" {
		t.Fatalf("decoded %+v", tr)
	}
	lines := strings.Split(strings.TrimSuffix(goodTrace, "\n"), "\n")
	bad := []struct {
		line int // 1-based line to replace, 0 to drop the last
		text string
		want string
	}{
		{1, `{"format":"other","version":1}`, `node-000.jsonl:1: format "other"`},
		{1, strings.Replace(lines[0], `"version":1`, `"version":2`, 1), "node-000.jsonl:1: version 2"},
		{2, strings.Replace(lines[1], `"seq":0`, `"seq":1`, 1), "node-000.jsonl:2: event seq 1, want 0"},
		{3, strings.Replace(lines[2], `"lamport":4`, `"lamport":1`, 1), "node-000.jsonl:3: lamport clock 1 does not exceed"},
		{3, strings.Replace(lines[2], `"sender_lamport":3`, `"sender_lamport":9`, 1), "node-000.jsonl:3: delivery's lamport clock 4 does not exceed its sender's 9"},
		{3, strings.Replace(lines[2], `"peer":1`, `"peer":7`, 1), "node-000.jsonl:3: delivery needs a sender"},
		{2, strings.Replace(lines[1], `"id":1`, `"id":2`, 1), "node-000.jsonl:2: send ID 2, want 1"},
		{2, strings.Replace(lines[1], `"kind":"init"`, `"kind":"boot"`, 1), `node-000.jsonl:2: unknown event kind "boot"`},
		{2, strings.Replace(lines[1], `"dur_ns":5`, `"dur_ns":5,"extra":1`, 1), `node-000.jsonl:2: event: json: unknown field "extra"`},
		{0, "", "node-000.jsonl:3: no end line"},
		{4, `{"end":{"events":3,"stopped":true}}`, "node-000.jsonl:4: end line counts 3 events"},
	}
	for _, c := range bad {
		ls := append([]string(nil), lines...)
		if c.line == 0 {
			ls = ls[:len(ls)-1]
		} else {
			ls[c.line-1] = c.text
		}
		_, err := realnet.DecodeTrace("node-000.jsonl", strings.NewReader(strings.Join(ls, "\n")+"\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("want one-line error containing %q, got %v", c.want, err)
		}
	}
}

func TestReadRunRefusesMismatch(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("node-000.jsonl", goodTrace)
	if _, err := realnet.ReadRun(dir); err == nil || !strings.Contains(err.Error(), "no trace of node 1") {
		t.Errorf("a missing node: %v", err)
	}
	other := strings.Replace(strings.Replace(goodTrace, `"node":0`, `"node":1`, 1), `"seed":1`, `"seed":2`, 1)
	write("node-001.jsonl", other)
	if _, err := realnet.ReadRun(dir); err == nil || !strings.Contains(err.Error(), "header does not match") {
		t.Errorf("traces of two runs: %v", err)
	}
}

// FuzzDecodeTrace: the reader refuses anything it cannot use with one line
// naming the file, and never panics.
func FuzzDecodeTrace(f *testing.F) {
	f.Add([]byte(goodTrace))
	f.Add([]byte(strings.Replace(goodTrace, `"kind":"init"`, `"kind":"timer","name":"t"`, 1)))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, err := realnet.DecodeTrace("f.jsonl", strings.NewReader(string(b)))
		if err != nil && (!strings.HasPrefix(err.Error(), "realnet: f.jsonl") || strings.Contains(err.Error(), "\n")) {
			t.Errorf("error not one line naming the file: %q", err)
		}
	})
}
