package critpath

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/macepc/macepc/internal/units"
	"github.com/macepc/macepc/timedsim"
)

// Kind is what a segment of the critical path spent its time on.
type Kind uint8

// Kinds of segments (see the package documentation).
const (
	Handler Kind = iota
	Busy
	Queue
	Transmission
	Propagation
	FIFO
	Timer
	Schedule
	Notice
)

var kindNames = [...]string{"handler", "busy", "queue", "transmission", "propagation", "fifo", "timer", "schedule", "notice"}

// String is the kind's name as it appears in JSON ("timer").
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Draw reports whether segments of the kind are draws of the simulator's
// models (an event duration, a network delay) rather than the protocol's
// own waiting (a timer, a queue it filled, the scenario's schedule).
func (k Kind) Draw() bool {
	return k == Handler || k == Busy || k == Propagation || k == FIFO
}

// Segment is one stretch of the critical path.
type Segment struct {
	Kind       Kind
	Start, End time.Duration
	// Step is the event the segment belongs to: the handler's, or the one
	// at the end of a wait (the delivery, the timer's firing).
	Step int
	// Node is the node that ran or waited; From the sender of a message.
	Node, From timedsim.NodeID
	// Label is the event's label ("deliver Announce", "timer recovery").
	Label string
	// Cause is the step that made the waited-for event (the send, the
	// SetTimer), -1 if none; CauseLabel its label.
	Cause      int
	CauseLabel string
	// Quantile is a Propagation segment's place in the network model's
	// delay distribution (0.999: its 99.9th percentile); 0 otherwise.
	Quantile float64
}

// Len is the segment's duration.
func (s Segment) Len() time.Duration { return s.End - s.Start }

// Path is the critical path of an execution.
type Path struct {
	// Segments tile [0, End] in time order.
	Segments []Segment
	// Steps are the events on the path, ascending.
	Steps []int
	// End is the end of the execution's last event.
	End time.Duration
	// Draws is the number of model draws the execution made: its timed
	// events plus its sent messages (the rate at which an extreme draw
	// shows up).
	Draws int
}

// Compute returns the critical path of an execution recorded with
// timedsim.Options.Record, ending at its last event. It returns an error
// when the events are not a recorded execution (steps out of order, a
// cause that is not an earlier step, a send index out of range).
func Compute(events []timedsim.TimedEvent) (*Path, error) {
	if len(events) == 0 {
		return nil, fmt.Errorf("critpath: no events")
	}
	prevOnNode := make([]int, len(events))
	lastOf := map[timedsim.NodeID]int{}
	p := &Path{}
	for i, e := range events {
		if e.Step != i {
			return nil, fmt.Errorf("critpath: event %d has step %d: not a recorded execution", i, e.Step)
		}
		if e.Cause >= i || e.Cause < -1 {
			return nil, fmt.Errorf("critpath: step %d has cause %d", i, e.Cause)
		}
		prevOnNode[i] = -1
		if e.Node != timedsim.None {
			if j, ok := lastOf[e.Node]; ok {
				prevOnNode[i] = j
			}
			lastOf[e.Node] = i
		}
		p.Draws += 1 + len(e.Sends)
	}
	cur := len(events) - 1
	last := events[cur]
	p.End = last.Start + last.Duration
	var rev []Segment
	add := func(s Segment) {
		if s.End > s.Start {
			rev = append(rev, s)
		}
	}
	own := Handler
	for {
		e := events[cur]
		p.Steps = append(p.Steps, cur)
		add(Segment{Kind: own, Start: e.Start, End: e.Start + e.Duration, Step: cur, Node: e.Node, From: e.From, Label: e.Label, Cause: -1})
		if e.Start > e.Ready {
			// It waited for its node: the previous handler there is on
			// the path.
			j := prevOnNode[cur]
			if j < 0 {
				return nil, fmt.Errorf("critpath: step %d waited for %v, which ran nothing before", cur, e.Node)
			}
			pe := events[j]
			if end := pe.Start + pe.Duration; end < e.Start {
				// Paper semantics: the node's clock ran ahead of its last
				// event's end only by an earlier wait; count the gap as busy.
				add(Segment{Kind: Busy, Start: end, End: e.Start, Step: cur, Node: e.Node, Label: e.Label, Cause: j, CauseLabel: pe.Label})
			}
			cur, own = j, Busy
			continue
		}
		if e.Cause < 0 {
			add(Segment{Kind: Schedule, Start: 0, End: e.Ready, Step: cur, Node: e.Node, From: timedsim.None, Label: e.Label, Cause: -1})
			break
		}
		c := events[e.Cause]
		cEnd := c.Start + c.Duration
		seg := Segment{Step: cur, Node: e.Node, From: e.From, Label: e.Label, Cause: e.Cause, CauseLabel: c.Label}
		switch {
		case e.CauseSend >= 0:
			if e.CauseSend >= len(c.Sends) || c.Sends[e.CauseSend].Status != "sent" {
				return nil, fmt.Errorf("critpath: step %d was sent by step %d as send %d, which it did not make", cur, e.Cause, e.CauseSend)
			}
			nd := &c.Sends[e.CauseSend].Net
			at := cEnd
			var msg [4]Segment
			for i, part := range []struct {
				k   Kind
				end time.Duration
			}{{Queue, nd.TxStart}, {Transmission, nd.TxEnd}, {Propagation, nd.TxEnd + nd.Propagation + nd.Reorder}, {FIFO, e.Ready}} {
				s := seg
				s.Kind, s.Start, s.End = part.k, at, min(max(part.end, at), e.Ready)
				if part.k == Propagation {
					s.Quantile = nd.Quantile
				}
				msg[i] = s
				at = s.End
			}
			for i := len(msg) - 1; i >= 0; i-- { // the path is built backwards
				add(msg[i])
			}
		case strings.HasPrefix(e.Label, "timer "):
			seg.Kind, seg.Start, seg.End = Timer, cEnd, e.Ready
			add(seg)
		default: // an error upcall's news, an Init after a reset, an outage's heal
			seg.Kind, seg.Start, seg.End = Notice, cEnd, e.Ready
			add(seg)
		}
		cur, own = e.Cause, Handler
	}
	slices.Reverse(rev)
	slices.Reverse(p.Steps)
	p.Segments = rev
	return p, nil
}

// Labels returns the event labels on the path (the events whose handler
// or wait is part of it), sorted and without duplicates.
func (p *Path) Labels(events []timedsim.TimedEvent) []string {
	set := map[string]bool{}
	for _, s := range p.Steps {
		if s < len(events) {
			set[events[s].Label] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// Part is one kind of waiting, for one label, on two critical paths.
type Part struct {
	Kind  Kind
	Label string
	// Slow and Normal are its total time on the slow and the normal
	// path; Excess = Slow − Normal.
	Slow, Normal, Excess time.Duration
	// Largest is the slow path's longest segment of the part.
	Largest Segment
	// Segments is how many segments of the part the slow path has.
	Segments int
}

// Attribution is the excess of a slow execution's critical path over a
// normal one's, by part.
type Attribution struct {
	// Slow and Normal are the two paths' ends; Excess = Slow − Normal.
	Slow, Normal, Excess time.Duration
	// Parts are the parts of the two paths, largest excess first (then by
	// kind and label); parts with no time on the slow path and none on
	// the normal one are left out.
	Parts []Part
	// DrawShare is the share of the excess made of the models' own draws
	// (Kind.Draw): the positive excess of those parts over the positive
	// excess of all parts, 0 when no part has a positive excess.
	DrawShare float64
	// SlowDraws is the number of model draws of the slow execution.
	SlowDraws int
}

type partKey struct {
	kind  Kind
	label string
}

// Attribute compares the critical path of a slow execution with that of
// a normal one.
func Attribute(slow, normal *Path) Attribution {
	a := Attribution{Slow: slow.End, Normal: normal.End, Excess: slow.End - normal.End, SlowDraws: slow.Draws}
	parts := map[partKey]*Part{}
	get := func(s Segment) *Part {
		k := partKey{s.Kind, s.Label}
		if parts[k] == nil {
			parts[k] = &Part{Kind: s.Kind, Label: s.Label}
		}
		return parts[k]
	}
	for _, s := range slow.Segments {
		pt := get(s)
		pt.Slow += s.Len()
		pt.Segments++
		if s.Len() > pt.Largest.Len() {
			pt.Largest = s
		}
	}
	for _, s := range normal.Segments {
		get(s).Normal += s.Len()
	}
	var pos, draws time.Duration
	for _, pt := range parts {
		pt.Excess = pt.Slow - pt.Normal
		a.Parts = append(a.Parts, *pt)
		if pt.Excess > 0 {
			pos += pt.Excess
			if pt.Kind.Draw() {
				draws += pt.Excess
			}
		}
	}
	slices.SortFunc(a.Parts, func(x, y Part) int {
		if c := cmp.Compare(y.Excess, x.Excess); c != 0 {
			return c
		}
		if c := cmp.Compare(x.Kind, y.Kind); c != 0 {
			return c
		}
		return strings.Compare(x.Label, y.Label)
	})
	if pos > 0 {
		a.DrawShare = float64(draws) / float64(pos)
	}
	return a
}

// Top returns the part with the largest excess, and false when no part
// has a positive one (the slow path is not slower anywhere).
func (a Attribution) Top() (Part, bool) {
	if len(a.Parts) == 0 || a.Parts[0].Excess <= 0 {
		return Part{}, false
	}
	return a.Parts[0], true
}

// Headline says in one line what most of the excess was spent on: "4.99
// s of the 5 s excess: n3 waiting 5 s on timer retry, armed at step 86 by
// deliver Nack", or "the whole 9.5 s excess: …" when the part is at least
// the excess (others were shorter on the slow path). It is "" when the
// slow path is not slower.
func (a Attribution) Headline() string {
	top, ok := a.Top()
	if !ok || a.Excess <= 0 {
		return ""
	}
	if top.Excess >= a.Excess {
		return fmt.Sprintf("the whole %s excess: %s", units.Duration(a.Excess), top.Describe())
	}
	return fmt.Sprintf("%s of the %s excess: %s", units.Duration(top.Excess), units.Duration(a.Excess), top.Describe())
}

// Describe says what the part's largest segment on the slow path was.
func (pt Part) Describe() string {
	s := pt.Largest
	d := units.Duration(s.Len())
	if pt.Segments > 1 {
		d += fmt.Sprintf(", the longest of %d", pt.Segments)
	}
	switch s.Kind {
	case Handler:
		return fmt.Sprintf("%v running %s at step %d (%s)", s.Node, s.Label, s.Step, d)
	case Busy:
		return fmt.Sprintf("%v busy running %s at step %d (%s)", s.Node, s.Label, s.Step, d)
	case Queue:
		return fmt.Sprintf("%s %v→%v waiting behind the flow's earlier transmissions (%s)", msgName(s.Label), s.From, s.Node, d)
	case Transmission:
		return fmt.Sprintf("%s %v→%v in transmission at its share of the sender's bandwidth (%s)", msgName(s.Label), s.From, s.Node, d)
	case Propagation:
		return fmt.Sprintf("%s %v→%v delivered at the network model's %s percentile (%s)", msgName(s.Label), s.From, s.Node, percentile(s.Quantile), d)
	case FIFO:
		return fmt.Sprintf("%s %v→%v held behind an earlier, slower message on its connection (%s)", msgName(s.Label), s.From, s.Node, d)
	case Timer:
		return fmt.Sprintf("%v waiting on %s (%s), armed at step %d by %s", s.Node, s.Label, d, s.Cause, s.CauseLabel)
	case Schedule:
		return fmt.Sprintf("%s scheduled on %v at %s by the scenario", s.Label, s.Node, units.Duration(s.End))
	default:
		return fmt.Sprintf("%s on %v (%s) after step %d, %s", s.Label, s.Node, d, s.Cause, s.CauseLabel)
	}
}

// msgName is "one Announce" for "deliver Announce".
func msgName(label string) string {
	return "one " + strings.TrimPrefix(label, "deliver ")
}

// percentile renders a quantile as an ordinal percentile with as many
// decimals as it takes to tell it from 100: "99.9th", "99.9993rd".
func percentile(q float64) string {
	pc := 100 * q
	s := ""
	for d := 0; d <= 6; d++ {
		s = fmt.Sprintf("%.*f", d, pc)
		if s != "100" && !strings.HasPrefix(s, "100.") || d == 6 {
			break
		}
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	suffix := "th"
	last := s[len(s)-1]
	tens := len(s) >= 2 && s[len(s)-2] == '1'
	switch {
	case tens:
	case last == '1':
		suffix = "st"
	case last == '2':
		suffix = "nd"
	case last == '3':
		suffix = "rd"
	}
	return s + suffix
}

// LeadIn returns the labels, plain and composite (what each handler sent,
// noted, or "(nothing)": timedsim.CompositeLabel), of the events that ran
// on a waiting segment's node from the segment's start until until (or
// the segment's end, if earlier): what the node did while it waited,
// before a normal execution would have been done. A timer wait armed at
// the node's start covers the race that stranded it; the repair work
// after the median's end does not count. Sorted, without duplicates.
func LeadIn(events []timedsim.TimedEvent, seg Segment, until time.Duration) []string {
	end := min(seg.End, until)
	set := map[string]bool{}
	for _, e := range events {
		if e.Node != seg.Node || e.Start < seg.Start || e.Start >= end {
			continue
		}
		for _, l := range EventLabels(e) {
			set[l] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// EventLabels are an event's labels as phase 3b counts them: its own, and
// a composite per message type it sent, per note it made and per timer it
// set or cancelled, or with "(nothing)" when it did none of these (a driver fault has only its own).
func EventLabels(e timedsim.TimedEvent) []string {
	out := []string{e.Label}
	seen := map[string]bool{}
	for _, m := range e.Sends {
		if !seen[m.Type] {
			seen[m.Type] = true
			out = append(out, timedsim.CompositeLabel(e.Label, m.Type))
		}
	}
	for _, n := range e.Notes {
		out = append(out, timedsim.CompositeLabel(e.Label, n))
	}
	for _, t := range e.Timers {
		if l := timedsim.CompositeLabel(e.Label, timedsim.TimerComposite(t.Name, t.Cancel)); !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	if len(e.Sends) == 0 && len(e.Notes) == 0 && len(e.Timers) == 0 && !driverFault(e.Label) {
		out = append(out, timedsim.CompositeLabel(e.Label, timedsim.SentNothing))
	}
	return out
}

// driverFault reports whether label is a driver's fault, which runs no
// handler (and so has no composite label).
func driverFault(label string) bool {
	switch label {
	case "reset", "break", "partition", "heal":
		return true
	}
	return false
}

// Stranded is the last node to finish, left without news while the
// critical path waited elsewhere: the node of the execution's last event,
// when the path's longest wait is on another node, and the last message it
// received before the wait ended, but for those it did nothing with (Step),
// came before the execution became anomalous. The wait is then the repair (a periodic timer on another
// node whose news reaches it at last) and Step is where the node was
// left: Bullet′'s late receiver whose JoinReject offered nobody else to
// try, idle until RanSub's next epoch on the root.
type Stranded struct {
	// Node is the stranded node.
	Node timedsim.NodeID
	// Step is the last delivery to Node before Next; Label its label,
	// Start its start.
	Step  int
	Label string
	Start time.Duration
	// Next is Node's first event on the path after the wait: the news
	// that ended it; NextLabel its label, NextStart its start.
	Next      int
	NextLabel string
	NextStart time.Duration
	// Lost are the messages sent to Node before Next that did not
	// arrive (a full transport queue, a broken connection, a drop), in
	// step order: news it never had.
	Lost []LostSend
}

// LostSend is a message that did not reach its destination.
type LostSend struct {
	// Step is the sending event; From its node, Type the message's type
	// and Status its fate (timedsim.SentMessage.Status).
	Step   int
	From   timedsim.NodeID
	Type   string
	Status string
	// Upcall is the error upcall the failure gave the sender (its step),
	// -1 if none; UpcallLabel its label.
	Upcall      int
	UpcallLabel string
}

// maxLostText bounds the lost messages Text names.
const maxLostText = 3

// Text says it in a clause: "n47, the last to finish, received nothing
// it acted on after step 5718 (deliver JoinReject at 1.137 s) until step
// 70211 (deliver Distribute at 5.001 s)".
// If messages to it were lost, it goes on: "; 4 messages to it were
// lost: Diff from n5 at step 3988 (queue-full), …".
func (s Stranded) Text() string {
	t := fmt.Sprintf("%v, the last to finish, received nothing it acted on after step %d (%s at %s) until step %d (%s at %s)",
		s.Node, s.Step, s.Label, units.Duration(s.Start), s.Next, s.NextLabel, units.Duration(s.NextStart))
	if len(s.Lost) == 0 {
		return t
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s; %d message%s to it %s lost: ", t, len(s.Lost), plural(len(s.Lost)), map[bool]string{true: "was", false: "were"}[len(s.Lost) == 1])
	for i, l := range s.Lost[:min(len(s.Lost), maxLostText)] {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s from %v at step %d (%s)", l.Type, l.From, l.Step, l.Status)
	}
	if len(s.Lost) > maxLostText {
		b.WriteString(", …")
	}
	return b.String()
}

// Labels are the labels, as phase 3b counts them (EventLabels), of the
// event at Step and of the error upcalls of the messages to the node
// that the protocol's own sending lost (SelfLostLabels).
func (s Stranded) Labels(events []timedsim.TimedEvent) []string {
	set := map[string]bool{}
	for _, l := range EventLabels(events[s.Step]) {
		set[l] = true
	}
	for _, l := range s.SelfLostLabels(events) {
		set[l] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// SelfLostLabels are the labels of the error upcalls of the lost messages
// that the protocol's own sending lost: a full transport queue
// ("queue-full"). A message to a node that was down or cut off
// ("unreachable", "broken") was lost to the scenario's faults, which
// every execution of the scenario has.
func (s Stranded) SelfLostLabels(events []timedsim.TimedEvent) []string {
	set := map[string]bool{}
	for _, l := range s.Lost {
		if l.Upcall >= 0 && l.Status == "queue-full" {
			for _, lb := range EventLabels(events[l.Upcall]) {
				set[lb] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// FindStranded returns the stranded node of the execution of events whose
// critical path is p, given the path's longest wait and the time after
// which an execution is anomalous (until: the profile's threshold), and
// false when there is none. The wait that counts is the last segment on
// the path of the same timer on the same node (a periodic timer waited
// out twice: the second firing brought the news). The stranding is the
// last message the node received before the wait ended, passing over
// those at until or later that it did nothing with (no send, no timer:
// Bullet′'s periodic Diffs of blocks it already has). There is none when
// the last event runs on the wait's own node (LeadIn covers what that
// node did), the last node does not join the path after the wait, or it
// acted on a message at until or later (it was already late then, and
// still busy: Bamboo's periodic exchange at 20 s that did not help).
func FindStranded(events []timedsim.TimedEvent, p *Path, wait Segment, until time.Duration) (Stranded, bool) {
	if len(p.Steps) == 0 {
		return Stranded{}, false
	}
	last := events[p.Steps[len(p.Steps)-1]]
	if last.Node == wait.Node || last.Node == timedsim.None {
		return Stranded{}, false
	}
	for _, s := range p.Segments {
		if s.Kind == Timer && s.Node == wait.Node && s.Label == wait.Label && s.End > wait.End {
			wait = s
		}
	}
	next := -1
	for _, s := range p.Steps {
		if e := events[s]; e.Node == last.Node && e.Start >= wait.End {
			next = s
			break
		}
	}
	if next < 0 {
		return Stranded{}, false
	}
	for j := next - 1; j >= 0; j-- {
		e := events[j]
		if e.Node != last.Node || e.CauseSend < 0 || e.Start >= wait.End {
			continue
		}
		if e.Start >= until {
			if len(e.Sends) == 0 && len(e.Timers) == 0 {
				continue // news it did nothing with: Bullet′'s periodic Diff of blocks it has
			}
			return Stranded{}, false
		}
		n := events[next]
		return Stranded{Node: last.Node, Step: j, Label: e.Label, Start: e.Start, Next: next, NextLabel: n.Label, NextStart: n.Start,
			Lost: lostTo(events, last.Node, next)}, true
	}
	return Stranded{}, false
}

// lostTo returns the messages sent to node by the events before step
// until that did not arrive, with their error upcalls.
func lostTo(events []timedsim.TimedEvent, node timedsim.NodeID, until int) []LostSend {
	var out []LostSend
	at := map[int][]int{} // sending step → indexes in out
	for i, e := range events {
		if e.Cause >= 0 && e.CauseSend < 0 && strings.HasPrefix(e.Label, "error ") {
			for _, k := range at[e.Cause] {
				if out[k].Upcall < 0 && out[k].From == e.Node {
					out[k].Upcall, out[k].UpcallLabel = i, e.Label
					break
				}
			}
		}
		for _, m := range e.Sends {
			if i < until && m.To == node && m.Status != "sent" {
				at[i] = append(at[i], len(out))
				out = append(out, LostSend{Step: i, From: e.Node, Type: m.Type, Status: m.Status, Upcall: -1})
			}
		}
	}
	return out
}
