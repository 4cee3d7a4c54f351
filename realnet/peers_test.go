package realnet_test

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macepc/macepc/realnet"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/systems/randtree"
	"github.com/macepc/macepc/timedsim"
)

// Messages cross the wire between processes with their values.
func TestCodecRoundTrip(t *testing.T) {
	c, err := realnet.NewCodec((&randtree.Node{}).MessageTypes())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []timedsim.Message{randtree.Join{Who: 7, Down: true}, randtree.JoinReply{Kind: randtree.ForceRoot, Root: 3}, randtree.Remove{}, randtree.RootJoin{Target: 5}} {
		b, err := c.Encode(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Decode(b)
		if err != nil || got != m {
			t.Errorf("%#v came back as %#v (%v)", m, got, err)
		}
	}
	if _, err := c.Encode(nil, pingpong.Ping{}); err == nil || !strings.Contains(err.Error(), "pingpong.Ping is not among the service's MessageTypes") {
		t.Errorf("encoding an unlisted type: %v", err)
	}
	if _, err := c.Decode([]byte{0, 200}); err == nil || !strings.Contains(err.Error(), "same binary") {
		t.Errorf("decoding an unknown type number: %v", err)
	}
}

//lint:ignore U1000 a message with only an unexported field is what the test needs
type hidden struct{ n int }

func (hidden) Size() int { return 8 }

type nested struct {
	A int
	B []hidden
}

func (nested) Size() int { return 8 }

// gob drops unexported fields without a word: a type with one is refused,
// by name, before anything is sent.
func TestCodecRefusesUnexportedFields(t *testing.T) {
	for _, m := range []timedsim.Message{hidden{}, nested{}} {
		_, err := realnet.NewCodec([]timedsim.Message{m})
		if err == nil || !strings.Contains(err.Error(), "field n of realnet_test.hidden is unexported") {
			t.Errorf("%T: %v", m, err)
		}
	}
	sc := tokenScenario(2, false) // its service lists no message types
	_, err := realnet.Run(context.Background(), realnet.Config{System: "token", Scenario: sc, Peers: []string{"127.0.0.1:1", "127.0.0.1:2"}, Node: 0, Timeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), "token's service (*realnet_test.tokenNode) does not list its message types") {
		t.Errorf("a service without MessageTypes: %v", err)
	}
}

// freePorts finds n free TCP ports on loopback (they could be taken
// again before use; the test would then fail to listen, not pass).
func freePorts(t *testing.T, n int) []string {
	t.Helper()
	var ls []net.Listener
	var out []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().String())
	}
	for _, l := range ls {
		l.Close()
	}
	return out
}

// One node per runtime, as with one node per process: the messages are
// encoded, and the gathered traces replay event for event with the
// stopping condition found by the replay.
func TestOneNodePerProcess(t *testing.T) {
	const nodes = 4
	peers := freePorts(t, nodes)
	dir := filepath.Join(t.TempDir(), realnet.RunDirName(0))
	var wg sync.WaitGroup
	errs := make([]error, nodes)
	ended := make([]string, nodes)
	for i := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each node's run ends at its timeout: no process can see
			// the other nodes' states.
			res, err := realnet.Run(context.Background(), realnet.Config{System: "pingpong", Variant: "default", Scenario: pingpong.Scenario(nodes, 10),
				Seed: 1, Dir: dir, Peers: peers, Node: i, Timeout: 1500 * time.Millisecond})
			errs[i] = err
			if res != nil {
				ended[i] = res.Ended
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil || ended[i] != "timeout" {
			t.Fatalf("node %d: %v, ended %q", i, err, ended[i])
		}
	}
	rt, err := realnet.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := realnet.Replay(pingpong.Scenario(nodes, 10), rt, realnet.ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Nondeterminism != nil {
		t.Fatal(res.Nondeterminism)
	}
	want := recordedSends(rt)
	for i := range want {
		if !slices.Equal(res.Sends[i], want[i]) {
			t.Errorf("n%d: replayed sends %v, recorded %v", i, res.Sends[i], want[i])
		}
	}
	// 2 pairs of 10 rounds: 40 messages, each delivered.
	deliveries := 0
	for _, tr := range rt.Nodes {
		for _, e := range tr.Events {
			if e.Kind == realnet.KindDeliver {
				deliveries++
			}
		}
	}
	if deliveries != 40 || res.StopStep < 0 {
		t.Errorf("%d deliveries (want 40), stop step %d: %s", deliveries, res.StopStep, fmt.Sprint(res.Violations))
	}
}
