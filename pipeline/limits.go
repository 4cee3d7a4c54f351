package pipeline

// Bytes a phase keeps in memory per execution until it writes its files
// (measured upper bounds of the in-memory line and its JSON): a count
// whose total exceeds the machine's memory is refused before anything
// runs, instead of the runtime dying out of memory hours later.
const (
	bytesPerExecLine   = 256  // profile and simulate: results.ExecLine/SimLine and its JSON
	bytesPerCountsLine = 4096 // search and divergence walks: results.CountsLine with its label counts and its JSON
	bytesPerTrainRun   = 4096 // training: the real handler times of one execution (a few hundred events)
)

// checkMemory refuses a count (field's value) whose executions would
// need more memory than the machine has, at perItem bytes each.
func checkMemory(field string, n, perItem int) error {
	mem := totalMemory()
	if mem == 0 || n <= 0 {
		return nil
	}
	if need := uint64(n) * uint64(perItem); uint64(n) > mem/uint64(perItem) {
		return fieldErr(field, "%d is beyond this machine's memory: its executions are kept until the phase ends, about %d bytes each (%.1f GiB in all, %.1f GiB installed); at most %d",
			n, perItem, float64(need)/(1<<30), float64(mem)/(1<<30), mem/uint64(perItem))
	}
	return nil
}

// initialCap is the capacity to allocate for n items that are appended
// as executions finish: no more than a few thousand up front, whatever n.
func initialCap(n int) int { return min(max(n, 0), 4096) }

// MaxResamples bounds RegressConfig.Compare.Resamples (--resamples): the
// bootstrap and the permutations cost time in proportion to the resamples
// times the executions (about 8 µs per resample for two profiles of 50
// executions, so 0.8 s at this bound, 16 s for 1000 executions), and
// 100,000 already resolves p-values down to 2/(100,000+1) = 2·10⁻⁵,
// below the level Holm's procedure compares with at any alpha down to
// 10⁻⁴. More would only cost time (10⁷ took 43 s, 10¹² ran out of
// memory).
const MaxResamples = 100_000

// checkResamples refuses a number of resamples outside [1, MaxResamples].
func checkResamples(n int) error {
	if n < 1 || n > MaxResamples {
		return fieldErr("RegressConfig.Compare.Resamples", "must be between 1 and %d, got %d", MaxResamples, n)
	}
	return nil
}
