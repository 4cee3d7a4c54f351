package edd

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Source says where the distribution returned by Set.Lookup came from.
type Source int

const (
	// Trained: the label's own empirical distribution.
	Trained Source = iota
	// Fallback: the pooled empirical distribution of the label's kind.
	Fallback
	// Seed: the seed uniform distribution.
	Seed
)

// String returns "trained", "fallback" or "seed".
func (s Source) String() string {
	switch s {
	case Trained:
		return "trained"
	case Fallback:
		return "fallback"
	case Seed:
		return "seed"
	}
	return "Source(" + strconv.Itoa(int(s)) + ")"
}

// Wildcard is the scale key that applies to every label.
const Wildcard = "*"

// Kind returns the kind of an event label: the text before the first space,
// or the whole label ("deliver JoinReply" → "deliver", "reset" → "reset").
func Kind(label string) string {
	if i := strings.IndexByte(label, ' '); i >= 0 {
		return label[:i]
	}
	return label
}

// KindWildcard returns the fallback description and scale key of a kind,
// "<kind> *".
func KindWildcard(kind string) string { return kind + " *" }

// Set maps event labels to duration distributions: one Empirical per trained
// label, one pooled Empirical per kind used as a fallback for unseen labels
// of that kind, the seed distribution for everything else, and what-if scale
// factors.
//
// Build a Set with NewSet, Train or Read. Lookup and the other read methods
// are safe for concurrent use; Scale is not safe concurrently with them.
type Set struct {
	seed   Uniform
	points int
	labels map[string]*Empirical
	kinds  map[string]*Empirical
	scale  map[string]float64 // label, "<kind> *" or "*" → factor != 1
}

// NewSet returns a Set with no trained labels: every label gets seed. It
// panics if seed is invalid (see Uniform.Validate).
func NewSet(seed Uniform) *Set {
	if err := seed.Validate(); err != nil {
		panic(err.Error())
	}
	return newSet(seed, DefaultPoints)
}

func newSet(seed Uniform, points int) *Set {
	return &Set{
		seed:   seed,
		points: points,
		labels: map[string]*Empirical{},
		kinds:  map[string]*Empirical{},
		scale:  map[string]float64{},
	}
}

// Train builds a Set from measured handler times per label (paper 004 §3.2,
// Phase 1a): one Empirical with a points-entry table for each label with at
// least one sample, and for each kind a pooled Empirical over all samples of
// all labels of that kind, used as the fallback for unseen labels of the
// kind. Labels with no samples are ignored. points == 0 means DefaultPoints.
// The result does not depend on the order of samples or of the map. samples
// is not modified.
//
// It returns an error for an invalid seed or points, an invalid label (empty,
// leading or trailing space, invalid UTF-8, or a wildcard "*" or "<kind> *")
// or a negative duration.
func Train(samples map[string][]time.Duration, seed Uniform, points int) (*Set, error) {
	if err := seed.Validate(); err != nil {
		return nil, err
	}
	if points == 0 {
		points = DefaultPoints
	}
	if err := checkPoints(points); err != nil {
		return nil, errors.New("edd: " + err.Error())
	}
	s := newSet(seed, points)
	pooled := map[string][]time.Duration{}
	for _, label := range slices.Sorted(maps.Keys(samples)) {
		xs := samples[label]
		if len(xs) == 0 {
			continue
		}
		if err := checkLabel(label); err != nil {
			return nil, fmt.Errorf("edd: label %q: %v", label, err)
		}
		e, err := newEmpirical(xs, points)
		if err != nil {
			return nil, fmt.Errorf("edd: label %q: %v", label, err)
		}
		s.labels[label] = e
		k := Kind(label)
		pooled[k] = append(pooled[k], xs...)
	}
	for k, xs := range pooled {
		e, err := newEmpirical(xs, points)
		if err != nil { // unreachable: the labels' samples were checked
			return nil, fmt.Errorf("edd: kind %q: %v", k, err)
		}
		s.kinds[k] = e
	}
	return s, nil
}

// checkLabel reports whether label may be trained.
func checkLabel(label string) error {
	if err := checkKey(label); err != nil {
		return err
	}
	if label == Wildcard || strings.HasSuffix(label, " "+Wildcard) {
		return errors.New("wildcard is not an event label")
	}
	return nil
}

// checkKey reports whether s is usable as a label, kind or scale key.
func checkKey(s string) error {
	switch {
	case s == "":
		return errors.New("empty")
	case !utf8.ValidString(s):
		return errors.New("invalid UTF-8")
	case strings.TrimSpace(s) != s:
		return errors.New("leading or trailing space")
	}
	return nil
}

// checkKind reports whether k is usable as a kind.
func checkKind(k string) error {
	if err := checkKey(k); err != nil {
		return err
	}
	if strings.ContainsRune(k, ' ') {
		return errors.New("kind contains a space")
	}
	if k == Wildcard {
		return errors.New("wildcard is not a kind")
	}
	return nil
}

// Lookup returns the distribution for label, where it came from, and a
// description:
//   - Trained: the label's own distribution; the description is the label.
//   - Fallback: label was not trained but its kind was; the kind's pooled
//     distribution and "<kind> *" (e.g. "deliver *").
//   - Seed: otherwise; the seed distribution and "seed".
//
// If any scale factor applies to label (see Scale), the distribution is
// wrapped so that its durations are multiplied by the factor, whatever the
// Source. Lookup allocates only for such a wrapper; callers in a hot loop
// should look a label up once and keep the Dist.
func (s *Set) Lookup(label string) (Dist, Source, string) {
	var (
		d    Dist
		src  Source
		desc string
	)
	if e, ok := s.labels[label]; ok {
		d, src, desc = e, Trained, label
	} else if e, ok := s.kinds[Kind(label)]; ok {
		d, src, desc = e, Fallback, KindWildcard(Kind(label))
	} else {
		d, src, desc = s.seed, Seed, "seed"
	}
	if f := s.Factor(label); f != 1 {
		d = &scaled{d: d, factor: f}
	}
	return d, src, desc
}

// Labels returns the trained labels, sorted.
func (s *Set) Labels() []string { return slices.Sorted(maps.Keys(s.labels)) }

// Kinds returns the kinds with a pooled fallback distribution, sorted.
func (s *Set) Kinds() []string { return slices.Sorted(maps.Keys(s.kinds)) }

// Seed returns the seed distribution.
func (s *Set) Seed() Uniform { return s.seed }

// Points returns the length of the Set's percentile tables.
func (s *Set) Points() int { return s.points }

// Scale sets the what-if scale factor of key (paper 004 §3.1,
// "Malleability"): durations returned by Lookup for matching labels are
// multiplied by factor. key is a label, "<kind> *" for every label of a kind,
// or "*" for every label. The factors of the label, of its kind and of "*"
// multiply. Setting a key again replaces its factor; factor 1 removes it.
// factor must be positive and finite. A scaled duration saturates at
// MaxDuration: a factor that large makes the event last beyond any
// timeout, not wrap around to a short one.
func (s *Set) Scale(key string, factor float64) error {
	if err := checkScale(key, factor); err != nil {
		return err
	}
	if factor == 1 {
		delete(s.scale, key)
	} else {
		s.scale[key] = factor
	}
	return nil
}

func checkScale(key string, factor float64) error {
	if err := checkKey(key); err != nil {
		return fmt.Errorf("edd: scale label %q: %v", key, err)
	}
	if !(factor > 0) || math.IsInf(factor, 1) {
		return fmt.Errorf("edd: scale factor %v for %q must be positive and finite", factor, key)
	}
	return nil
}

// Factor returns the combined scale factor that Lookup applies to label: the
// product of the factors set for label, for "<kind> *" and for "*" (1 if
// none).
func (s *Set) Factor(label string) float64 {
	f := 1.0
	if len(s.scale) == 0 {
		return f
	}
	if g, ok := s.scale[Wildcard]; ok {
		f *= g
	}
	kw := KindWildcard(Kind(label))
	if g, ok := s.scale[kw]; ok {
		f *= g
	}
	if label != Wildcard && label != kw {
		if g, ok := s.scale[label]; ok {
			f *= g
		}
	}
	return f
}

// ScaleFactors returns a copy of the scale factors set, by key.
func (s *Set) ScaleFactors() map[string]float64 { return maps.Clone(s.scale) }

// ParseScale parses a what-if scale spec "label=factor", such as
// "deliver Join=2.5", "timer *=0.5" or "*=2". The label may contain spaces
// and '='; the spec is split at the last '='. Space around the label and the
// factor is trimmed. The factor must be positive and finite.
func ParseScale(spec string) (label string, factor float64, err error) {
	i := strings.LastIndexByte(spec, '=')
	if i < 0 {
		return "", 0, fmt.Errorf("edd: scale %q: want label=factor", spec)
	}
	label = strings.TrimSpace(spec[:i])
	fs := strings.TrimSpace(spec[i+1:])
	if label == "" {
		return "", 0, fmt.Errorf("edd: scale %q: empty label", spec)
	}
	factor, err = strconv.ParseFloat(fs, 64)
	if err != nil {
		return "", 0, fmt.Errorf("edd: scale %q: factor %q is not a number", spec, fs)
	}
	if err := checkScale(label, factor); err != nil {
		return "", 0, err
	}
	return label, factor, nil
}

// Coverage says, for a list of labels, which distribution each one gets
// (paper 004 §3.2: "If we later determine coverage was incomplete, we can
// either increase N and re-train, or substitute a similar event's
// distribution"). Slices are sorted and never nil.
type Coverage struct {
	Trained  []string          `json:"trained"`
	Fallback map[string]string `json:"fallback"` // label → what it fell back to, e.g. "deliver *"
	Seed     []string          `json:"seed"`
}

// Coverage classifies labels (for example those seen in a run) by the Source
// that Lookup would report. Duplicates are counted once.
func (s *Set) Coverage(labels []string) Coverage {
	c := Coverage{Trained: []string{}, Fallback: map[string]string{}, Seed: []string{}}
	seen := make(map[string]bool, len(labels))
	for _, l := range labels {
		if seen[l] {
			continue
		}
		seen[l] = true
		if _, ok := s.labels[l]; ok {
			c.Trained = append(c.Trained, l)
		} else if _, ok := s.kinds[Kind(l)]; ok {
			c.Fallback[l] = KindWildcard(Kind(l))
		} else {
			c.Seed = append(c.Seed, l)
		}
	}
	slices.Sort(c.Trained)
	slices.Sort(c.Seed)
	return c
}
