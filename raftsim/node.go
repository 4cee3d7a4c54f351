package raftsim

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/macepc/macepc/timedsim"
)

// Timer and application event names of a Node.
const (
	// TimerTick calls RawNode.Tick every Config.Tick.
	TimerTick = "tick"
	// TimerPersist is the persist step: a zero-delay timer set when a
	// Ready must be made durable, so that writing it is an event of its own
	// ("timer persist") with its own duration distribution.
	TimerPersist = "persist"
	// TimerBoot starts raft after the node's boot delay (Config.BootJitter).
	TimerBoot = "boot"
	// AppPropose is the application event of a client proposal; its data is
	// the entry's payload ([]byte). See Propose.
	AppPropose = "propose"
	// AppCampaign makes the node campaign at once (RawNode.Campaign). See
	// Campaign.
	AppCampaign = "campaign"
)

// StateMachine is the application above raft.
type StateMachine interface {
	// Apply applies the payload of a committed normal entry at index, in
	// index order. raft's empty entries (one per new leader's term) and
	// configuration changes are not passed.
	Apply(index uint64, data []byte)
}

// Config configures the raft nodes of a scenario. It is shared by all
// nodes and all workers: it must not change once a simulation runs.
type Config struct {
	// Raft is the template of every node's raft.Config: ElectionTick,
	// HeartbeatTick, PreVote, CheckQuorum, MaxSizePerMsg, MaxInflightMsgs
	// and the other knobs. ID, Storage, Applied and Logger are set per
	// node. Zero ElectionTick, HeartbeatTick, MaxSizePerMsg and
	// MaxInflightMsgs get 10, 1, 1 MiB and 256.
	Raft raft.Config
	// Tick is the interval between two RawNode.Tick calls (default 100ms).
	Tick time.Duration
	// BootJitter delays each node's first boot by a duration drawn
	// uniformly from [0, BootJitter) on the path's randomness; until then
	// the node ignores messages (its process is not running). 0 boots at
	// once. A node restarted after a reset boots at once from its Disk.
	BootJitter time.Duration
	// RetryTicks is how many ticks a client waits for its accepted
	// proposal to be applied on its node before proposing it again
	// (default 2·ElectionTick). A proposal raft drops (no leader known) is
	// retried at the next tick, and so is every pending proposal when the
	// node learns of a new leader (etcd fails the requests in flight with
	// ErrLeaderChanged, and clients retry). Duplicates are applied more
	// than once: make payloads idempotent (a key=value put) or unique.
	RetryTicks int
	// NewStateMachine builds node id's state machine. It is called when
	// the node starts and again after a reset: the state machine is rebuilt
	// by applying the committed log again.
	NewStateMachine func(id timedsim.NodeID) StateMachine
}

// withDefaults returns c with its zero knobs set.
func (c Config) withDefaults() Config {
	if c.Raft.ElectionTick == 0 {
		c.Raft.ElectionTick = 10
	}
	if c.Raft.HeartbeatTick == 0 {
		c.Raft.HeartbeatTick = 1
	}
	if c.Raft.MaxSizePerMsg == 0 {
		c.Raft.MaxSizePerMsg = 1 << 20
	}
	if c.Raft.MaxInflightMsgs == 0 {
		c.Raft.MaxInflightMsgs = 256
	}
	if c.Tick == 0 {
		c.Tick = 100 * time.Millisecond
	}
	if c.RetryTicks == 0 {
		c.RetryTicks = 2 * c.Raft.ElectionTick
	}
	return c
}

// Validate reports what is wrong with the configuration (after defaults),
// so that a scenario builder fails with an error rather than a raft panic
// in the first handler.
func (c *Config) Validate() error {
	d := c.withDefaults()
	switch {
	case c.NewStateMachine == nil:
		return errors.New("raftsim: Config.NewStateMachine is nil")
	case d.Raft.HeartbeatTick <= 0:
		return fmt.Errorf("raftsim: HeartbeatTick must be positive, got %d", d.Raft.HeartbeatTick)
	case d.Raft.ElectionTick <= d.Raft.HeartbeatTick:
		return fmt.Errorf("raftsim: ElectionTick (%d) must be greater than HeartbeatTick (%d)", d.Raft.ElectionTick, d.Raft.HeartbeatTick)
	case d.Raft.MaxInflightMsgs <= 0:
		return fmt.Errorf("raftsim: MaxInflightMsgs must be positive, got %d", d.Raft.MaxInflightMsgs)
	case d.Tick <= 0 || d.BootJitter < 0 || d.RetryTicks < 0:
		return fmt.Errorf("raftsim: Tick (%v) must be positive, BootJitter (%v) and RetryTicks (%d) not negative", d.Tick, d.BootJitter, d.RetryTicks)
	case d.Raft.AsyncStorageWrites:
		return errors.New("raftsim: AsyncStorageWrites is not supported: the adapter drives raft's Ready/Advance contract")
	}
	return nil
}

// Node is a timedsim.Service running an unmodified raft.RawNode over a
// raft.MemoryStorage that models its disk. Give New as a scenario's
// constructor. It implements timedsim.AppHandler (AppPropose),
// timedsim.ErrorHandler (failed sends become ReportUnreachable),
// timedsim.Durable (the Disk survives a reset) and timedsim.Describer.
type Node struct {
	cfg  *Config
	id   timedsim.NodeID
	rn   *raft.RawNode // nil until booted
	disk *Disk         // nil until booted or recovered
	sm   StateMachine

	ticks      int
	campaign   bool       // asked to campaign before it booted
	lead       uint64     // the leader known after the last handler
	ready      raft.Ready // the Ready being persisted, while persisting
	persisting bool
	applied    uint64
	st         Status // after the last handler

	rd  pathReader
	log logger
}

// New returns node id of a raft group configured by cfg (validate it
// first with Config.Validate). cfg is shared, never modified.
func New(id timedsim.NodeID, cfg *Config) *Node {
	c := cfg.withDefaults()
	return &Node{cfg: &c, id: id}
}

// Propose schedules a client proposal of data on node at time at (an
// AppPropose application event).
func Propose(d *timedsim.Driver, at time.Duration, node timedsim.NodeID, data []byte) {
	d.App(at, node, AppPropose, data)
}

// Campaign schedules at time at an AppCampaign event on node: it campaigns
// at once (RawNode.Campaign; a pre-vote first with Config.Raft.PreVote)
// instead of waiting for its election timeout, as an application calls
// raft's Node.Campaign to pick its first leader rather than wait a whole
// randomized timeout for one. A node that has not booted yet campaigns
// when it boots.
func Campaign(d *timedsim.Driver, at time.Duration, node timedsim.NodeID) {
	d.App(at, node, AppCampaign, nil)
}

// raftID is the raft ID of a node: NodeID+1 (raft reserves 0).
func raftID(id timedsim.NodeID) uint64 { return uint64(id) + 1 }

// nodeID is the node of a raft ID.
func nodeID(id uint64) timedsim.NodeID { return timedsim.NodeID(id - 1) }

// Init implements timedsim.Service.
func (n *Node) Init(ctx timedsim.Context) {
	n.sm = n.cfg.NewStateMachine(n.id)
	switch {
	case n.disk != nil: // restarted after a reset
		n.boot(ctx)
	case n.cfg.BootJitter > 0:
		ctx.SetTimer(TimerBoot, time.Duration(ctx.Rand().Int64N(int64(n.cfg.BootJitter))), nil)
	default:
		n.boot(ctx)
	}
}

func (n *Node) boot(ctx timedsim.Context) {
	if n.disk == nil {
		n.disk = newDisk(ctx.Nodes())
	}
	rc := n.cfg.Raft
	rc.ID, rc.Storage, rc.Logger = raftID(n.id), n.disk.Storage, &n.log
	n.enter(ctx)
	defer n.leave(ctx)
	rn, err := raft.NewRawNode(&rc)
	if err != nil {
		panic("raftsim: " + err.Error())
	}
	n.rn = rn
	ctx.SetTimer(TimerTick, n.cfg.Tick, nil)
	if n.campaign {
		n.campaign = false
		n.campaignNow(ctx)
	}
	n.retry()
}

func (n *Node) campaignNow(ctx timedsim.Context) {
	if err := n.rn.Campaign(); err != nil {
		ctx.Logf("raft: campaign: %v", err)
	}
}

// enter runs before any call into raft: raft's draws from crypto/rand
// come from the handler's path randomness (see rand.go), and its log lines
// go to the event log.
func (n *Node) enter(ctx timedsim.Context) {
	n.rd.enter(ctx.Rand())
	n.log.ctx = ctx
}

// leave drains Ready, records the node's status and releases raft.
func (n *Node) leave(ctx timedsim.Context) {
	n.drain(ctx)
	n.observe()
	n.log.ctx = nil
	n.rd.leave()
}

// Deliver implements timedsim.Service: the message is stepped into raft.
func (n *Node) Deliver(ctx timedsim.Context, from timedsim.NodeID, msg timedsim.Message) {
	if n.rn == nil {
		return // not booted: the process is not listening
	}
	m, ok := msg.(Message)
	if !ok {
		panic(fmt.Sprintf("raftsim: %v got a %T from %v, not a raftsim.Message", n.id, msg, from))
	}
	pm, err := m.Decode()
	if err != nil {
		panic(err)
	}
	n.enter(ctx)
	defer n.leave(ctx)
	if err := n.rn.Step(pm); err != nil {
		ctx.Logf("raft: step %s from %v: %v", m.MessageLabel(), from, err)
	}
}

// Timer implements timedsim.Service.
func (n *Node) Timer(ctx timedsim.Context, name string, _ any) {
	switch name {
	case TimerBoot:
		n.boot(ctx)
	case TimerTick:
		n.enter(ctx)
		defer n.leave(ctx)
		n.rn.Tick()
		n.ticks++
		n.retry()
		ctx.SetTimer(TimerTick, n.cfg.Tick, nil)
	case TimerPersist:
		n.enter(ctx)
		defer n.leave(ctx)
		n.disk.write(&n.ready)
		n.persisting = false
		rd := n.ready
		n.ready = raft.Ready{}
		n.finish(ctx, &rd)
	}
}

// App implements timedsim.AppHandler: AppPropose with a []byte payload,
// AppCampaign.
func (n *Node) App(ctx timedsim.Context, name string, data any) {
	switch name {
	case AppPropose:
	case AppCampaign:
		if n.rn == nil {
			n.campaign = true
			return
		}
		n.enter(ctx)
		defer n.leave(ctx)
		n.campaignNow(ctx)
		return
	default:
		ctx.Logf("raftsim: ignored application event %q", name)
		return
	}
	b, ok := data.([]byte)
	if !ok {
		panic(fmt.Sprintf("raftsim: a %s event's data is a %T, not []byte", AppPropose, data))
	}
	if n.disk == nil { // not booted yet: the client waits for the node
		n.disk = newDisk(ctx.Nodes())
		n.disk.pending = append(n.disk.pending, proposal{data: b, tried: -1})
		return
	}
	n.disk.pending = append(n.disk.pending, proposal{data: b, tried: -1})
	if n.rn == nil {
		return
	}
	n.enter(ctx)
	defer n.leave(ctx)
	n.retry()
}

// Error implements timedsim.ErrorHandler: a message that could not be
// sent, or a broken connection, tells raft the peer is unreachable, as
// etcd's transport does (a failed snapshot is reported too).
func (n *Node) Error(ctx timedsim.Context, te *timedsim.TransportError) {
	if n.rn == nil {
		return
	}
	n.enter(ctx)
	defer n.leave(ctx)
	to := raftID(te.Peer)
	n.rn.ReportUnreachable(to)
	if m, ok := te.Msg.(Message); ok && m.Type == raftpb.MessageType_MsgSnap {
		n.rn.ReportSnapshot(to, raft.SnapshotFailure)
	}
}

// retry proposes the pending client proposals that are due: never
// accepted by raft, or accepted RetryTicks ago and still not applied.
func (n *Node) retry() {
	for i := range n.disk.pending {
		p := &n.disk.pending[i]
		if p.tried >= 0 && n.ticks-p.tried < n.cfg.RetryTicks {
			continue
		}
		if err := n.rn.Propose(p.data); err != nil {
			p.tried = -1 // dropped (no leader known): next tick
		} else {
			p.tried = n.ticks
		}
	}
}

// drain handles every Ready raft has, unless one is being persisted (raft
// accepts Steps and Ticks between Ready and Advance and keeps their
// effects for the next Ready). A Ready that must be made durable
// (MustSync, or a snapshot) is handed to the persist step; otherwise its
// HardState (a commit index only) is written at once and it is finished.
func (n *Node) drain(ctx timedsim.Context) {
	for !n.persisting && n.rn.HasReady() {
		rd := n.rn.Ready()
		if rd.MustSync || !raft.IsEmptySnap(rd.Snapshot) {
			n.ready, n.persisting = rd, true
			ctx.SetTimer(TimerPersist, 0, nil)
			return
		}
		n.disk.write(&rd)
		n.finish(ctx, &rd)
	}
}

// finish sends a Ready's messages, applies its committed entries and
// advances raft; its entries and HardState are already durable.
func (n *Node) finish(ctx timedsim.Context, rd *raft.Ready) {
	for _, m := range rd.Messages {
		// A failed send comes back as an Error upcall.
		_ = ctx.Send(nodeID(m.GetTo()), encode(m))
	}
	for _, e := range rd.CommittedEntries {
		n.apply(e)
	}
	n.rn.Advance(*rd)
}

func (n *Node) apply(e *raftpb.Entry) {
	n.applied = e.GetIndex()
	switch e.GetType() {
	case raftpb.EntryType_EntryNormal:
		if len(e.GetData()) == 0 {
			return
		}
		n.sm.Apply(e.GetIndex(), e.GetData())
		n.disk.done(e.GetData())
	case raftpb.EntryType_EntryConfChange:
		var cc raftpb.ConfChange
		if err := proto.Unmarshal(e.GetData(), &cc); err != nil {
			panic("raftsim: decoding a conf change: " + err.Error())
		}
		n.rn.ApplyConfChange(&cc)
	case raftpb.EntryType_EntryConfChangeV2:
		var cc raftpb.ConfChangeV2
		if err := proto.Unmarshal(e.GetData(), &cc); err != nil {
			panic("raftsim: decoding a conf change: " + err.Error())
		}
		n.rn.ApplyConfChange(&cc)
	}
}

// observe records the node's status after a handler and the ghost record
// of its leadership.
func (n *Node) observe() {
	bs := n.rn.BasicStatus()
	n.st = Status{Booted: true, Term: bs.GetTerm(), Vote: bs.GetVote(), Commit: bs.GetCommit(), Lead: bs.Lead, Role: bs.RaftState,
		Applied: n.applied, LastDurable: n.disk.lastIndex(), Persisting: n.persisting, Pending: len(n.disk.pending)}
	if bs.RaftState == raft.StateLeader {
		n.disk.ledTerm(bs.GetTerm())
	}
	if bs.Lead != raft.None && bs.Lead != n.lead {
		// A new leader: the proposals in flight to the old one may be
		// lost. etcd fails them (ErrLeaderChanged) and clients retry, so
		// every pending proposal is due at the next tick.
		for i := range n.disk.pending {
			n.disk.pending[i].tried = -1
		}
	}
	n.lead = bs.Lead
}

// Disk implements timedsim.Durable.
func (n *Node) Disk() any { return n.disk }

// Recover implements timedsim.Durable: the node restarts from the disk of
// its previous incarnation.
func (n *Node) Recover(disk any) {
	if d, ok := disk.(*Disk); ok && d != nil {
		for i := range d.pending {
			d.pending[i].tried = -1 // the clients submit again
		}
		n.disk = d
	}
}

// Status is a node's raft state after its last handler.
type Status struct {
	Booted               bool
	Term, Vote, Commit   uint64
	Lead                 uint64
	Role                 raft.StateType
	Applied, LastDurable uint64
	Persisting           bool
	Pending              int // client proposals not yet applied here
}

// Status returns the node's raft state after its last handler.
func (n *Node) Status() Status {
	st := n.st
	if n.rn == nil && n.disk != nil {
		st.Pending = len(n.disk.pending)
	}
	return st
}

// RaftNode returns n; a service that embeds a *Node gets it too, so that
// NodeOf and the properties find the node inside.
func (n *Node) RaftNode() *Node { return n }

// StateMachine returns the node's state machine (nil before Init).
func (n *Node) StateMachine() StateMachine { return n.sm }

// DiskState returns the node's disk (nil before it booted).
func (n *Node) DiskState() *Disk { return n.disk }

// roleName is "follower", "candidate", "leader" or "pre-candidate".
func roleName(r raft.StateType) string {
	switch r {
	case raft.StateFollower:
		return "follower"
	case raft.StateCandidate:
		return "candidate"
	case raft.StateLeader:
		return "leader"
	case raft.StatePreCandidate:
		return "pre-candidate"
	}
	return r.String()
}

func peer(id uint64) string {
	if id == 0 {
		return "none"
	}
	return nodeID(id).String()
}

// Describe implements timedsim.Describer: term, vote, role, lead, commit,
// applied and last durable index, whether a persist is in flight, the
// pending client proposals, the terms led, the state raft keeps to itself
// (raft{…}: its clocks, counted votes, unstable entries, the leader's
// progress view; see hidden), and the state machine's own Describe (or its
// field walk).
func (n *Node) Describe() string {
	if n.rn == nil {
		if n.campaign {
			return "down (not booted; campaigns when it boots)"
		}
		return "down (not booted)"
	}
	st := n.st
	var b strings.Builder
	b.WriteString("term=" + strconv.FormatUint(st.Term, 10) + " vote=" + peer(st.Vote) + " role=" + roleName(st.Role) + " lead=" + peer(st.Lead))
	b.WriteString(" commit=" + strconv.FormatUint(st.Commit, 10) + " applied=" + strconv.FormatUint(st.Applied, 10) + " last=" + strconv.FormatUint(st.LastDurable, 10))
	if st.Persisting {
		b.WriteString(" persisting")
	}
	b.WriteString(" pending=" + strconv.Itoa(st.Pending) + " led=" + fmt.Sprint(n.disk.led))
	b.WriteString(" " + hidden(n.rn))
	b.WriteString(" sm=" + timedsim.Describe(n.sm))
	return b.String()
}

// done removes an applied payload from the pending proposals.
func (d *Disk) done(data []byte) {
	for i := range d.pending {
		if string(d.pending[i].data) == string(data) {
			d.pending = append(d.pending[:i], d.pending[i+1:]...)
			return
		}
	}
}
