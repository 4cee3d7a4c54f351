package cli_test

import (
	"strings"
	"testing"
)

// Every command's --help says what it does, lists its flags by group,
// its exit statuses and an example, on stdout with exit 0 (before,
// 'systems --help' printed an empty usage, 'run --liveness --help' showed
// '--liveness (default true)').
func TestHelpGolden(t *testing.T) {
	cmds := [][]string{{"run", "--liveness"}}
	usage, _, _ := run(t, "", "--help")
	_, list, _ := strings.Cut(usage, "Commands:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	for _, l := range strings.Split(list, "\n") {
		cmds = append(cmds, strings.Fields(l)[:1]) // every command, phases included
	}
	if len(cmds) < 17 {
		t.Fatalf("commands from the usage: %q", cmds)
	}
	for _, c := range cmds {
		name := "help-" + strings.Join(c, "")
		t.Run(name, func(t *testing.T) {
			stdout, stderr, st := run(t, "", append(c, "--help")...)
			if st != 0 || stderr != "" {
				t.Fatalf("status %d, stderr %q", st, stderr)
			}
			for _, want := range []string{"Usage: macepc " + c[0], "Exit status:", "  2  usage or runtime error", "Example:\n  macepc " + c[0]} {
				if !strings.Contains(stdout, want) {
					t.Errorf("no %q in\n%s", want, stdout)
				}
			}
			if strings.Contains(stdout, "Other options:") {
				t.Errorf("a flag has no group (flagGroup):\n%s", stdout)
			}
			if len(c) > 1 && strings.Contains(stdout, "  --liveness ") {
				t.Errorf("run --liveness --help lists --liveness:\n%s", stdout)
			}
			golden(t, name+".stdout", stdout)
		})
	}
}
