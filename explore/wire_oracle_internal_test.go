package explore

import (
	"errors"
	"unicode/utf16"
)

// The page's reconstruction of a state from checkpoints and deltas,
// written again in Go as the tests' oracle for the encoding.

// applyDelta is delta's inverse, as the page computes it.
func applyDelta(prev string, pre, suf int, mid string) (string, error) {
	u := utf16.Encode([]rune(prev))
	if pre < 0 || suf < 0 || pre+suf > len(u) {
		return "", errors.New("explore: delta out of range")
	}
	return string(utf16.Decode(u[:pre])) + mid + string(utf16.Decode(u[len(u)-suf:])), nil
}

// stateAt is node's state after step in w, reconstructed from the
// checkpoints and deltas as the page does.
func (w *wireExec) stateAt(step, node int) (string, error) {
	last := -1
	for k := range w.StStep {
		if w.StStep[k] > step {
			break
		}
		if w.StNode[k] == node {
			last = k
		}
	}
	var chain []int // the entries to apply, last first
	for k := last; k >= 0; k-- {
		if w.StNode[k] != node {
			continue
		}
		chain = append(chain, k)
		if w.StPre[k] < 0 {
			break
		}
	}
	s := w.Initial[node]
	for i := len(chain) - 1; i >= 0; i-- {
		k := chain[i]
		if w.StPre[k] < 0 {
			s = w.StText[k]
			continue
		}
		var err error
		if s, err = applyDelta(s, w.StPre[k], w.StSuf[k], w.StText[k]); err != nil {
			return "", err
		}
	}
	return s, nil
}
