package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/systems/etcdraft"
)

// Typos in a system, variant, parameter or command name get the closest
// names, and no internal package prefix.
func TestTyposSuggestTheClosestNames(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--system", "randtre"}, `macepc: unknown system "randtre"; did you mean randtree? (systems: randtree)` + "\n"},
		{[]string{"simulate", "--variant", "fixd"}, `macepc: unknown variant "fixd"; did you mean fixed? (variants of randtree: `},
		{[]string{"regres"}, `macepc: unknown command "regres"; did you mean regress? (commands: `},
		{[]string{"run", "--liveness", "--variant", "livenes-bug"}, `macepc: unknown variant "livenes-bug"; did you mean liveness-bug?`},
	} {
		args := append(c.args, "--out", t.TempDir()+"/out")
		_, errs, st := runRT(t, context.Background(), args...)
		if st != 2 || !strings.HasPrefix(errs, c.want) || strings.Contains(errs, "timedsim:") {
			t.Errorf("%q: status %d, stderr %q; want it to start with %q", c.args, st, errs, c.want)
		}
	}
	var o, e bytes.Buffer
	st := cli.Run(context.Background(), []string{"simulate", "--system", "etcdraft", "--param", "scenaro=rejoin", "--out", t.TempDir() + "/out"}, &o, &e, etcdraft.System())
	if want := `macepc: --param: unknown parameter "scenaro"; did you mean scenario? (parameters of etcdraft: `; st != 2 || !strings.HasPrefix(e.String(), want) {
		t.Errorf("--param scenaro: status %d, stderr %q; want it to start with %q", st, e.String(), want)
	}
}
