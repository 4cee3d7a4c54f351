package timedsim

// recent remembers the last few entries looked up in a map from K to an
// interned id, so that the loop's most frequent lookups (a send's message
// type, its composite label) skip the map's hashing. The zero value is
// empty; a recent must be reset (to its zero value) whenever its map is
// replaced, as a snapshot's restore does.
type recent[K comparable] struct {
	keys [4]K
	ids  [4]int32
	set  [4]bool
	next uint8 // the entry to overwrite next
}

// get returns the id remembered for k.
func (r *recent[K]) get(k K) (int32, bool) {
	for i := range r.keys {
		if r.set[i] && r.keys[i] == k {
			return r.ids[i], true
		}
	}
	return 0, false
}

// put remembers id for k in place of the oldest entry.
func (r *recent[K]) put(k K, id int32) {
	i := r.next % uint8(len(r.keys))
	r.keys[i], r.ids[i], r.set[i] = k, id, true
	r.next++
}
