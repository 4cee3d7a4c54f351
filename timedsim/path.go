package timedsim

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// Segment says that from step From on, the step randomness derives from
// Seed.
type Segment struct {
	From int    `json:"from"`
	Seed uint64 `json:"seed"`
}

// Path fully describes one execution: the random draws of step i come from
// a PCG generator seeded with (segment seed, hash of i), where the segment
// is the last one with From <= i. Replaying a prefix of p steps and then
// branching means keeping the segments that start before p and appending
// {From: p, Seed: new}.
//
// The driver (application events and faults scheduled before step 0)
// draws from the first segment's seed.
type Path struct {
	Segments []Segment `json:"segments"`
}

// String is the path as the event log's header writes it: each segment's
// first step and seed, "0:42" or "0:42,17:99".
func (p Path) String() string {
	b := make([]byte, 0, 24*len(p.Segments))
	for i, s := range p.Segments {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(s.From), 10)
		b = append(b, ':')
		b = strconv.AppendUint(b, s.Seed, 10)
	}
	return string(b)
}

// SeedPath is the path of a fresh random execution.
func SeedPath(seed uint64) Path {
	return Path{Segments: []Segment{{From: 0, Seed: seed}}}
}

// Branch returns the path that follows p for steps [0, at) and then draws
// from seed. p is not modified.
func (p Path) Branch(at int, seed uint64) Path {
	out := Path{Segments: make([]Segment, 0, len(p.Segments)+1)}
	for _, s := range p.Segments {
		if s.From < at {
			out.Segments = append(out.Segments, s)
		}
	}
	out.Segments = append(out.Segments, Segment{From: at, Seed: seed})
	return out
}

// Validate checks that segments start at step 0 and are strictly
// increasing.
func (p Path) Validate() error {
	if len(p.Segments) == 0 {
		return fmt.Errorf("timedsim: path has no segments")
	}
	if p.Segments[0].From != 0 {
		return fmt.Errorf("timedsim: path's first segment starts at step %d, want 0", p.Segments[0].From)
	}
	for i := 1; i < len(p.Segments); i++ {
		if p.Segments[i].From <= p.Segments[i-1].From {
			return fmt.Errorf("timedsim: path segment %d starts at step %d, not after step %d", i, p.Segments[i].From, p.Segments[i-1].From)
		}
	}
	return nil
}

// ExecutionSeed derives the seed of execution index i of an exploration
// with base seed base (splitmix64 of both), so that execution i is the
// same whatever the number of workers.
func ExecutionSeed(base uint64, i int) uint64 {
	return splitmix64(base ^ splitmix64(uint64(i)+0x632be59bd9b4e019))
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// stepRand is the counter-based randomness of one execution: two PCG
// streams per step, one for the framework (durations, network delays) and
// one handed to the handler, so a handler that draws more numbers does not
// shift the network's draws. Re-seeding is two stores: no allocation.
type stepRand struct {
	segs   []Segment
	cur    int // index of the current segment
	fw, h  rand.PCG
	fwR, R *rand.Rand
	// recR draws from the handler's stream as R does, and records each
	// draw into *rec (a recorded event's Draws).
	recR *rand.Rand
	rec  recSource
}

// recSource is the handler's PCG stream, recording what it draws.
type recSource struct {
	h   *rand.PCG
	out *[]uint64
}

func (r *recSource) Uint64() uint64 {
	v := r.h.Uint64()
	if r.out != nil {
		*r.out = append(*r.out, v)
	}
	return v
}

func newStepRand() *stepRand {
	s := &stepRand{}
	s.fwR = rand.New(&s.fw)
	s.R = rand.New(&s.h)
	s.rec.h = &s.h
	s.recR = rand.New(&s.rec)
	return s
}

func (s *stepRand) reset(p Path) {
	s.segs = p.Segments
	s.cur = 0
}

// driver seeds the streams for the driver (before step 0).
func (s *stepRand) driver() {
	seed := s.segs[0].Seed
	s.fw.Seed(seed, splitmix64(0xd1b54a32d192ed03))
	s.h.Seed(seed, splitmix64(0x8cb92ba72f3d8dd7))
}

// step seeds the streams for step i; steps are visited in increasing
// order, so the segment cursor only moves forward.
func (s *stepRand) step(i int) {
	for s.cur+1 < len(s.segs) && s.segs[s.cur+1].From <= i {
		s.cur++
	}
	seed := s.segs[s.cur].Seed
	k := uint64(i) << 1
	s.fw.Seed(seed, splitmix64(k))
	s.h.Seed(seed, splitmix64(k|1))
}
