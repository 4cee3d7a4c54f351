// Package edd provides event duration distributions (EDDs) for macepc's
// timed simulator (paper 004 §3.1 "Event Duration Distributions" and §3.2
// "Phase 1a: Event Duration Training").
//
// After every event handler runs, the simulator samples a simulated duration
// for that event from the distribution of the event's label and advances the
// node's clock by it. Labels have the form "<kind> <name>" or "<kind>", for
// example "init", "deliver JoinReply", "timer recovery", "app join",
// "error queue-full" or "reset"; the kind is the text before the first space
// (see Kind).
//
// A Dist maps a uniform number u in [0,1) to a duration by the inverse CDF,
// so the simulator's randomness (and hence a recorded path) fully determines
// every duration: the paper's "repeatability".
//
//   - Uniform is the seed distribution (DefaultSeed: 1ms..10ms) that every
//     label gets before training.
//   - Empirical is trained from measured handler times. It keeps the sample
//     count and a percentile table (DefaultPoints = 101 entries at
//     probabilities 0, 1%, …, 100%, Hyndman–Fan type 7 quantiles) and samples
//     by linear interpolation between adjacent entries, as Mace's percentile
//     tables do. See Empirical for the exact definition and how it relates to
//     gonum's stat.LinInterp.
//   - Set maps labels to distributions. Train builds one Empirical per label
//     seen, and per kind a pooled Empirical over all samples of that kind.
//     Set.Lookup returns the label's own distribution (Trained); for a label
//     never seen in training, the pooled distribution of its kind (Fallback,
//     described as "<kind> *", the paper's "substitute a similar event's
//     distribution"); otherwise the seed (Seed). Set.Coverage reports this
//     for all labels of a run, so incomplete training is visible.
//   - Set.Scale implements the paper's "malleability": the durations of a
//     label, of every label of a kind ("<kind> *") or of all labels ("*") are
//     multiplied by a factor, to ask "what if this handler were 2.5× slower?".
//     Factors that match a label multiply, and a scaled duration saturates at
//     MaxDuration (100 years, the longest event duration, which no table or
//     seed may exceed either). ParseScale parses the command-line
//     form "deliver Join=2.5" (split at the last '=').
//
// # Usage
//
// Phase 1a: run the explorer with the seed distribution, collect the real
// handler times per label, train, and save:
//
//	set, err := edd.Train(realTimes, edd.DefaultSeed(), 0) // map[string][]time.Duration
//	if err != nil { … }
//	err = edd.Write(f, set) // edd.json
//
// Later phases read the file, apply what-if factors, and resolve each label
// once (Lookup may allocate, Sample never does):
//
//	set, err := edd.Read(f)
//	label, factor, err := edd.ParseScale("deliver Join=2.5")
//	err = set.Scale(label, factor)
//	d, src, desc := set.Lookup("deliver Join") // cache d per interned label
//	dur := d.Sample(u)                         // u from the path's randomness
//
// # JSON format
//
// Write produces, and Read accepts, this format (version 1):
//
//	{
//	  "format": "macepc-edd",
//	  "version": 1,
//	  "seed": {"min_ns": 1000000, "max_ns": 10000000},
//	  "points": 101,
//	  "labels": {
//	    "deliver Join": {"samples": 512, "table_ns": [812, 830, …]}
//	  },
//	  "kinds": {
//	    "deliver": {"samples": 2048, "table_ns": [790, 801, …]}
//	  },
//	  "scale": {"deliver Join": 2.5}
//	}
//
// Durations are integer nanoseconds; every table has "points" entries,
// non-negative, at most MaxDuration (100 years) and non-decreasing, entry i
// being the quantile at i/(points−1).
// "scale" keys are labels, "<kind> *" or "*"; factors are positive (a factor
// of 1 is dropped). Read rejects another format or version, unknown fields,
// and every inconsistency above with an error starting "edd: "; it does not
// panic on any input.
//
// # Determinism
//
// Everything here is a pure function of its inputs: there is no package
// state, no clock and no randomness (u is supplied by the caller). Train
// sorts a copy of each sample list and visits labels in sorted order, so its
// result depends neither on sample order nor on map iteration order. Table
// positions are computed in integer arithmetic and durations rounded to the
// nearest nanosecond. Write is canonical (fixed key order, sorted maps,
// shortest round-tripping float format), so Write→Read→Write is
// byte-identical and Set.Hash identifies a configuration.
//
// Distributions are immutable after construction and safe for concurrent
// use; a Set is safe for concurrent Lookup once Scale calls are done.
package edd
