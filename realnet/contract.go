package realnet

import (
	"fmt"

	"github.com/macepc/macepc/timedsim"
)

// sendTransport is the service contract's check of a send, the same in a
// real run (ctx) and in its replay (rctx): to must be one of the
// scenario's nodes and transport one of its transports
// (timedsim.Transports.Index); a send that breaks either is a caller bug,
// and panics in the sending handler, as in the simulators. It returns the
// transport's index.
func sendTransport(trs *timedsim.Transports, nodes int, transport string, to timedsim.NodeID) int {
	if to < 0 || int(to) >= nodes {
		panic(fmt.Sprintf("realnet: send to nonexistent node %d", to))
	}
	i, ok := trs.Index(transport)
	if !ok {
		panic(fmt.Sprintf("realnet: no transport %q in the scenario's network config", transport))
	}
	return i
}
