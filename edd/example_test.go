package edd_test

import (
	"fmt"
	"log"
	"os"
	"time"

	"github.com/macepc/macepc/edd"
)

// Phase 1a: train from measured handler times, then look labels up and
// sample durations with the simulator's uniform draws.
func Example() {
	ms := time.Millisecond
	set, err := edd.Train(map[string][]time.Duration{
		"deliver Join":   {1 * ms, 2 * ms, 3 * ms, 4 * ms, 5 * ms},
		"timer recovery": {200 * time.Microsecond, 400 * time.Microsecond},
	}, edd.DefaultSeed(), 0)
	if err != nil {
		log.Fatal(err)
	}
	for _, label := range []string{"deliver Join", "deliver Leave", "app join"} {
		d, src, desc := set.Lookup(label)
		fmt.Printf("%-13s %-8v %-12s u=0.1:%v u=0.5:%v u=0.9:%v\n",
			label, src, desc, d.Sample(0.1), d.Sample(0.5), d.Sample(0.9))
	}

	// What if Join handlers were 2.5 times slower?
	label, factor, err := edd.ParseScale("deliver Join=2.5")
	if err != nil {
		log.Fatal(err)
	}
	if err := set.Scale(label, factor); err != nil {
		log.Fatal(err)
	}
	d, _, _ := set.Lookup("deliver Join")
	fmt.Println("scaled deliver Join u=0.5:", d.Sample(0.5))

	cov := set.Coverage([]string{"deliver Join", "deliver Leave", "app join", "timer recovery"})
	fmt.Printf("trained %v, fallback %v, seed %v\n", cov.Trained, cov.Fallback, cov.Seed)
	// Output:
	// deliver Join  trained  deliver Join u=0.1:1.4ms u=0.5:3ms u=0.9:4.6ms
	// deliver Leave fallback deliver *    u=0.1:1.4ms u=0.5:3ms u=0.9:4.6ms
	// app join      seed     seed         u=0.1:1.9ms u=0.5:5.5ms u=0.9:9.1ms
	// scaled deliver Join u=0.5: 7.5ms
	// trained [deliver Join timer recovery], fallback map[deliver Leave:deliver *], seed [app join]
}

// Write produces the canonical JSON file (edd.json in a results directory).
func ExampleWrite() {
	set, err := edd.Train(map[string][]time.Duration{
		"deliver Ping": {100, 200, 300},
	}, edd.Uniform{Min: time.Millisecond, Max: 10 * time.Millisecond}, 5)
	if err != nil {
		log.Fatal(err)
	}
	if err := edd.Write(os.Stdout, set); err != nil {
		log.Fatal(err)
	}
	// Output:
	// {
	//   "format": "macepc-edd",
	//   "version": 1,
	//   "seed": {"min_ns": 1000000, "max_ns": 10000000},
	//   "points": 5,
	//   "labels": {
	//     "deliver Ping": {"samples": 3, "table_ns": [100, 150, 200, 250, 300]}
	//   },
	//   "kinds": {
	//     "deliver": {"samples": 3, "table_ns": [100, 150, 200, 250, 300]}
	//   },
	//   "scale": {}
	// }
}
