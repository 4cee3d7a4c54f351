package pipeline

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/macepc/macepc/timedsim"
)

// Side-by-side diff of two event logs from the divergence point.
const (
	diffContext = 3   // identical events shown before the divergence step
	diffEvents  = 200 // events compared after it, per side
	diffColumn  = 62  // width of the left column
)

// sideBySide writes the events of the anomalous execution a (left) and the
// similar fast execution b (right) from a few steps before step on, aligned
// by a longest common subsequence of (node, event, sender), like sdiff:
// ' ' same event (times may differ), '|' different events, '<' only left,
// '>' only right.
func sideBySide(w io.Writer, a, b *timedsim.Result, step int) error {
	from := max(0, step-diffContext)
	left := window(a.Events, from, step+diffEvents)
	right := window(b.Events, from, step+diffEvents)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# macepc divergence diff v1\n")
	ta, tb := twoTimes(a.ExecTime, b.ExecTime)
	fmt.Fprintf(bw, "# left: anomalous execution (%s, %d steps); right: similar fast execution (%s, %d steps)\n", ta, a.Steps, tb, b.Steps)
	fmt.Fprintf(bw, "# both run the same first %d steps; step %d is the divergence point: after it no walk recovers\n", step, step)
	fmt.Fprintf(bw, "# ' ' same event, '|' different events, '<' only in the anomalous, '>' only in the fast execution\n")
	for _, op := range align(left, right) {
		l, r := "", ""
		if op.l >= 0 {
			l = diffLine(&left[op.l])
		}
		if op.r >= 0 {
			r = diffLine(&right[op.r])
		}
		mark := byte(' ')
		switch {
		case op.l < 0:
			mark = '>'
		case op.r < 0:
			mark = '<'
		case !op.same:
			mark = '|'
		}
		if op.l >= 0 && left[op.l].Step == step {
			fmt.Fprintf(bw, "%s\n", strings.Repeat("-", 2*diffColumn+3)+" divergence point")
		}
		fmt.Fprintf(bw, "%s %c %s\n", padRight(l, diffColumn), mark, r)
	}
	if len(a.Events) > step+diffEvents || len(b.Events) > step+diffEvents {
		fmt.Fprintf(bw, "# ... (only the first %d events after the divergence point are compared; the full logs are anomaly.log and similar.log)\n", diffEvents)
	}
	return bw.Flush()
}

func window(ev []timedsim.TimedEvent, from, to int) []timedsim.TimedEvent {
	from = min(from, len(ev))
	to = min(max(to, from), len(ev))
	return ev[from:to]
}

// diffKey is what makes two events the same: node, label, sender, and
// the handler's notes (the same message handled another way is another
// event).
func diffKey(e *timedsim.TimedEvent) string {
	k := e.Node.String() + " " + e.Label
	if e.From != timedsim.None {
		k += " from " + e.From.String()
	}
	for _, n := range e.Notes {
		k += " [" + n + "]"
	}
	return k
}

func diffLine(e *timedsim.TimedEvent) string {
	s := fmt.Sprintf("%5d %s %s", e.Step, timedsim.FormatTime(e.Start), diffKey(e))
	if r := []rune(s); len(r) > diffColumn {
		s = string(r[:diffColumn-1]) + "…"
	}
	return s
}

func padRight(s string, n int) string {
	if c := len([]rune(s)); c < n {
		return s + strings.Repeat(" ", n-c)
	}
	return s
}

type alignOp struct {
	l, r int // indexes, -1 for none
	same bool
}

// align pairs the two event sequences by a longest common subsequence of
// their keys; unmatched runs between matches are paired up line by line.
func align(a, b []timedsim.TimedEvent) []alignOp {
	n, m := len(a), len(b)
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	ka := make([]string, n)
	kb := make([]string, m)
	for i := range a {
		ka[i] = diffKey(&a[i])
	}
	for j := range b {
		kb[j] = diffKey(&b[j])
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if ka[i] == kb[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []alignOp
	var onlyL, onlyR []int
	flush := func() {
		k := 0
		for ; k < len(onlyL) && k < len(onlyR); k++ {
			ops = append(ops, alignOp{l: onlyL[k], r: onlyR[k]})
		}
		for _, i := range onlyL[k:] {
			ops = append(ops, alignOp{l: i, r: -1})
		}
		for _, j := range onlyR[k:] {
			ops = append(ops, alignOp{l: -1, r: j})
		}
		onlyL, onlyR = onlyL[:0], onlyR[:0]
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && ka[i] == kb[j]:
			flush()
			ops = append(ops, alignOp{l: i, r: j, same: true})
			i++
			j++
		case j >= m || (i < n && lcs[i+1][j] >= lcs[i][j+1]):
			onlyL = append(onlyL, i)
			i++
		default:
			onlyR = append(onlyR, j)
			j++
		}
	}
	flush()
	return ops
}
