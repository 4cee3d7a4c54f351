package anomaly

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// Execution is one explored execution as Triage sees it.
type Execution struct {
	// Index is the execution's index in the search.
	Index int
	// ExecTime and Steps are the execution's time and length.
	ExecTime time.Duration
	Steps    int
	// Anomalous says the search called it anomalous.
	Anomalous bool
	// Finding is a non-empty bucket for an anomaly that is a finding
	// rather than slowness: a panic in a handler, a violated safety
	// property. Executions with the same Finding form one class.
	Finding string
	// Window counts the events (plain and composite labels) that started
	// within the count window, the profile's normal execution time.
	Window map[string]int
}

// Class is a group of anomalous executions that Triage takes for one
// problem.
type Class struct {
	// Rank is the class's place in the ranking, 1 for the most severe.
	Rank int
	// Members are the indexes of its executions, ascending.
	Members []int
	// Representative is the index of the member to analyse: the one
	// with the fewest steps, then the lowest index (the smallest
	// reproducer, as a fuzzer minimises a crash).
	Representative int
	// Finding is the members' common finding ("" for a slowness class).
	Finding string
	// Min, Median and Max are the members' execution times (Median: the
	// lower median for an even count).
	Min, Median, Max time.Duration
	// Slowdown is Median over the profile's median (0 when the profile's
	// median is 0).
	Slowdown float64
	// Excess is the sum over members of their time above the profile's
	// median: what the class cost the explored executions.
	Excess time.Duration
	// Signature lists the labels whose presence ("+label") or absence
	// ("-label") within the count window sets the class's executions
	// apart from the normal ones; sorted.
	Signature []string
}

// TriageConfig tunes Triage.
type TriageConfig struct {
	// Median is the profile's median execution time.
	Median time.Duration
	// Rare is the largest share of normal executions in which a label
	// may occur and still count as unusual for an anomaly that has it
	// (DefaultRare when 0). An anomaly lacking a label that more than
	// 1 − Rare of the normal executions have is unusual too.
	Rare float64
	// ModeGap is the ratio between two consecutive anomaly times (sorted)
	// beyond which they belong to different execution-time modes
	// (DefaultModeGap when 0).
	ModeGap float64
}

// Defaults of TriageConfig.
const (
	DefaultRare    = 0.01
	DefaultModeGap = 1.5
)

// Triage groups the anomalous executions among execs into classes and
// ranks them by severity (see the package documentation, "Triage"). The
// normal executions (Anomalous false) are the reference for signatures.
// It returns nil when no execution is anomalous; execs is not modified.
// It panics on a Rare outside [0, 1) or a ModeGap that is not 0 or > 1:
// caller bugs.
func Triage(execs []Execution, cfg TriageConfig) []Class {
	if cfg.Rare == 0 {
		cfg.Rare = DefaultRare
	}
	if cfg.ModeGap == 0 {
		cfg.ModeGap = DefaultModeGap
	}
	if !(cfg.Rare > 0 && cfg.Rare < 1) || !(cfg.ModeGap > 1) || math.IsInf(cfg.ModeGap, 0) {
		panic(fmt.Sprintf("anomaly: Triage with Rare %v and ModeGap %v", cfg.Rare, cfg.ModeGap))
	}
	// How many normal executions have each label in their window.
	normal := 0
	present := map[string]int{}
	for _, e := range execs {
		if e.Anomalous {
			continue
		}
		normal++
		for l, n := range e.Window {
			if n > 0 {
				present[l]++
			}
		}
	}
	signature := func(e Execution) []string {
		sig := []string{}
		for l, n := range e.Window {
			if n > 0 && float64(present[l]) < cfg.Rare*float64(normal) {
				sig = append(sig, "+"+l)
			}
		}
		for l, k := range present {
			if e.Window[l] == 0 && float64(k) > (1-cfg.Rare)*float64(normal) {
				sig = append(sig, "-"+l)
			}
		}
		slices.Sort(sig)
		return sig
	}

	// Findings group by their bucket, slow executions by signature.
	findings := map[string][]Execution{}
	groups := map[string]*sigGroup{}
	for _, e := range execs {
		switch {
		case !e.Anomalous:
		case e.Finding != "":
			findings[e.Finding] = append(findings[e.Finding], e)
		default:
			sig := signature(e)
			key := strings.Join(sig, "\x00")
			if groups[key] == nil {
				groups[key] = &sigGroup{sig: sig}
			}
			groups[key].members = append(groups[key].members, sigMember{e, sig})
		}
	}
	var out []Class
	for _, f := range slices.Sorted(maps.Keys(findings)) {
		out = append(out, newClass(findings[f], f, nil, cfg.Median))
	}
	for _, ms := range joinSimilar(groups) {
		// Split into execution-time modes.
		slices.SortStableFunc(ms, func(a, b sigMember) int { return cmp.Compare(a.ExecTime, b.ExecTime) })
		start := 0
		for i := 1; i <= len(ms); i++ {
			if i == len(ms) || float64(ms[i].ExecTime) > cfg.ModeGap*float64(ms[i-1].ExecTime) {
				es := make([]Execution, 0, i-start)
				common := ms[start].sig
				for _, m := range ms[start:i] {
					es = append(es, m.Execution)
					common = slices.DeleteFunc(slices.Clone(common), func(l string) bool {
						_, ok := slices.BinarySearch(m.sig, l)
						return !ok
					})
				}
				out = append(out, newClass(es, "", common, cfg.Median))
				start = i
			}
		}
	}
	slices.SortFunc(out, compareClasses)
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}

// sigMember is an anomalous execution with its signature.
type sigMember struct {
	Execution
	sig []string
}

// sigGroup is the anomalous executions of one signature.
type sigGroup struct {
	sig     []string
	members []sigMember
}

// joinSimilar merges the signature groups whose signatures share at least
// half of their labels (Jaccard index >= 1/2), transitively (single
// linkage): one race seen with and without one of its consequences is one
// problem, while executions with no unusual label at all (network jitter)
// share nothing and stay apart from those with. The merged groups come in
// the order of their first signature, sorted.
func joinSimilar(groups map[string]*sigGroup) [][]sigMember {
	keys := slices.Sorted(maps.Keys(groups))
	parent := make([]int, len(keys))
	for i := range parent {
		parent[i] = i
	}
	root := func(i int) int {
		for parent[i] != i {
			i = parent[i]
		}
		return i
	}
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			if jaccard(groups[keys[i]].sig, groups[keys[j]].sig) >= 0.5 {
				if ri, rj := root(i), root(j); ri != rj {
					parent[max(ri, rj)] = min(ri, rj)
				}
			}
		}
	}
	var out [][]sigMember
	at := map[int]int{}
	for i, k := range keys {
		r := root(i)
		if _, ok := at[r]; !ok {
			at[r] = len(out)
			out = append(out, nil)
		}
		out[at[r]] = append(out[at[r]], groups[k].members...)
	}
	return out
}

// jaccard is |a ∩ b| / |a ∪ b| of two sorted label lists (0 when both
// are empty: two executions with nothing unusual share no evidence).
func jaccard(a, b []string) float64 {
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch c := strings.Compare(a[i], b[j]); {
		case c == 0:
			inter++
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// newClass summarises a group of anomalous executions.
func newClass(ms []Execution, finding string, sig []string, median time.Duration) Class {
	ms = slices.Clone(ms)
	slices.SortFunc(ms, func(a, b Execution) int { return cmp.Compare(a.Index, b.Index) })
	c := Class{Finding: finding, Signature: sig, Representative: ms[0].Index}
	if c.Signature == nil {
		c.Signature = []string{}
	}
	times := make([]time.Duration, len(ms))
	fewest := ms[0].Steps
	for i, e := range ms {
		c.Members = append(c.Members, e.Index)
		times[i] = e.ExecTime
		if e.Steps < fewest {
			fewest, c.Representative = e.Steps, e.Index
		}
		if e.ExecTime > median {
			c.Excess += e.ExecTime - median
		}
	}
	slices.Sort(times)
	c.Min, c.Median, c.Max = times[0], times[(len(times)-1)/2], times[len(times)-1]
	if median > 0 {
		c.Slowdown = round6(float64(c.Median) / float64(median))
	}
	return c
}

// compareClasses is the severity ranking: findings first (more members
// first), then slowness classes by Excess, then by Slowdown, both
// descending; ties by the lowest member index.
func compareClasses(a, b Class) int {
	if (a.Finding != "") != (b.Finding != "") {
		if a.Finding != "" {
			return -1
		}
		return 1
	}
	if a.Finding != "" {
		if c := cmp.Compare(len(b.Members), len(a.Members)); c != 0 {
			return c
		}
	} else {
		if c := cmp.Compare(b.Excess, a.Excess); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Slowdown, a.Slowdown); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.Members[0], b.Members[0])
}
