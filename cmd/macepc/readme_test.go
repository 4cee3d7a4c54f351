package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/macepc/macepc/systems/bamboo"
	"github.com/macepc/macepc/systems/chord"
	"github.com/macepc/macepc/systems/etcdraft"
	"github.com/macepc/macepc/systems/pastry"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// The README a newcomer follows: it says how to get the binary
// before a command uses it bare, names only systems the binary lists, and
// what its commands write is in .gitignore.
func TestReadmeIsTrue(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	// The first shell line that runs a bare macepc comes after the install.
	install := strings.Index(readme, "go install ./cmd/macepc")
	bare := -1
	for _, blk := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatchIndex(readme, -1) {
		if i := regexp.MustCompile(`(?m)^(for .*; do )?macepc `).FindStringIndex(readme[blk[2]:blk[3]]); i != nil {
			bare = blk[2] + i[0]
			break
		}
	}
	if install < 0 || bare < 0 || bare < install {
		t.Errorf("README runs a bare macepc (at byte %d) before it says 'go install ./cmd/macepc' (at %d)", bare, install)
	}
	// Every --system it names, and every system it cites by name, is one
	// that 'macepc systems' lists.
	reg := timedsim.Registry{randtree.System(), pastry.System(), bamboo.System(), chord.System(), etcdraft.System(), pingpong.System()}
	for _, m := range regexp.MustCompile(`--system ([a-z][a-z0-9-]*)`).FindAllStringSubmatch(readme, -1) {
		if _, err := reg.Lookup(m[1]); err != nil {
			t.Errorf("README: --system %s: %v", m[1], err)
		}
	}
	if strings.Contains(readme, "pingpong") {
		if _, err := reg.Lookup("pingpong"); err != nil {
			t.Error("README cites pingpong, which the binary does not list")
		}
	}
	// What its commands write (--out DIR, --log FILE) is ignored by git.
	ignore, err := os.ReadFile("../../.gitignore")
	if err != nil {
		t.Fatal(err)
	}
	ignored := map[string]bool{}
	for _, l := range strings.Split(string(ignore), "\n") {
		ignored[strings.Trim(strings.TrimSpace(l), "/")] = true
	}
	for _, m := range regexp.MustCompile(`--(?:out|log) ([a-z0-9_.-]+)`).FindAllStringSubmatch(readme, -1) {
		if name := m[1]; !ignored[name] && strings.ToUpper(name) != name {
			t.Errorf("README writes %s, which .gitignore does not ignore", name)
		}
	}
}
