package liveness

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/macepc/macepc/internal/visible"
	"github.com/macepc/macepc/timedsim"
)

// Fingerprinter is implemented by services that can write their state for
// state hashing without formatting it: the search then hashes a node by
// AppendFingerprint instead of its Describe text (which it still uses for
// state diffs, event logs and replays). A service matches it structurally,
// without importing this package.
//
// AppendFingerprint appends an encoding of the service's state to b and
// returns the extended slice. It must be a pure function of the state and
// exactly as fine as Describe: two states must give equal bytes exactly
// when their Describe texts are equal (more would split states the search
// counts as one, less would merge states it tells apart; either changes
// the search). An encoding that writes each field Describe shows, with the
// length of every list, is. It must not keep or modify b beyond appending.
type Fingerprinter interface {
	AppendFingerprint(b []byte) []byte
}

// nodeState writes node i's state into the world's digest: its
// fingerprint (Fingerprinter), else its Describe text. A fingerprint is
// length-prefixed and tagged apart from a text, so that neither can be
// confused with the other or with what follows it.
func (w *world) nodeState(i int) {
	if w.fingerprints(i) {
		fp := w.nodeFP(i)
		var pre [binary.MaxVarintLen64 + 1]byte
		pre[0] = 'F'
		k := binary.PutUvarint(pre[1:], uint64(len(fp)))
		w.digest.Write(pre[:1+k])
		w.digest.Write(fp)
		return
	}
	w.digest.WriteString(w.nodeDesc(i))
}

// primeState computes and caches what hashing node i needs (its
// fingerprint or its Describe text), as a snapshot does before it is
// forked.
func (w *world) primeState(i int) {
	if w.fingerprints(i) {
		w.nodeFP(i)
		return
	}
	w.nodeDesc(i)
}

// fingerprints reports whether node i is hashed by its fingerprint.
func (w *world) fingerprints(i int) bool {
	_, ok := w.nodes[i].svc.(Fingerprinter)
	return ok && !w.set.describeOnly
}

// nodeFP is node i's fingerprint, cached until a step changes the node.
// Each is a new slice (snapshots share it with the world, read only). A
// fingerprint that panics ends the execution as a panicking Describe does.
// Its determinism is checked on the same sample as Describe's
// (checkDescribe).
func (w *world) nodeFP(i int) []byte {
	n := &w.nodes[i]
	if n.fpDone {
		return n.fp
	}
	f := n.svc.(Fingerprinter)
	fp, p := tryFingerprint(f, make([]byte, 0, 64))
	if p == "" && w.nondet == "" && w.checkDescribe() {
		again, p2 := tryFingerprint(f, make([]byte, 0, 64))
		if p = p2; p == "" && !bytes.Equal(again, fp) {
			w.nondet = fmt.Sprintf("node %v's AppendFingerprint is not deterministic: two calls on the same state gave different bytes (%x, then %x); "+
				"state hashing counts each such state as several: make it a pure function of the state", timedsim.NodeID(i), fp, again)
		}
	}
	if p != "" {
		if w.panicked == "" {
			w.panicked = fmt.Sprintf("%v: AppendFingerprint panicked: %s", timedsim.NodeID(i), p)
		}
		fp = []byte("<AppendFingerprint panicked: " + p + ">")
	}
	n.fp, n.fpDone = fp, true
	return fp
}

// tryFingerprint is f's fingerprint appended to b, or the value of its
// panic.
func tryFingerprint(f Fingerprinter, b []byte) (fp []byte, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			panicked = visible.String(fmt.Sprint(r))
		}
	}()
	return f.AppendFingerprint(b), ""
}
