package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/pipeline"
	"github.com/macepc/macepc/results"
	"github.com/macepc/macepc/systems/randtree"
)

// Hostile input as tests: bad flags and corrupted files for
// every command. Each must exit 2 with a one-line message and change no
// file of the results directory it was pointed at.

// hostileBase runs the pipeline once into a directory the cases copy.
var hostileBase = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "macepc-hostile-*")
	if err != nil {
		return "", err
	}
	var o, e bytes.Buffer
	st := runRandTree(context.Background(), []string{"run", "--out", dir, "--edd", fixedEDD, "--profile-runs", "20", "--max-runs", "300", "--triage-runs", "20",
		"--walks", "4", "--confirm-walks", "4", "--progress", "never"}, &o, &e)
	if st != 1 {
		return "", &hostileErr{"base run: status " + strconv.Itoa(st) + "\n" + o.String() + e.String()}
	}
	return dir, nil
})

type hostileErr struct{ s string }

func (e *hostileErr) Error() string { return e.s }

// fixedEDD is RandTree's committed training: the same files every run.
const fixedEDD = "../systems/randtree/testdata/edd.json"

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	for name, b := range readDir(t, from) {
		p := filepath.Join(to, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// edit rewrites file name of dir with f.
func edit(name string, f func(string) string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// firstLine edits the first line of a JSON Lines file.
func firstLine(f func(string) string) func(string) string {
	return func(s string) string {
		first, rest, _ := strings.Cut(s, "\n")
		return f(first) + "\n" + rest
	}
}

func replaceOnce(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

// badEDD writes RandTree's EDD, edited by f, as DIR/bad-edd.json.
func badEDD(f func(string) string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		b, err := os.ReadFile(fixedEDD)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "bad-edd.json"), []byte(f(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// shardFile writes DIR/sh/name with content.
func shardFile(name, content string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, "sh"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "sh", name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type hostileCase struct {
	name    string
	corrupt func(t *testing.T, dir string) // nil: the flags are the attack
	args    []string                       // "DIR" is the results directory
	want    string                         // in the message
}

func hostileCases() []hostileCase {
	walks, execs := results.FileWalks, results.FileSearchExecs
	cases := []hostileCase{
		// Counts beyond memory.
		{"run-profile-runs-1e9", nil, []string{"run", "--out", "DIR", "--edd", fixedEDD, "--profile-runs", "1000000000"}, "beyond this machine's memory"},
		{"run-profile-runs-9e18", nil, []string{"run", "--out", "DIR", "--edd", fixedEDD, "--profile-runs", "9000000000000000000"}, "beyond this machine's memory"},
		{"run-train-runs-1e12", nil, []string{"run", "--out", "DIR", "--train-runs", "1000000000000"}, "beyond this machine's memory"},
		{"simulate-runs-1e12", nil, []string{"simulate", "--out", "DIR", "--runs", "1000000000000"}, "beyond this machine's memory"},
		{"diverge-walks-1e9", nil, []string{"diverge", "--out", "DIR", "--walks", "1000000000"}, "beyond this machine's memory"},
		{"profile-runs-1e9", nil, []string{"profile", "--out", "DIR", "--profile-runs", "1000000000"}, "beyond this machine's memory"},
		// Impossible or malformed flags.
		{"profile-iqr-1e308", nil, []string{"profile", "--out", "DIR", "--iqr-factor", "1e308"}, "overflows"},
		{"run-iqr-1e308", nil, []string{"run", "--out", "DIR", "--edd", fixedEDD, "--profile-runs", "20", "--iqr-factor", "1e308"}, "overflows"},
		{"profile-iqr-nan", nil, []string{"profile", "--out", "DIR", "--iqr-factor", "NaN"}, "--iqr-factor"},
		{"profile-iqr-negative", nil, []string{"profile", "--out", "DIR", "--iqr-factor", "-1"}, "--iqr-factor"},
		{"profile-min-slowdown-inf", nil, []string{"profile", "--out", "DIR", "--min-slowdown", "+Inf"}, "--min-slowdown"},
		{"profile-min-excess-negative", nil, []string{"profile", "--out", "DIR", "--min-excess", "-5ms"}, "--min-excess"},
		{"search-max-runs-0", nil, []string{"search", "--out", "DIR", "--max-runs", "0"}, "--max-runs"},
		{"search-triage-negative", nil, []string{"search", "--out", "DIR", "--triage-runs", "-1"}, "--triage-runs"},
		{"diverge-class-99", nil, []string{"diverge", "--out", "DIR", "--class", "99"}, "--class 99"},
		{"diverge-walks-0", nil, []string{"diverge", "--out", "DIR", "--walks", "0"}, "--walks"},
		{"correlate-argument", nil, []string{"correlate", "--out", "DIR", "extra"}, "no arguments"},
		{"run-jobs-negative", nil, []string{"run", "--out", "DIR", "--jobs", "-1"}, "--jobs"},
		{"run-semantics", nil, []string{"run", "--out", "DIR", "--semantics", "bogus"}, "--semantics"},
		{"run-exec-time", nil, []string{"run", "--out", "DIR", "--exec-time", "bogus"}, "--exec-time"},
		{"run-system", nil, []string{"run", "--out", "DIR", "--system", "nosuch"}, "nosuch"},
		{"run-variant", nil, []string{"run", "--out", "DIR", "--variant", "nosuch"}, "nosuch"},
		{"run-param", nil, []string{"run", "--out", "DIR", "--param", "bogus"}, "--param"},
		{"run-nodes-negative", nil, []string{"run", "--out", "DIR", "--nodes", "-3"}, "nodes"},
		{"run-seed-negative", nil, []string{"run", "--out", "DIR", "--seed", "-1"}, "--seed"},
		{"run-unknown-flag", nil, []string{"run", "--out", "DIR", "--no-such-flag"}, "unknown flag"},
		{"run-scale-typo", nil, []string{"run", "--out", "DIR", "--edd", fixedEDD, "--scale", "deliver Joinn=2"}, `closest labels: "deliver Join"`},
		{"run-scale-unknown-trained", nil, []string{"run", "--out", "DIR", "--train-runs", "2", "--scale", "no such label=2"}, "closest labels"},
		{"run-scale-zero", nil, []string{"run", "--out", "DIR", "--scale", "deliver Join=0"}, "positive"},
		{"simulate-edd-missing", nil, []string{"simulate", "--out", "DIR", "--edd", "DIR/no-such-edd.json"}, "no-such-edd.json"},
		{"replay-missing-path", nil, []string{"replay", "--path", "DIR/nosuch.path.json"}, "nosuch.path.json"},
		{"merge-nothing", nil, []string{"merge", "--out", "DIR"}, "shard"},
		{"report-missing-dir", nil, []string{"report", "DIR/nosuch"}, "nosuch"},
		{"regress-missing-baseline", nil, []string{"regress", "--out", "DIR/regress", "--baseline", "DIR/nosuch"}, "nosuch"},
		{"train-runs-0", nil, []string{"train", "--out", "DIR", "--train-runs", "0"}, "--train-runs"},
		{"train-edd", nil, []string{"train", "--out", "DIR", "--edd", fixedEDD}, "--edd"},
		{"systems-bogus-flag", nil, []string{"systems", "--bogus"}, "unknown flag"},
		{"version-bogus-flag", nil, []string{"version", "--bogus"}, "unknown flag"},
		{"regress-runs-1e9", nil, []string{"regress", "--out", "DIR/regress", "--baseline", "DIR", "--profile-runs", "1000000000"}, "beyond this machine's memory"},
		{"regress-alpha-2", nil, []string{"regress", "--out", "DIR/regress", "--baseline", "DIR", "--alpha", "2"}, "--alpha"},
		{"replay-no-path", nil, []string{"replay"}, "--path"},
		{"simulate-shard-bogus", nil, []string{"simulate", "--out", "DIR/sim", "--shard", "3/2"}, "--shard"},
		{"liveness-depth-negative", nil, []string{"run", "--liveness", "--out", "DIR", "--depth", "-1"}, "depth"},
		// Corrupted files, read by the phases after the one that wrote them.
		{"walks-negative-count", edit(walks, firstLine(replaceOnce(`"counts":{"`, `"counts":{"x":-1,"`))), []string{"correlate", "--out", "DIR"}, walks + " line 1"},
		{"walks-null-counts", edit(walks, firstLine(func(l string) string {
			return l[:strings.Index(l, `"counts":`)] + `"counts":null,` + l[strings.Index(l, `"window":`):]
		})), []string{"correlate", "--out", "DIR"}, walks + " line 1"},
		{"walks-no-counts", edit(walks, firstLine(func(l string) string { return l[:strings.Index(l, `"counts":`)] + l[strings.Index(l, `"window":`):] })), []string{"correlate", "--out", "DIR"}, walks + " line 1"},
		{"walks-no-phase", edit(walks, firstLine(replaceOnce(`"phase":"diverge",`, ""))), []string{"correlate", "--out", "DIR"}, walks + " line 1"},
		{"walks-bogus-phase", edit(walks, firstLine(replaceOnce(`"phase":"diverge"`, `"phase":"search"`))), []string{"correlate", "--out", "DIR"}, walks + " line 1"},
		{"walks-negative-time", edit(walks, firstLine(replaceOnce(`"exec_time_ns":`, `"exec_time_ns":-`))), []string{"correlate", "--out", "DIR"}, walks + " line 1"},
		{"walks-bogus-outcome", edit(walks, firstLine(replaceOnce(`"outcome":"`, `"outcome":"x`))), []string{"correlate", "--out", "DIR"}, walks + " line 1"},
		{"walks-bogus-seed", edit(walks, firstLine(replaceOnce(`"seed":`, `"seed":1`))), []string{"correlate", "--out", "DIR"}, walks + " line 1"},
		{"walks-truncated", edit(walks, func(s string) string { return s[:len(s)-20] }), []string{"correlate", "--out", "DIR"}, walks + " line"},
		{"walks-no-final-newline", edit(walks, func(s string) string { return s[:len(s)-1] }), []string{"correlate", "--out", "DIR"}, "truncated"},
		{"walks-trailing-data", edit(walks, func(s string) string { return s + "garbage" }), []string{"correlate", "--out", "DIR"}, walks + " line"},
		{"walks-trailing-object", edit(walks, firstLine(func(l string) string { return l + " {}" })), []string{"correlate", "--out", "DIR"}, walks + " line 1"},
		{"walks-empty-line", edit(walks, func(s string) string { return "\n" + s }), []string{"correlate", "--out", "DIR"}, walks + " line 1"},
		{"walks-duplicate-lines", edit(walks, func(s string) string { first, _, _ := strings.Cut(s, "\n"); return s + first + "\n" }), []string{"correlate", "--out", "DIR"}, walks + " line"},
		{"walks-million-extra-lines", edit(walks, func(s string) string { return s + strings.Repeat("{}\n", 1000000) }), []string{"correlate", "--out", "DIR"}, walks + " line"},
		{"search-execs-negative-count", edit(execs, firstLine(replaceOnce(`"counts":{"`, `"counts":{"x":-1,"`))), []string{"correlate", "--out", "DIR"}, execs + " line 1"},
		{"search-execs-missing-line", edit(execs, func(s string) string { _, rest, _ := strings.Cut(s, "\n"); return rest }), []string{"correlate", "--out", "DIR"}, execs + " line 1"},
		{"search-execs-extra-line", edit(execs, func(s string) string { first, _, _ := strings.Cut(s, "\n"); return s + first + "\n" }), []string{"correlate", "--out", "DIR"}, execs + " line"},
		{"search-execs-window-above-count", edit(execs, firstLine(replaceOnce(`"window":{"`, `"window":{"nosuch":3,"`))), []string{"correlate", "--out", "DIR"}, execs + " line 1"},
		{"profile-not-json", edit(results.FileProfile, func(s string) string { return s[:len(s)/2] }), []string{"search", "--out", "DIR"}, results.FileProfile},
		{"profile-config-hash", edit(results.FileProfile, replaceOnce(`"config_hash": "`, `"config_hash": "0`)), []string{"diverge", "--out", "DIR"}, results.FileProfile},
		{"profile-runs-negative", edit(results.FileProfile, replaceOnce(`"runs": `, `"runs": -`)), []string{"correlate", "--out", "DIR"}, results.FileProfile},
		{"profile-trailing-data", edit(results.FileProfile, func(s string) string { return s + "{}" }), []string{"correlate", "--out", "DIR"}, results.FileProfile},
		{"search-config-hash", edit(results.FileSearch, replaceOnce(`"config_hash": "`, `"config_hash": "0`)), []string{"diverge", "--out", "DIR"}, results.FileSearch},
		{"search-explored-negative", edit(results.FileSearch, replaceOnce(`"explored": `, `"explored": -`)), []string{"correlate", "--out", "DIR"}, results.FileSearch},
		{"search-unknown-field", edit(results.FileSearch, replaceOnce(`{`, `{"bogus": 1,`)), []string{"diverge", "--out", "DIR"}, results.FileSearch},
		{"divergence-config-hash", edit(results.FileDivergence, replaceOnce(`"config_hash": "`, `"config_hash": "0`)), []string{"correlate", "--out", "DIR"}, results.FileDivergence},
		{"divergence-truncated", edit(results.FileDivergence, func(s string) string { return s[:len(s)-3] }), []string{"correlate", "--out", "DIR"}, results.FileDivergence},
		{"anomaly-path-corrupt", edit(results.FileAnomalyPath, func(s string) string { return s[:len(s)/3] }), []string{"diverge", "--out", "DIR"}, results.FileAnomalyPath},
		{"anomaly-path-other-config", edit(results.FileAnomalyPath, replaceOnce(`"config_hash": "`, `"config_hash": "0`)), []string{"diverge", "--out", "DIR"}, results.FileAnomalyPath},
		{"edd-corrupt", badEDD(func(s string) string { return s[:len(s)/2] }), []string{"simulate", "--out", "DIR/sim", "--edd", "DIR/bad-edd.json"}, "bad-edd.json"},
		{"edd-corrupt-run", badEDD(replaceOnce(`"`, `"x`)), []string{"run", "--out", "DIR", "--edd", "DIR/bad-edd.json"}, "bad-edd.json"},
		{"edd-negative-duration", badEDD(replaceOnce(`[`, `[-5,`)), []string{"run", "--out", "DIR", "--edd", "DIR/bad-edd.json"}, "bad-edd.json"},
		{"replay-corrupt-path", edit(results.FileSimilarPath, func(s string) string { return s[:len(s)/2] }), []string{"replay", "--path", "DIR/" + results.FileSimilarPath}, results.FileSimilarPath},
		{"report-walks-negative-count", edit(walks, firstLine(replaceOnce(`"counts":{"`, `"counts":{"x":-1,"`))), []string{"report", "DIR"}, walks + " line 1"},
		{"report-search-execs-bogus-phase", edit(execs, firstLine(replaceOnce(`"phase":"search"`, `"phase":"bogus"`))), []string{"report", "DIR"}, execs + " line 1"},
		{"report-search-explored-negative", edit(results.FileSearch, replaceOnce(`"explored": `, `"explored": -`)), []string{"report", "DIR"}, results.FileSearch},
		{"report-profile-corrupt", edit(results.FileProfile, func(s string) string { return s[:len(s)/2] }), []string{"report", "DIR"}, results.FileProfile},
		{"report-divergence-config-hash", edit(results.FileDivergence, replaceOnce(`"config_hash": "`, `"config_hash": "0`)), []string{"report", "DIR"}, results.FileDivergence},
		{"merge-corrupt-shard", shardFile("simulate.shard-0-of-2.jsonl", `{"format":"macepc-shard"`), []string{"merge", "--out", "DIR/merged", "DIR/sh"}, "simulate.shard-0-of-2.jsonl"},
		{"merge-shard-not-json", shardFile("search.shard-1-of-2.jsonl", "garbage\n"), []string{"merge", "--out", "DIR/merged", "DIR/sh"}, "search.shard-1-of-2.jsonl"},
		{"regress-corrupt-baseline", edit(results.FileProfile, func(s string) string { return s[:len(s)/2] }), []string{"regress", "--out", "DIR/regress", "--baseline", "DIR"}, results.FileProfile},
	}
	return cases
}

// errorLines are stderr's lines other than warnings.
func errorLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
		if l != "" && !strings.HasPrefix(l, "macepc: warning:") && !strings.HasPrefix(l, "macepc: note:") {
			out = append(out, l)
		}
	}
	return out
}

// hostileFailures runs the cases and returns the names of those that did
// not exit 2 with one line naming want and leave the directory as it was.
func TestHostileInputsExit2AndChangeNothing(t *testing.T) {
	runHostileCases(t, hostileCases())
}

// runHostileCases runs each case on a copy of hostileBase's directory.
func runHostileCases(t *testing.T, cases []hostileCase) {
	t.Helper()
	base, err := hostileBase()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			copyDir(t, base, dir)
			if c.corrupt != nil {
				c.corrupt(t, dir)
			}
			before := readDir(t, dir)
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.ReplaceAll(a, "DIR", dir)
			}
			var o, e bytes.Buffer
			st := runRandTree(context.Background(), args, &o, &e)
			lines := errorLines(e.String())
			if st != 2 || len(lines) != 1 || !strings.HasPrefix(lines[0], "macepc: ") || !strings.Contains(lines[0], strings.ReplaceAll(c.want, "DIR", dir)) {
				t.Errorf("%v: status %d, want 2 and one line with %q; stderr:\n%s", c.args, st, c.want, e.String())
			}
			if strings.Contains(e.String(), "goroutine ") {
				t.Errorf("stack trace on stderr")
			}
			sameFiles(t, "after "+c.name, before, readDir(t, dir))
		})
	}
}

// A second writer into a directory is refused while the first holds it.
func TestSecondWriterIsRefused(t *testing.T) {
	dir := t.TempDir()
	unlock, err := pipeline.NewDir(dir).Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	for _, args := range [][]string{
		{"simulate", "--out", dir, "--runs", "2"},
		{"run", "--out", dir, "--edd", fixedEDD},
		{"run", "--liveness", "--out", dir},
		{"report", dir},
	} {
		var o, e bytes.Buffer
		st := runRandTree(context.Background(), args, &o, &e)
		if lines := errorLines(e.String()); st != 2 || len(lines) != 1 || !strings.Contains(lines[0], "in use") {
			t.Errorf("%v: status %d, stderr %q; want 2 and 'in use'", args, st, e.String())
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a refused writer wrote %d files", len(ents))
	}
	// Shards write their own files into a shared directory at once: they
	// take no lock.
	var o, e bytes.Buffer
	if st := runRandTree(context.Background(), []string{"simulate", "--out", dir, "--runs", "4", "--shard", "1/2"}, &o, &e); st != cli.ExitOK {
		t.Errorf("a shard into a locked directory: status %d\n%s", st, e.String())
	}
}

func runRandTree(ctx context.Context, args []string, stdout, stderr *bytes.Buffer) int {
	return cli.Run(ctx, args, stdout, stderr, randtree.System())
}

// With the seed distributions, which have no labels to refuse a --scale
// typo against, simulate and profile warn with the closest labels their
// executions ran.
func TestScaleTypoWarnsWithTheSeedDistributions(t *testing.T) {
	for _, args := range [][]string{{"simulate", "--runs", "3"}, {"profile", "--profile-runs", "3"}} {
		var o, e bytes.Buffer
		st := runRandTree(context.Background(), append(args, "--out", t.TempDir(), "--scale", "deliver Joinn=2"), &o, &e)
		if st == cli.ExitError || !strings.Contains(e.String(), `macepc: warning: --scale "deliver Joinn": no event of`) || !strings.Contains(e.String(), `closest labels: "deliver Join"`) {
			t.Errorf("%s: status %d, stderr:\n%s", args[0], st, e.String())
		}
	}
}
