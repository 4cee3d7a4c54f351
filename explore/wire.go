package explore

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/macepc/macepc/internal/visible"
)

// Checkpoint is how often a node's state is stored in full: its
// Checkpoint-th, 2·Checkpoint-th, … change; the changes between are
// deltas.
const Checkpoint = 16

// The embedded data's format and version.
const (
	wireFormat  = "macepc-explore"
	wireVersion = 1
)

// sendStatuses are the send statuses, by their code in the embedded data:
// a function, not a package variable, so that no caller can change the codes
// another file is written with.
func sendStatuses() []string { return []string{"sent", "dropped", "queue-full", "unreachable"} }

// wireData is the JSON embedded in explore.html: each execution's steps
// as columns (one array per field, strings through a table), so that the
// file stays small and the page reads it with one JSON.parse.
type wireData struct {
	Format     string     `json:"format"`
	Version    int        `json:"version"`
	Title      string     `json:"title"`
	Checkpoint int        `json:"checkpoint"`
	Statuses   []string   `json:"statuses"`
	Executions []wireExec `json:"executions"`
	Pairs      []wirePair `json:"pairs"`
}

type wirePair struct {
	A         int    `json:"a"`
	B         int    `json:"b"`
	Name      string `json:"name"`
	FirstDiff int    `json:"first_diff"`
}

type wireMark struct {
	Step int    `json:"step"`
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// wireExec is one execution. Str is the string table of labels, kinds,
// message types, timer names and notes; the per-step columns are Node,
// From, Kind, Label (indices into Str), Desc (only if some step has one),
// Start and Dur (nanoseconds), SentStep and SentIndex. Sends, timers and
// notes are flat columns with the step they belong to. States are the
// changes of each node's state: step, node, and either the full text
// (pre -1) or a delta against the node's previous state (keep pre UTF-16
// units of its start and suf of its end, put text between).
type wireExec struct {
	Name    string   `json:"name"`
	Title   string   `json:"title"`
	End     string   `json:"end"`
	Nodes   int      `json:"nodes"`
	Timed   bool     `json:"timed"`
	Str     []string `json:"str"`
	Node    []int    `json:"node"`
	From    []int    `json:"from"`
	Kind    []int    `json:"kind"`
	Label   []int    `json:"label"`
	Desc    []string `json:"desc,omitempty"`
	Start   []int64  `json:"start"`
	Dur     []int64  `json:"dur"`
	SentStp []int    `json:"sent_step"`
	SentIdx []int    `json:"sent_index"`

	SendStep   []int `json:"send_step"`
	SendTo     []int `json:"send_to"`
	SendType   []int `json:"send_type"`
	SendStatus []int `json:"send_status"`
	SendRecv   []int `json:"send_recv"`

	TimerStep   []int   `json:"timer_step"`
	TimerName   []int   `json:"timer_name"`
	TimerCancel []int   `json:"timer_cancel"`
	TimerAt     []int64 `json:"timer_at"`

	NoteStep []int `json:"note_step"`
	NoteText []int `json:"note_text"`

	Initial []string   `json:"initial"`
	StStep  []int      `json:"st_step"`
	StNode  []int      `json:"st_node"`
	StPre   []int      `json:"st_pre"`
	StSuf   []int      `json:"st_suf"`
	StText  []string   `json:"st_text"`
	Marks   []wireMark `json:"marks"`
	// Critical are the steps on the critical path, ascending.
	Critical []int `json:"critical"`
}

// strTable interns strings, made visible (package internal/visible).
type strTable struct {
	list []string
	idx  map[string]int
}

func (t *strTable) id(s string) int {
	if i, ok := t.idx[s]; ok {
		return i
	}
	t.idx[s] = len(t.list)
	t.list = append(t.list, visible.String(s))
	return len(t.list) - 1
}

func encode(d *Data) (*wireData, error) {
	w := &wireData{Format: wireFormat, Version: wireVersion, Title: visible.String(d.Title), Checkpoint: Checkpoint, Statuses: sendStatuses(),
		Executions: []wireExec{}, Pairs: []wirePair{}}
	for _, e := range d.Executions {
		we, err := encodeExec(e)
		if err != nil {
			return nil, err
		}
		w.Executions = append(w.Executions, *we)
	}
	for _, p := range d.Pairs {
		if p.A < 0 || p.A >= len(d.Executions) || p.B < 0 || p.B >= len(d.Executions) {
			return nil, fmt.Errorf("explore: pair %q of executions %d and %d, but there are %d", p.Name, p.A, p.B, len(d.Executions))
		}
		w.Pairs = append(w.Pairs, wirePair{A: p.A, B: p.B, Name: visible.String(p.Name), FirstDiff: p.FirstDiff})
	}
	return w, nil
}

func encodeExec(e *Execution) (*wireExec, error) {
	if e.Nodes < 1 {
		return nil, fmt.Errorf("explore: execution %q has %d nodes", e.Name, e.Nodes)
	}
	n := len(e.Steps)
	t := &strTable{idx: map[string]int{}}
	w := &wireExec{Name: visible.String(e.Name), Title: visible.String(e.Title), End: visible.String(e.End), Nodes: e.Nodes, Timed: e.Timed,
		Node: make([]int, n), From: make([]int, n), Kind: make([]int, n), Label: make([]int, n), Start: make([]int64, n), Dur: make([]int64, n),
		SentStp: make([]int, n), SentIdx: make([]int, n),
		SendStep: []int{}, SendTo: []int{}, SendType: []int{}, SendStatus: []int{}, SendRecv: []int{},
		TimerStep: []int{}, TimerName: []int{}, TimerCancel: []int{}, TimerAt: []int64{}, NoteStep: []int{}, NoteText: []int{},
		Initial: make([]string, e.Nodes), StStep: []int{}, StNode: []int{}, StPre: []int{}, StSuf: []int{}, StText: []string{}, Marks: []wireMark{}}
	prev := make([]string, e.Nodes)
	changes := make([]int, e.Nodes)
	for i, s := range e.Initial {
		if i < e.Nodes {
			prev[i] = validUTF8(s)
			w.Initial[i] = prev[i]
		}
	}
	hasDesc := false
	for i := range e.Steps {
		s := &e.Steps[i]
		if s.Node < -1 || s.Node >= e.Nodes || s.From < -1 || s.From >= e.Nodes {
			return nil, fmt.Errorf("explore: execution %q step %d: node %d or sender %d out of range (%d nodes)", e.Name, i, s.Node, s.From, e.Nodes)
		}
		w.Node[i], w.From[i], w.Kind[i], w.Label[i] = s.Node, s.From, t.id(s.Kind), t.id(s.Label)
		w.Start[i], w.Dur[i], w.SentStp[i], w.SentIdx[i] = int64(s.Start), int64(s.Duration), s.SentStep, s.SentIndex
		hasDesc = hasDesc || s.Desc != ""
		for _, m := range s.Sends {
			st := indexOf(sendStatuses(), m.Status)
			if st < 0 {
				return nil, fmt.Errorf("explore: execution %q step %d: unknown send status %q", e.Name, i, m.Status)
			}
			w.SendStep, w.SendTo, w.SendType = append(w.SendStep, i), append(w.SendTo, m.To), append(w.SendType, t.id(m.Type))
			w.SendStatus, w.SendRecv = append(w.SendStatus, st), append(w.SendRecv, m.Recv)
		}
		for _, tm := range s.Timers {
			c := 0
			if tm.Cancel {
				c = 1
			}
			w.TimerStep, w.TimerName, w.TimerCancel, w.TimerAt = append(w.TimerStep, i), append(w.TimerName, t.id(tm.Name)), append(w.TimerCancel, c), append(w.TimerAt, int64(tm.At))
		}
		for _, note := range s.Notes {
			w.NoteStep, w.NoteText = append(w.NoteStep, i), append(w.NoteText, t.id(note))
		}
		if s.Node < 0 {
			continue
		}
		cur := validUTF8(s.State)
		if cur == prev[s.Node] {
			continue
		}
		changes[s.Node]++
		w.StStep, w.StNode = append(w.StStep, i), append(w.StNode, s.Node)
		if changes[s.Node]%Checkpoint == 0 || prev[s.Node] == "" {
			w.StPre, w.StSuf, w.StText = append(w.StPre, -1), append(w.StSuf, 0), append(w.StText, cur)
		} else {
			pre, suf, mid := delta(prev[s.Node], cur)
			w.StPre, w.StSuf, w.StText = append(w.StPre, pre), append(w.StSuf, suf), append(w.StText, mid)
		}
		prev[s.Node] = cur
	}
	if hasDesc {
		w.Desc = make([]string, n)
		for i := range e.Steps {
			w.Desc[i] = visible.String(e.Steps[i].Desc)
		}
	}
	w.Critical = []int{}
	for _, s := range e.Critical {
		if s < 0 || s >= n {
			return nil, fmt.Errorf("explore: execution %q: critical step %d of %d", e.Name, s, n)
		}
		w.Critical = append(w.Critical, s)
	}
	for _, m := range e.Marks {
		w.Marks = append(w.Marks, wireMark{Step: m.Step, Kind: m.Kind, Text: visible.String(m.Text)})
	}
	w.Str = t.list
	if w.Str == nil {
		w.Str = []string{}
	}
	return w, nil
}

func indexOf(l []string, s string) int {
	for i, x := range l {
		if x == s {
			return i
		}
	}
	return -1
}

// validUTF8 makes a state valid UTF-8, as JSON will carry it, and
// visible: a byte that is not UTF-8 shows as "\xff", a hidden character
// such as a right-to-left override as "\u202e" (package
// internal/visible).
func validUTF8(s string) string { return visible.String(s) }

// delta is cur as an edit of prev: keep pre UTF-16 units of prev's start
// and suf of its end, put mid between. The cuts fall on rune boundaries.
func delta(prev, cur string) (pre, suf int, mid string) {
	p := 0
	for p < len(prev) && p < len(cur) && prev[p] == cur[p] {
		p++
	}
	for p > 0 && p < len(cur) && !utf8.RuneStart(cur[p]) {
		p--
	}
	for p > 0 && p < len(prev) && !utf8.RuneStart(prev[p]) {
		p--
	}
	s := 0
	for s < len(prev)-p && s < len(cur)-p && prev[len(prev)-1-s] == cur[len(cur)-1-s] {
		s++
	}
	for s > 0 && !utf8.RuneStart(cur[len(cur)-s]) {
		s--
	}
	return utf16Len(cur[:p]), utf16Len(cur[len(cur)-s:]), cur[p : len(cur)-s]
}

// utf16Len is the length of s in UTF-16 code units (JavaScript's length).
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
