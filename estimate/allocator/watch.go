package allocator

import (
	"cmp"
	"math"
	"slices"
)

// A step that runs again from a warmer cache.
//
// A training step's second run often leaves the allocator as its first run
// did plus a few segments that it had to create (the optimizer's state, made
// in the first run, now sits where the second run's temporaries went) and
// that are free and whole again when it ends. Replayed once more, the step
// starts with those segments cached. It makes the same choices again exactly
// when no cached segment would have been a better fit for a request made
// before the run created it: then each request that created a segment
// takes that segment from the cache instead, every other request takes the
// block it took before, and the state after every request is the earlier
// run's plus the segments not yet created, free and whole. The allocated
// figures repeat request for request, the reserve stays at the end state's,
// and the step leaves the allocator as it found it: the steady state.
//
// WatchStep and RepeatsFromCache check this on a run of the step instead
// of replaying it again (a third of a three-step estimate's events). Ties
// are not followed: a created segment that would tie with what an earlier
// request took, at a lower address, answers no (the 405B's case).

// stepWatch is what Malloc notes while a step is watched.
type stepWatch struct {
	on bool
	// blocks, devFree and retries are the block sum and counters when the
	// watch began.
	blocks           uint64
	devFree, retries int64
	choices          []choice
	created          []int // indices in choices of requests that created a segment
	// firstID is the first block id handed out while watched (every
	// request takes the next id, so the ids handed out since the watch
	// before size the notes: a step makes about as many as the one before);
	// broken is set when the step freed a block made before it (which block
	// then holds which allocation is not in the comparison) or emptied the
	// cache.
	firstID BlockID
	broken  bool
}

// choice is one request's best fit while a step is watched.
type choice struct {
	size   int64 // the rounded request: best fit's key
	chosen int64 // the size of the block taken (a new segment's), before any split
	addr   int64 // its address
	stream int32 // streams are small numbers
	small  bool
}

// WatchStep starts noting what each request takes, for RepeatsFromCache.
func (a *Allocator) WatchStep() {
	w := &a.watch
	w.on = true
	w.blocks = a.blockSum(nil)
	w.devFree, w.retries = a.st.NumDeviceFree, a.st.NumAllocRetries
	if n := len(a.live) - int(w.firstID); cap(w.choices) < n {
		w.choices = make([]choice, 0, n+n/8)
	}
	w.choices, w.created = w.choices[:0], w.created[:0]
	w.firstID, w.broken = BlockID(len(a.live)), false
}

// note records a request's best fit; created says it made a new segment.
func (w *stepWatch) note(p *params, created bool) {
	if created {
		w.created = append(w.created, len(w.choices))
	}
	w.choices = append(w.choices, choice{size: p.size, chosen: p.block.size, addr: p.block.addr, stream: int32(p.stream), small: p.pool.small})
}

// RepeatsFromCache ends the watch begun by WatchStep and reports whether
// the watched requests, made again from the allocator's present state,
// would take the same blocks — the state being the one the watch began in
// plus the segments created since, each a free whole block now — and the
// bytes of those segments. It answers false when the state differs in any
// other way, when no segment was created (compare fingerprints instead),
// when a segment was released, a request retried or the cache emptied,
// when the step freed a block made before it (the comparison of states
// does not say which block holds which allocation), and with expandable
// segments or a MaxSplitSize (their choices follow other rules).
func (a *Allocator) RepeatsFromCache() (extra int64, ok bool) {
	w := &a.watch
	if !w.on {
		return 0, false
	}
	w.on = false
	if len(w.created) == 0 || w.broken || a.cfg.ExpandableSegments || a.maxSplit != math.MaxInt64 ||
		a.st.NumDeviceFree != w.devFree || a.st.NumAllocRetries != w.retries {
		return 0, false
	}
	// Every created segment must be one free block now, and the other
	// blocks those the watch began with.
	byAddr := slices.Clone(w.created)
	slices.SortFunc(byAddr, func(i, j int) int { return cmp.Compare(w.choices[i].addr, w.choices[j].addr) })
	whole := 0
	rest := a.blockSum(func(b *block) bool {
		if b.allocated || b.prev != 0 || b.next != 0 || b.seg != 0 {
			return false
		}
		k, found := slices.BinarySearchFunc(byAddr, b.addr, func(i int, addr int64) int { return cmp.Compare(w.choices[i].addr, addr) })
		if !found {
			return false
		}
		if c := &w.choices[byAddr[k]]; c.chosen == b.size && Stream(c.stream) == b.stream && c.small == b.small {
			whole++
			return true
		}
		return false
	})
	if whole != len(w.created) || rest != w.blocks {
		return 0, false
	}
	// No created segment, had it been cached, beats what a request made
	// before its creation took (best fit: the smallest block at least the
	// request, then the lowest address, in the request's pool and stream).
	// Walking the requests backwards, the segments created after each are
	// kept by pool and stream in (size, address) order: the first of at
	// least the request's size is the one best fit would have taken.
	later := map[[2]int32][]*choice{}
	next := len(w.created) - 1
	for i := len(w.choices) - 1; i >= 0; i-- {
		x := &w.choices[i]
		g := [2]int32{x.stream, int32(flag(x.small))}
		set := later[g]
		k, _ := slices.BinarySearchFunc(set, x.size, func(c *choice, size int64) int { return cmp.Compare(c.chosen, size) })
		if k < len(set) && (set[k].chosen < x.chosen || set[k].chosen == x.chosen && set[k].addr < x.addr) {
			return 0, false
		}
		if next >= 0 && w.created[next] == i {
			// From the request before it on, this segment was created later.
			next--
			extra += x.chosen
			k, _ := slices.BinarySearchFunc(set, x, func(c, y *choice) int {
				if c.chosen != y.chosen {
					return cmp.Compare(c.chosen, y.chosen)
				}
				return cmp.Compare(c.addr, y.addr)
			})
			later[g] = slices.Insert(set, k, x)
		}
	}
	return extra, true
}
