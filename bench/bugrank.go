package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// BugCase is one bundled buggy configuration of the correlation table of
// bench/PAPER.md ("A label of the bug in the top 3 of phase 3b"): how to
// run it, and which correlation labels name its bug with the bundled
// notes (Notes) and with every note ignored (Plain: the labels the bug's
// own events carry without their notes, the handler's plain label and
// what it sent or which timer it touched). Chord's join race starts when a
// joining node takes a Join, gives up its own join and makes itself a
// ring: "deliver Join → (cancel join)" is that event's label, which only
// timers' composite labels give.
type BugCase struct {
	Label, System, Variant string
	Args                   []string // more arguments of macepc run
	Notes, Plain           []string // MatchLabel patterns
}

// BugCases are the configurations of the correlation tables. etcd raft and
// Bullet′ diff-drop run with their committed event durations: a training
// on a loaded machine measured etcd raft's handlers ten times too slow and
// hid its bug, and Bullet′'s training is the longest part of its run.
var BugCases = []BugCase{
	{Label: "elect-early", System: "elect", Variant: "early-elected",
		Notes: []string{"deliver Elected → ignored: still collecting"}, Plain: []string{"deliver Elected*"}},
	{Label: "randtree-buggy", System: "randtree", Variant: "buggy",
		Notes: []string{"deliver JoinReply → Remove", "deliver Join → NewRoot"}, Plain: []string{"deliver JoinReply → Remove", "deliver Join → NewRoot"}},
	{Label: "chord-buggy", System: "chord", Variant: "buggy",
		Notes: []string{"deliver Notify → lost: old predecessor not told", "deliver Notify → ignored: predecessor nearer"}, Plain: []string{"deliver Notify*"}},
	{Label: "pastry-buggy", System: "pastry", Variant: "buggy",
		Notes: []string{"* → evicted: leaf set full"}, Plain: []string{"deliver Announce*", "deliver JoinReply*"}},
	{Label: "bamboo-buggy", System: "bamboo", Variant: "buggy",
		Notes: []string{"* → evicted: leaf set full", "deliver Inform*"}, Plain: []string{"deliver Inform*", "deliver JoinReply*"}},
	{Label: "bullet-joinreject", System: "bullet", Variant: "join-reject",
		Notes: []string{"deliver JoinReject*", "* → rejected: no peers offered"}, Plain: []string{"deliver JoinReject*"}},
	{Label: "chord-joinrace", System: "chord", Variant: "join-race",
		Notes: []string{"deliver JoinReply → dropped: not joining", "deliver Join → (cancel join)"}, Plain: []string{"deliver JoinReply*", "deliver Join → (cancel join)"}},
	{Label: "etcd-rejoin", System: "etcdraft", Variant: "no-prevote", Args: []string{"--param", "scenario=rejoin", "--edd", "systems/etcdraft/testdata/rejoin-no-prevote.edd.json"},
		Notes: []string{"*MsgVote*"}, Plain: []string{"*MsgVote*"}},
	{Label: "bullet-diffdrop", System: "bullet", Variant: "diff-drop", Args: []string{"--edd", "systems/bullet/testdata/edd.json"},
		Notes: []string{"error queue-full*", "* → lost Diff: data queue full"}, Plain: []string{"error queue-full*"}},
}

// Command is the macepc run of c with seed into dir.
func (c BugCase) Command(seed int, dir string, ignoreNotes bool) []string {
	args := []string{"run", "--system", c.System, "--variant", c.Variant, "--seed", strconv.Itoa(seed), "--max-runs", "1000", "--out", dir}
	args = append(args, c.Args...)
	if ignoreNotes {
		args = append(args, "--ignore-notes")
	}
	return args
}

// BugRank is the 1-based rank of the first label matching one of
// patterns among the ranked labels of a correlation.json (those not
// same_as their event label, in the file's order), 0 when none matches.
func BugRank(correlationJSON []byte, patterns []string) (int, error) {
	var cf struct {
		Format string `json:"format"`
		Labels []struct {
			Label  string `json:"label"`
			SameAs string `json:"same_as"`
		} `json:"labels"`
	}
	if err := json.Unmarshal(correlationJSON, &cf); err != nil {
		return 0, fmt.Errorf("bench: correlation.json: %w", err)
	}
	if cf.Format != "macepc-correlation" {
		return 0, fmt.Errorf("bench: correlation.json: format %q, want macepc-correlation", cf.Format)
	}
	rank := 0
	for _, l := range cf.Labels {
		if l.SameAs != "" {
			continue
		}
		rank++
		for _, p := range patterns {
			if MatchLabel(p, l.Label) {
				return rank, nil
			}
		}
	}
	return 0, nil
}

// BugRankTable writes the Markdown rows of the correlation table for the
// results directories root/LABEL-SEED of seeds: per case, its bug labels,
// in how many seeds one is in the top 3, and the rank seed by seed ("—"
// for a directory without correlation.json, "out" for none of the labels
// among the ranked ones).
func BugRankTable(w io.Writer, root string, seeds []int, ignoreNotes bool) error {
	fmt.Fprintln(w, "| system | bug labels | top 3 | rank of the first bug label, seed by seed |")
	fmt.Fprintln(w, "|---|---|---:|---|")
	for _, c := range BugCases {
		pats := c.Notes
		if ignoreNotes {
			pats = c.Plain
		}
		top3, have := 0, 0
		var ranks []string
		for _, s := range seeds {
			b, err := os.ReadFile(filepath.Join(root, fmt.Sprintf("%s-%d", c.Label, s), "correlation.json"))
			if errors.Is(err, fs.ErrNotExist) {
				ranks = append(ranks, "—")
				continue
			}
			if err != nil {
				return fmt.Errorf("bench: %w", err)
			}
			r, err := BugRank(b, pats)
			if err != nil {
				return fmt.Errorf("%w (%s-%d)", err, c.Label, s)
			}
			have++
			switch {
			case r == 0:
				ranks = append(ranks, "out")
			default:
				ranks = append(ranks, strconv.Itoa(r))
				if r <= 3 {
					top3++
				}
			}
		}
		fmt.Fprintf(w, "| %s | `%s` | %d of %d | %s |\n", c.Label, strings.Join(pats, "`, `"), top3, have, strings.Join(ranks, " "))
	}
	return nil
}
