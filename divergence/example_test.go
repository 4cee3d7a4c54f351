package divergence_test

import (
	"context"
	"fmt"
	"log"

	"github.com/macepc/macepc/divergence"
)

// Search on an oracle whose answer flips after prefix 37 of 100: the
// exponential phase brackets the boundary between 32 and 64, the binary
// phase isolates it.
func ExampleSearch() {
	recovers := func(ctx context.Context, prefix int) (bool, error) {
		return prefix <= 37, nil
	}
	res, err := divergence.Search(context.Background(), 100, recovers)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range res.Probes {
		fmt.Printf("prefix %3d recovers: %v\n", p.Prefix, p.Recovered)
	}
	fmt.Println("last recovering prefix:", res.Last)
	// Output:
	// prefix   1 recovers: true
	// prefix   2 recovers: true
	// prefix   4 recovers: true
	// prefix   8 recovers: true
	// prefix  16 recovers: true
	// prefix  32 recovers: true
	// prefix  64 recovers: false
	// prefix  48 recovers: false
	// prefix  40 recovers: false
	// prefix  36 recovers: true
	// prefix  38 recovers: false
	// prefix  37 recovers: true
	// last recovering prefix: 37
}
