// Command bugrank prints the correlation tables of bench/PAPER.md ("A
// label of the bug in the top 3 of phase 3b"): for each bundled buggy
// configuration (bench.BugCases), where a label naming its bug ranks in
// the correlation.json of the results directories ROOT/LABEL-SEED. With
// --commands it prints the macepc runs that make those directories
// instead; with --reanalyze, the macepc phase commands that run phases 2
// to 3b again on those directories, with their trained durations and
// profile (after a change to the analysis, the same executions analysed
// again). Run it from the repository's root:
//
//	go run ./bench/cmd/bugrank --commands --root out [--ignore-notes] | sh
//	go run ./bench/cmd/bugrank --reanalyze --root out | sh
//	go run ./bench/cmd/bugrank --root out [--ignore-notes]
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/macepc/macepc/bench"
	"github.com/macepc/macepc/internal/shellquote"
)

func main() {
	fs := pflag.NewFlagSet("bugrank", pflag.ContinueOnError)
	root := fs.String("root", "out", "the directory holding the results directories LABEL-SEED")
	ignore := fs.Bool("ignore-notes", false, "the table without notes: the runs were made with --ignore-notes")
	commands := fs.Bool("commands", false, "print the macepc runs that make the results directories, one per line")
	reanalyze := fs.Bool("reanalyze", false, "print the macepc commands that run phases 2 to 3b again on the results directories, one directory per line (each exits 1 when it reports an anomaly, so they are joined with ;)")
	seeds := fs.IntSlice("seeds", []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, "the seeds")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if err == pflag.ErrHelp {
			return
		}
		fmt.Fprintln(os.Stderr, "bugrank:", err)
		os.Exit(2)
	}
	if *reanalyze {
		macepc := []string{"go", "run", "./cmd/macepc"}
		for _, c := range bench.BugCases {
			for _, s := range *seeds {
				dir := filepath.Join(*root, fmt.Sprintf("%s-%d", c.Label, s))
				fmt.Printf("%s; %s; %s\n", // each exits 1 when it reports an anomaly
					shellquote.Join(append(macepc, "search", "--max-runs", "1000", "--progress", "never", "--out", dir)...),
					shellquote.Join(append(macepc, "diverge", "--progress", "never", "--out", dir)...),
					shellquote.Join(append(macepc, "correlate", "--progress", "never", "--out", dir)...))
			}
		}
		return
	}
	if *commands {
		for _, c := range bench.BugCases {
			for _, s := range *seeds {
				args := c.Command(s, filepath.Join(*root, fmt.Sprintf("%s-%d", c.Label, s)), *ignore)
				fmt.Println(shellquote.Join(append([]string{"go", "run", "./cmd/macepc"}, args...)...))
			}
		}
		return
	}
	if err := bench.BugRankTable(os.Stdout, *root, *seeds, *ignore); err != nil {
		fmt.Fprintln(os.Stderr, "bugrank:", err)
		os.Exit(1)
	}
}
