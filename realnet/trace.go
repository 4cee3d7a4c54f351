package realnet

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Format and Version name the trace format written by Run and read by
// ReadTrace. Version is bumped whenever a field changes meaning; a reader
// refuses any other version.
const (
	Format  = "macepc-realnet-trace"
	Version = 1
)

// Event kinds.
const (
	KindInit    = "init"
	KindDeliver = "deliver"
	KindTimer   = "timer"
	KindApp     = "app"
	KindError   = "error"
)

// Error kinds of a KindError event and of a failed Send.
const (
	ErrKindBroken    = "broken"
	ErrKindQueueFull = "queue-full"
)

// Header is the first line of a node's trace.
type Header struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	System  string `json:"system"`
	Variant string `json:"variant"`
	// Params are the system parameters the scenario was built with.
	Params map[string]string `json:"params,omitempty"`
	Nodes  int               `json:"nodes"`
	Node   int               `json:"node"`
	Run    int               `json:"run"`
	// Seed seeds the scenario's driver (its application events, see
	// timedsim.DriverPlan) and the nodes' ctx.Rand streams.
	Seed uint64 `json:"seed"`
	// TimeScale is the real duration of one scenario second: timers and
	// application events fire after their scenario delay times TimeScale,
	// and ctx.Now is the real time since the run's start divided by it.
	TimeScale float64 `json:"time_scale"`
}

// Send is one message a handler sent.
type Send struct {
	To        int32  `json:"to"`
	Transport string `json:"transport"`
	// ID numbers the sender's messages from 1; a delivery names the
	// message by its sender and ID.
	ID    uint64 `json:"id"`
	Label string `json:"label"`
	// Err is "" for a message sent, ErrKindQueueFull for one refused.
	Err string `json:"err,omitempty"`
}

// TimerOp is a SetTimer (Set, After) or a CancelTimer (Cancel) of a
// handler.
type TimerOp struct {
	Set     string `json:"set,omitempty"`
	AfterNS int64  `json:"after_ns,omitempty"`
	Cancel  string `json:"cancel,omitempty"`
}

// Event is one handler run: what triggered it, when, and what it did.
type Event struct {
	// Seq numbers the node's events from 0.
	Seq int `json:"seq"`
	// Lamport is the node's Lamport clock at the event: one more than the
	// previous event's, and more than the sender's clock for a delivery.
	Lamport uint64 `json:"lamport"`
	Kind    string `json:"kind"`
	// StartNS is the handler's real start, in nanoseconds since the run's
	// start; DurNS is its real duration; NowNS is what ctx.Now returned
	// (scenario time: StartNS / TimeScale).
	StartNS int64 `json:"start_ns"`
	DurNS   int64 `json:"dur_ns"`
	NowNS   int64 `json:"now_ns"`
	// Peer is the sender of a delivery and the peer of an error, -1
	// otherwise.
	Peer      int32  `json:"peer"`
	Transport string `json:"transport,omitempty"`
	// Msg is the sender's ID of a delivered message (or of the message
	// an ErrKindQueueFull upcall is about); SenderLamport the sender's
	// Lamport clock when it sent it; SentNS the real time its handler
	// ended and the message left.
	Msg           uint64 `json:"msg,omitempty"`
	SenderLamport uint64 `json:"sender_lamport,omitempty"`
	SentNS        int64  `json:"sent_ns,omitempty"`
	// ArrivedNS is when a delivered message was read from its socket (it
	// then waits in the node's inbox until StartNS).
	ArrivedNS int64 `json:"arrived_ns,omitempty"`
	// Name is the message label of a delivery, the timer's name, or the
	// application event's name.
	Name string `json:"name,omitempty"`
	// App is the index of an application event among the driver's
	// (timedsim.DriverPlan with the header's seed).
	App int `json:"app,omitempty"`
	// Err is the kind of a KindError event.
	Err    string    `json:"err,omitempty"`
	Draws  []uint64  `json:"draws,omitempty"`
	Sends  []Send    `json:"sends,omitempty"`
	Timers []TimerOp `json:"timers,omitempty"`
}

// End is the last line of a complete trace.
type End struct {
	End struct {
		Events  int  `json:"events"`
		Stopped bool `json:"stopped"`
	} `json:"end"`
}

// Trace is one node's trace as read by ReadTrace; Lines[i] is the line
// number of Events[i] in File.
type Trace struct {
	File    string
	Header  Header
	Events  []Event
	Lines   []int
	Stopped bool
}

// ReadTrace reads and validates the trace file at path.
func ReadTrace(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("realnet: %w", err)
	}
	defer f.Close()
	return DecodeTrace(path, f)
}

// DecodeTrace reads and validates a trace from r; name is the file name
// its errors give. Every error is one line, "realnet: name:line: what".
func DecodeTrace(name string, r io.Reader) (*Trace, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	t := &Trace{File: name}
	line := 0
	bad := func(format string, args ...any) error {
		return fmt.Errorf("realnet: %s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	strict := func(b []byte, v any) error {
		d := json.NewDecoder(bytes.NewReader(b))
		d.DisallowUnknownFields()
		if err := d.Decode(v); err != nil {
			return err
		}
		if d.More() {
			return errors.New("more than one JSON value on the line")
		}
		return nil
	}
	ended := false
	sentIDs := uint64(0)
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if ended {
			return nil, bad("a line after the end line")
		}
		if line == 1 {
			if err := strict(b, &t.Header); err != nil {
				return nil, bad("header: %v", oneLine(err))
			}
			h := t.Header
			switch {
			case h.Format != Format:
				return nil, bad("format %q, want %q", h.Format, Format)
			case h.Version != Version:
				return nil, bad("version %d, this reader reads version %d", h.Version, Version)
			case h.System == "":
				return nil, bad("header names no system")
			case h.Nodes < 1:
				return nil, bad("header has %d nodes", h.Nodes)
			case h.Node < 0 || h.Node >= h.Nodes:
				return nil, bad("node %d is not one of the %d nodes", h.Node, h.Nodes)
			case h.Run < 0:
				return nil, bad("negative run %d", h.Run)
			case !(h.TimeScale > 0) || h.TimeScale > 1e6:
				return nil, bad("time_scale %v is not a positive number", h.TimeScale)
			}
			continue
		}
		if bytes.HasPrefix(bytes.TrimSpace(b), []byte(`{"end"`)) {
			var e End
			if err := strict(b, &e); err != nil {
				return nil, bad("end line: %v", oneLine(err))
			}
			if e.End.Events != len(t.Events) {
				return nil, bad("end line counts %d events, the trace has %d", e.End.Events, len(t.Events))
			}
			t.Stopped, ended = e.End.Stopped, true
			continue
		}
		var ev Event
		if err := strict(b, &ev); err != nil {
			return nil, bad("event: %v", oneLine(err))
		}
		if err := checkEvent(&t.Header, &ev, t.Events, &sentIDs); err != nil {
			return nil, bad("%v", err)
		}
		t.Events = append(t.Events, ev)
		t.Lines = append(t.Lines, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("realnet: %s:%d: %v", name, line+1, oneLine(err))
	}
	if line == 0 {
		return nil, fmt.Errorf("realnet: %s: empty trace", name)
	}
	if !ended {
		return nil, fmt.Errorf("realnet: %s:%d: no end line: the trace is truncated (did the run finish?)", name, line)
	}
	return t, nil
}

func checkEvent(h *Header, ev *Event, prev []Event, sentIDs *uint64) error {
	nodeOK := func(n int32) bool { return n >= 0 && int(n) < h.Nodes }
	if ev.Seq != len(prev) {
		return fmt.Errorf("event seq %d, want %d", ev.Seq, len(prev))
	}
	if len(prev) > 0 {
		p := prev[len(prev)-1]
		if ev.Lamport <= p.Lamport {
			return fmt.Errorf("lamport clock %d does not exceed the previous event's %d", ev.Lamport, p.Lamport)
		}
		if ev.StartNS < p.StartNS {
			return fmt.Errorf("start_ns %d is before the previous event's %d", ev.StartNS, p.StartNS)
		}
	} else if ev.Lamport == 0 {
		return fmt.Errorf("lamport clock 0 (clocks start at 1)")
	}
	if ev.StartNS < 0 || ev.DurNS < 0 || ev.NowNS < 0 {
		return fmt.Errorf("negative time (start_ns %d, dur_ns %d, now_ns %d)", ev.StartNS, ev.DurNS, ev.NowNS)
	}
	switch ev.Kind {
	case KindInit:
		if len(prev) != 0 {
			return fmt.Errorf("init is not the node's first event")
		}
	case KindDeliver:
		if !nodeOK(ev.Peer) || ev.Msg == 0 || ev.Transport == "" || ev.Name == "" {
			return fmt.Errorf("delivery needs a sender among the %d nodes, a msg ID, a transport and a label", h.Nodes)
		}
		if ev.ArrivedNS < 0 || ev.ArrivedNS > ev.StartNS {
			return fmt.Errorf("delivery arrived at %d ns, not in [0, start_ns %d]", ev.ArrivedNS, ev.StartNS)
		}
		if ev.SenderLamport >= ev.Lamport {
			return fmt.Errorf("delivery's lamport clock %d does not exceed its sender's %d", ev.Lamport, ev.SenderLamport)
		}
	case KindTimer:
		if ev.Name == "" {
			return fmt.Errorf("timer event without a name")
		}
	case KindApp:
		if ev.Name == "" || ev.App < 0 {
			return fmt.Errorf("app event needs a name and an index >= 0")
		}
	case KindError:
		if !nodeOK(ev.Peer) || ev.Transport == "" || (ev.Err != ErrKindBroken && ev.Err != ErrKindQueueFull) {
			return fmt.Errorf("error event needs a peer, a transport and err %q or %q", ErrKindBroken, ErrKindQueueFull)
		}
	default:
		return fmt.Errorf("unknown event kind %q", ev.Kind)
	}
	if ev.Kind != KindDeliver && ev.Kind != KindError && ev.Peer != -1 {
		return fmt.Errorf("%s event with peer %d (want -1)", ev.Kind, ev.Peer)
	}
	for _, s := range ev.Sends {
		if !nodeOK(s.To) || s.Transport == "" || s.Label == "" {
			return fmt.Errorf("send needs a destination among the %d nodes, a transport and a label", h.Nodes)
		}
		if s.ID != *sentIDs+1 {
			return fmt.Errorf("send ID %d, want %d", s.ID, *sentIDs+1)
		}
		if s.Err != "" && s.Err != ErrKindQueueFull {
			return fmt.Errorf("send error %q (only %q is recorded)", s.Err, ErrKindQueueFull)
		}
		*sentIDs = s.ID
	}
	for _, op := range ev.Timers {
		if (op.Set == "") == (op.Cancel == "") || op.AfterNS < 0 {
			return fmt.Errorf("a timer op sets or cancels one named timer, with after_ns >= 0")
		}
	}
	return nil
}

// RunTrace is the traces of every node of one real run.
type RunTrace struct {
	Dir   string
	Nodes []*Trace // by node ID
}

// ReadRun reads the node traces node-*.jsonl of one run directory and
// checks that they belong together: one per node, the same system,
// variant, parameters, run, seed and time scale.
func ReadRun(dir string) (*RunTrace, error) {
	files, err := filepath.Glob(filepath.Join(dir, "node-*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("realnet: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("realnet: %s: no node-*.jsonl traces", dir)
	}
	sort.Strings(files)
	rt := &RunTrace{Dir: dir}
	var first *Trace
	for _, f := range files {
		t, err := ReadTrace(f)
		if err != nil {
			return nil, err
		}
		if first == nil {
			first = t
			rt.Nodes = make([]*Trace, t.Header.Nodes)
		}
		a, b := first.Header, t.Header
		if a.System != b.System || a.Variant != b.Variant || a.Nodes != b.Nodes || a.Run != b.Run || a.Seed != b.Seed || a.TimeScale != b.TimeScale || fmt.Sprint(a.Params) != fmt.Sprint(b.Params) {
			return nil, fmt.Errorf("realnet: %s:1: header does not match %s's (system, variant, params, nodes, run, seed and time scale must agree)", f, first.File)
		}
		if rt.Nodes[b.Node] != nil {
			return nil, fmt.Errorf("realnet: %s:1: node %d also has trace %s", f, b.Node, rt.Nodes[b.Node].File)
		}
		rt.Nodes[b.Node] = t
	}
	for i, t := range rt.Nodes {
		if t == nil {
			return nil, fmt.Errorf("realnet: %s: no trace of node %d (of %d)", dir, i, len(rt.Nodes))
		}
	}
	return rt, nil
}

// RunDirs returns the run directories under dir: dir itself if it holds
// node traces, else its run-* subdirectories in order.
func RunDirs(dir string) ([]string, error) {
	if m, _ := filepath.Glob(filepath.Join(dir, "node-*.jsonl")); len(m) > 0 {
		return []string{dir}, nil
	}
	runs, err := filepath.Glob(filepath.Join(dir, "run-*"))
	if err != nil {
		return nil, fmt.Errorf("realnet: %w", err)
	}
	if len(runs) == 0 {
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("realnet: %w", err)
		}
		return nil, fmt.Errorf("realnet: %s holds no node-*.jsonl traces and no run-* directories", dir)
	}
	sort.Strings(runs)
	return runs, nil
}

// RunDirName is the directory of run r under a trace directory.
func RunDirName(r int) string { return fmt.Sprintf("run-%03d", r) }

// NodeFileName is the trace file of node n in a run directory.
func NodeFileName(n int) string { return fmt.Sprintf("node-%03d.jsonl", n) }

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
