package timedsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/cespare/xxhash/v2"
	"github.com/macepc/macepc/edd"
)

// PathFormat and PathVersion identify path files. Version 2 added the
// system parameters ("params"); a file without parameters is still written
// as version 1, byte for byte as before, so older readers keep reading the
// paths of systems that have none. Both versions are read.
const (
	PathFormat  = "macepc-path"
	PathVersion = 2
)

// PathFile is an execution's path with everything needed to replay it
// exactly: the system, variant and node count to rebuild the scenario, the
// simulator options, the EDD, and a hash of the configuration so a stale
// file is refused rather than silently replaying something else.
type PathFile struct {
	Format     string `json:"format"`
	Version    int    `json:"version"`
	System     string `json:"system"`
	Variant    string `json:"variant"`
	Nodes      int    `json:"nodes"`
	Params     Params `json:"params,omitempty"`
	ConfigHash string `json:"config_hash"`
	Semantics  string `json:"semantics"`
	ExecTime   string `json:"exec_time"`
	MaxSteps   int    `json:"max_steps,omitempty"`
	Safety     bool   `json:"check_safety,omitempty"`
	// IgnoreNotes: the execution's labels leave the handlers' notes out
	// (Options.IgnoreNotes).
	IgnoreNotes bool      `json:"ignore_notes,omitempty"`
	Note        string    `json:"note,omitempty"`
	Segments    []Segment `json:"segments"`
	// EDD is the event duration distribution set, embedded (edd JSON).
	EDD json.RawMessage `json:"edd"`
}

// NewPathFile describes path p of the given system configuration.
func NewPathFile(system, variant string, sc *Scenario, opts Options, p Path, note string) (*PathFile, error) {
	set := opts.EDD
	if set == nil {
		set = edd.NewSet(edd.DefaultSeed())
	}
	var buf bytes.Buffer
	if err := edd.Write(&buf, set); err != nil {
		return nil, err
	}
	version := 1
	if len(sc.Params) > 0 {
		version = PathVersion
	}
	return &PathFile{
		Format: PathFormat, Version: version,
		System: system, Variant: variant, Nodes: sc.Nodes, Params: maps.Clone(sc.Params),
		ConfigHash: ConfigHash(system, variant, sc, opts),
		Semantics:  opts.Semantics.String(), ExecTime: opts.ExecTime.String(),
		MaxSteps: opts.MaxSteps, Safety: opts.CheckSafety, IgnoreNotes: opts.IgnoreNotes,
		Note: note, Segments: append([]Segment(nil), p.Segments...),
		EDD: json.RawMessage(bytes.TrimSpace(buf.Bytes())),
	}, nil
}

// Path returns the file's path.
func (f *PathFile) Path() Path { return Path{Segments: append([]Segment(nil), f.Segments...)} }

// Options rebuilds the simulator options recorded in the file.
func (f *PathFile) Options() (Options, error) {
	var o Options
	switch f.Semantics {
	case "requeue", "":
		o.Semantics = Requeue
	case "paper":
		o.Semantics = Paper
	default:
		return o, fmt.Errorf("timedsim: path file has unknown semantics %q", f.Semantics)
	}
	switch f.ExecTime {
	case "stop-time", "":
		o.ExecTime = StopTime
	case "avg-clock":
		o.ExecTime = AvgClock
	default:
		return o, fmt.Errorf("timedsim: path file has unknown exec_time %q", f.ExecTime)
	}
	if f.MaxSteps < 0 {
		return o, fmt.Errorf("timedsim: path file has negative max_steps %d", f.MaxSteps)
	}
	o.MaxSteps, o.CheckSafety, o.IgnoreNotes = f.MaxSteps, f.Safety, f.IgnoreNotes
	set, err := edd.Read(bytes.NewReader(f.EDD))
	if err != nil {
		return o, fmt.Errorf("timedsim: path file's edd: %w", err)
	}
	o.EDD = set
	return o, nil
}

// Check verifies that the file matches the scenario it will replay on.
func (f *PathFile) Check(sc *Scenario, opts Options) error {
	if got := ConfigHash(f.System, f.Variant, sc, opts); got != f.ConfigHash {
		return fmt.Errorf("timedsim: stale path file: its config hash %s does not match the current configuration's %s (the system's scenario, network, revision or EDD changed since it was written)", f.ConfigHash, got)
	}
	return nil
}

// WritePathFile writes f as indented JSON.
func WritePathFile(w io.Writer, f *PathFile) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("timedsim: encoding path file: %w", err)
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// ReadPathFile reads and validates a path file.
func ReadPathFile(r io.Reader) (*PathFile, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var f PathFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("timedsim: malformed path file: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("timedsim: malformed path file: data after the JSON object")
	}
	if f.Format != PathFormat {
		return nil, fmt.Errorf("timedsim: not a path file (format %q, want %q)", f.Format, PathFormat)
	}
	if f.Version < 1 || f.Version > PathVersion {
		return nil, fmt.Errorf("timedsim: path file version %d is not supported (this macepc reads versions 1 to %d)", f.Version, PathVersion)
	}
	if f.Version == 1 && f.Params != nil {
		return nil, fmt.Errorf("timedsim: malformed path file: version 1 has no params")
	}
	if f.System == "" || f.Nodes < 1 {
		return nil, fmt.Errorf("timedsim: path file lacks system or node count")
	}
	if f.ConfigHash == "" {
		return nil, fmt.Errorf("timedsim: path file has no config_hash")
	}
	if err := f.Path().Validate(); err != nil {
		return nil, err
	}
	if len(f.EDD) == 0 {
		return nil, fmt.Errorf("timedsim: path file has no edd")
	}
	return &f, nil
}

// ConfigHash fingerprints everything besides the path that determines an
// execution: system, variant, node count, the scenario's revision, timeout,
// stop-check period and network configuration, the simulator semantics,
// execution-time definition, step limit and safety checking, the EDD set,
// and the system parameters (for a system without parameters the hash is
// what it was before they existed).
func ConfigHash(system, variant string, sc *Scenario, opts Options) string {
	set := opts.EDD
	if set == nil {
		set = edd.NewSet(edd.DefaultSeed())
	}
	netJSON, _ := json.Marshal(sc.Network.WithDefaults())
	h := xxhash.New()
	fmt.Fprintf(h, "system=%s\nvariant=%s\nnodes=%d\nrevision=%s\ntimeout=%d\ncheck=%d\nsemantics=%s\nexec=%s\nmaxsteps=%d\nsafety=%t\nedd=%x\nnet=",
		system, variant, sc.Nodes, sc.Revision, int64(sc.Timeout), sc.CheckEvery, opts.Semantics, opts.ExecTime, opts.MaxSteps, opts.CheckSafety, set.Hash())
	h.Write(netJSON)
	if opts.IgnoreNotes { // only then, so that every other hash stays what it was
		fmt.Fprintf(h, "\nnotes=ignored")
	}
	if len(sc.Params) > 0 {
		for _, k := range slices.Sorted(maps.Keys(sc.Params)) {
			fmt.Fprintf(h, "\nparam %s=%s", k, sc.Params[k])
		}
	}
	return strconv.FormatUint(h.Sum64(), 16)
}
