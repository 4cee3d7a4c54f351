package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README's "Your own protocol" section is a project a
// newcomer can copy: its files, written into a temporary directory with
// the replace directive pointing at this repository, build and vet; its
// macepctest test writes a baseline and then passes against it; and its
// binary runs a command on its only system without --system.
func TestOwnProtocolSection(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "## Your own protocol\n")
	end := strings.Index(readme[start+1:], "\n## ")
	if start < 0 || end < 0 {
		t.Fatal("README has no 'Your own protocol' section")
	}
	section := readme[start : start+1+end]
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]bool{}
	for _, m := range regexp.MustCompile("(?s)```(?:go|yaml)\n(.*?)```").FindAllStringSubmatch(section, -1) {
		first, _, _ := strings.Cut(m[1], "\n")
		name, ok := strings.CutPrefix(first, "// ")
		if !ok {
			name, ok = strings.CutPrefix(first, "# ")
		}
		if !ok || !regexp.MustCompile(`^[a-z./_-]+\.(go|mod|yml)$`).MatchString(name) {
			continue
		}
		text := m[1]
		if name == "go.mod" {
			text = strings.Replace(text, "=> ../macepc", "=> "+root, 1)
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		files[name] = true
	}
	for _, want := range []string{"go.mod", "hello.go", "cmd/hello/main.go", "hello_test.go", ".github/workflows/perf.yml"} {
		if !files[want] {
			t.Fatalf("the section has no %s (it has %v)", want, files)
		}
	}
	// Offline: the module cache has every module this repository uses,
	// and its go.sum their sums.
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("go", "build", "./...")
	run("go", "vet", "./...")
	run("go", "test", "-run", "^TestHelloPerformance$", "-macepctest.update", ".")
	if _, err := os.Stat(filepath.Join(dir, "testdata", "hello.baseline.json")); err != nil {
		t.Fatalf("-macepctest.update wrote no baseline: %v", err)
	}
	run("go", "test", "./...")
	run("go", "build", "-o", "hello-bin", "./cmd/hello")
	if out := run(filepath.Join(dir, "hello-bin"), "simulate", "--runs", "3", "--out", filepath.Join(dir, "out"), "--progress", "never"); !strings.Contains(out, "hello") {
		t.Errorf("the binary's simulate without --system:\n%s", out)
	}
}
