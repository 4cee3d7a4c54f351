package realnet

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// The hand-written encoder writes exactly what encoding/json.Marshal
// writes, for events with every field set or not, and strings that need
// escaping.
func TestAppendEventIsMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	strs := []string{"", "Join", "tcp", "deliver <x> & \"y\"", "é\u2028\x01", "a\\b"}
	str := func() string { return strs[r.IntN(len(strs))] }
	num := func() int64 { return []int64{0, 1, -1, 1 << 40, 12345}[r.IntN(5)] }
	for i := range 5000 {
		e := Event{Seq: int(num()), Lamport: uint64(r.Int64N(3)), Kind: str(), StartNS: num(), DurNS: num(), NowNS: num(), Peer: int32(num()),
			Transport: str(), Msg: uint64(r.IntN(2)), SenderLamport: uint64(r.IntN(2)) << 63, SentNS: num(), ArrivedNS: num(), Name: str(), App: int(num()), Err: str()}
		for range r.IntN(3) {
			e.Draws = append(e.Draws, r.Uint64())
		}
		for range r.IntN(3) {
			e.Sends = append(e.Sends, Send{To: int32(num()), Transport: str(), ID: uint64(num()), Label: str(), Err: str()})
		}
		for range r.IntN(3) {
			e.Timers = append(e.Timers, TimerOp{Set: str(), AfterNS: num(), Cancel: str()})
		}
		want, err := json.Marshal(&e)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendEvent(nil, &e); string(got) != string(want) {
			t.Fatalf("event %d:\n got %s\nwant %s", i, got, want)
		}
	}
}
