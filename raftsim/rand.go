package raftsim

import (
	crand "crypto/rand"
	"io"
	"math/rand/v2"
	"sync"
)

// raft draws each randomized election timeout with
// crypto/rand.Int(crypto/rand.Reader, …) (its lockedRand, raft.go), from
// the process-wide crypto/rand.Reader, and exposes no hook to replace it.
// To put those draws on the execution's path, every call into raft runs
// with crypto/rand.Reader pointing at the handler's Context.Rand, and the
// swap is serialized across all simulator workers of the process by
// raftMu: two workers' raft code never runs at once. This is the one piece
// of package-level mutable state in macepc, forced by raft's use of a
// global; it costs the parallelism of the raft code itself (the simulator's
// own work still runs in parallel), which bench/RESULTS.md measures.
//
// The hazard for a Go program that imports raftsim: while a raft handler
// runs, crypto/rand.Reader is the path's stream for the whole process, so
// crypto/rand.Read and everything that defaults to it (crypto/tls, key
// generation) in any other goroutine get predictable bytes, and the swap
// is a write to a package variable that such a goroutine reads without
// synchronization (the race detector reports it). It cannot be scoped to
// the raft goroutine: Go has no per-goroutine Reader and raft no hook. So
// run raftsim simulations only in a process that uses crypto/rand for
// nothing else at the same time, as macepc's own binaries (which read
// crypto/rand nowhere) and tests do; the package documentation says so.
var raftMu sync.Mutex

// pathReader reads bytes from a handler's deterministic source.
type pathReader struct {
	r   *rand.Rand
	old io.Reader
}

func (p *pathReader) Read(b []byte) (int, error) {
	for i := 0; i < len(b); i += 8 {
		v := p.r.Uint64()
		for j := i; j < len(b) && j < i+8; j++ {
			b[j] = byte(v)
			v >>= 8
		}
	}
	return len(b), nil
}

// enter takes raftMu and points crypto/rand.Reader at r, until leave.
func (p *pathReader) enter(r *rand.Rand) {
	raftMu.Lock()
	p.r, p.old = r, crand.Reader
	crand.Reader = p
}

// leave restores crypto/rand.Reader and releases raftMu.
func (p *pathReader) leave() {
	crand.Reader = p.old
	p.r, p.old = nil, nil
	raftMu.Unlock()
}
