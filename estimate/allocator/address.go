package allocator

import (
	"cmp"
	"slices"
)

// addressSpace hands out synthetic device addresses for segments. It
// imitates what the CUDA driver was seen to do on an H200 (CUDA 13.0,
// driver 580; notes/addresses.md). Only the order of addresses matters:
// PyTorch breaks ties between equally sized free blocks by address.
//
// The run's first segments lay out the driver's first chunk of address
// space (driverChunk): a window of about 400 MiB in it stays unused until
// the first kernel launches (KernelsStarted), and is then filled first.
// Outside it, a 2 MiB (small-pool) segment takes the free range right
// after the segment placed last when there is one (the whole-run traces:
// 6,570 of 8,994 2 MiB segments land right after the latest one); any
// other segment that fits in free address space takes the lowest such
// range, from its start; otherwise a fresh range, rounded up to 32 MiB
// (freshRange), is carved downward below everything made so far, and what
// the segment leaves of it is free for later ones (the traces: 20 MiB
// segments 32 MiB apart, 50 and 62 MiB ones 64 apart, 478 MiB ones 480
// apart, a 12 MiB segment in the 12 MiB after a 20 MiB one; a large segment
// placed in a remainder took the lowest that fitted in 930 of 940 cases,
// the smallest in 841); a 2 MiB segment opens a 512 MiB small chunk there
// instead (freshSmall). A range given back by cudaFree is free the same way.
type addressSpace struct {
	bottom int64 // lowest address handed out so far
	// The free ranges above bottom (given back, or left of a fresh range),
	// coalesced: by start and by end (to merge a range given back with its
	// neighbours), and by width (the lowest start among the widths that
	// fit) — a model of thousands of layers leaves thousands of ranges, and
	// a scan per segment made it quadratic.
	byLo, byHi map[int64]int64
	widths     []int64           // the widths free ranges have, ascending
	los        map[int64][]int64 // by width: the starts of its ranges, descending (the lowest last); empty for a width none has now

	chunk driverChunk
	// smallChunk is what is left of the latest small chunk (freshSmall):
	// 2 MiB segments take it upward, large ones never do.
	smallChunk [2]int64
	// lastEnd is the end of the segment placed last: a 2 MiB segment takes
	// the free range starting there when one does.
	lastEnd int64
}

func newAddressSpace() addressSpace {
	return addressSpace{bottom: 1 << 62, byLo: map[int64]int64{}, byHi: map[int64]int64{}, los: map[int64][]int64{}}
}

// chunkStage is how far the driver's first chunk of address space is laid
// out.
type chunkStage uint8

const (
	chunkUnused chunkStage = iota // no segment made yet
	chunkHeld                     // laid out; no kernel has run, the window is held
	chunkOpen                     // the first kernel has run: the window is handed out
)

// driverChunk is the CUDA driver's first chunk of address space as
// probe/driver_addresses.py and probe/load_addresses.py show it on the H200
// (testdata/measured/h200/driver-addresses.json; notes/addresses.md,
// session 15). Offsets are from the end of the run's first segment F.
//
//   - A small-pool F (2 MiB) has a 24 MiB range 72 MiB above it that the
//     segments made before the first kernel fill upward (ResNet: a 2 MiB
//     and a 20 MiB one), and a window of 400 MiB from 416 to 16 MiB below
//     it, filled upward.
//   - A large F has the driver's 72 MiB right under it and the window under
//     those, reaching 488 MiB below F's start. When the first segment after
//     it is a small-pool one that finds no free range, it takes the 2 MiB
//     at the window's top and the window fills upward; when it is a large
//     one, that goes below the window, which then fills downward in fresh
//     ranges from its top (BERT, GPT-2, TinyLlama: another large segment
//     comes first).
//   - A first segment of 64 MiB or more (an embedding) gets a fresh range
//     of its own, and the next large segment is placed 494 MiB above it:
//     that one plays F's part for the window.
//
// Segments made before the first kernel go below the window (the probes:
// nothing enters it before then); once it is open, large-pool segments fill
// an upward window before any other free range, and a downward window is
// carved once no free range holds the segment (a 2 MiB one too). An embedding F followed by a kernel
// before any other large segment leaves the window unset (not measured).
// Library kernels loaded lazily take parts of the window too: the first
// GEMM's, cast's and pow's (libraryMapped, from the profile's
// window_bytes) are modelled, the other ops' are not
// (probe/module_addresses.py).
type driverChunk struct {
	stage    chunkStage
	top      int64    // the end of F
	awaitTop bool     // F is an embedding: the next large segment sets the window
	above    [2]int64 // what is left of the range above a small F
	win      [2]int64 // what is left of the window
	decided  bool     // the window's direction is set
	upward   bool     // the window fills from its bottom
}

const (
	// windowReach is how far below a large F's start its window reaches,
	// driverGap the driver's own 72 MiB between them.
	windowReach = 488 << 20
	driverGap   = 72 << 20
	// A small F's window is [F's end - smallWindowLow, F's end - smallWindowHigh),
	// its range above [F's end + aboveLow, F's end + aboveHigh).
	smallWindowLow, smallWindowHigh = 416 << 20, 16 << 20
	aboveLow, aboveHigh             = 72 << 20, 96 << 20
	// embeddingFirst is the size from which F gets a fresh range of its own
	// and the next large segment goes embeddingAbove above F's end.
	embeddingFirst = 64 << 20
	embeddingAbove = 494 << 20
	smallSegment   = 2 << 20
)

// granule rounds a size up to the 2 MiB the driver maps.
func granule(size int64) int64 { return (size + RoundLarge - 1) / RoundLarge * RoundLarge }

func (s *addressSpace) alloc(size int64) int64 {
	size = granule(size)
	at := s.place(size)
	s.lastEnd = at + size
	return at
}

// place picks a segment's address.
func (s *addressSpace) place(size int64) int64 {
	c := &s.chunk
	small := size == smallSegment
	if c.stage == chunkUnused {
		return s.layOut(size)
	}
	if small {
		// a 2 MiB segment goes right after the latest segment when that
		// left room (the whole-run traces: 6,570 of 8,994; the probes)
		if hi, ok := s.byLo[s.lastEnd]; ok && hi-s.lastEnd >= size {
			return s.takeFrom(s.lastEnd, hi, size)
		}
		if s.smallChunk[0] == s.lastEnd { // (or in a small chunk)
			if at, ok := takeFront(&s.smallChunk, size); ok {
				return at
			}
		}
	}
	if c.stage == chunkOpen && !small {
		if c.upward {
			if at, ok := takeFront(&c.win, size); ok {
				return at
			}
		}
		if at, ok := takeFront(&c.above, size); ok {
			return at
		}
	}
	if c.stage == chunkHeld && c.awaitTop && !small {
		c.awaitTop = false
		at := c.top + embeddingAbove
		c.win = [2]int64{at - windowReach, at - driverGap}
		return at
	}
	if at, ok := s.takeLowest(size); ok {
		if c.stage == chunkHeld && !c.awaitTop {
			c.decided = true // (upward when F is small; downward after a large F)
		}
		return at
	}
	if c.stage == chunkHeld {
		if at, ok := takeFront(&c.above, size); ok {
			return at
		}
		if !c.decided && !c.awaitTop {
			c.decided = true
			if small && c.win[1]-c.win[0] >= size {
				c.upward = true
				c.win[1] -= size
				return c.win[1]
			}
		}
	}
	if c.stage == chunkOpen && !c.upward && c.win[1]-c.win[0] >= size {
		r := min(freshRounded(size), c.win[1]-c.win[0])
		c.win[1] -= r
		if r > size {
			// (released: the range above may be free again after
			// empty_cache, and the two must merge)
			s.release(c.win[1]+size, r-size)
		}
		return c.win[1]
	}
	if small {
		return s.freshSmall(size)
	}
	return s.fresh(size)
}

// smallChunkSize is the address range the driver takes below everything
// made so far for a 2 MiB segment that fits nowhere.
const smallChunkSize = 512 << 20

// freshSmall places a 2 MiB segment that fits in no free range: in what is
// left of the latest small chunk, else in a new one of smallChunkSize
// carved below everything, both from their low end. In the whole-run traces
// (notes/addresses.md, session 20, "jumps below the bottom") the next fresh
// large segment after such a 2 MiB one went at least 512 MiB below the 2 MiB
// one's 32 MiB range in 256 of 265 cases (exactly 512 in 130, more where
// library kernels took space as well), so a fresh 32 MiB range, whose
// remainder a large segment could take, put them in the wrong order; later
// 2 MiB segments in the chunk went right above the previous one in 165 of
// 215 cases, below it in 14, and 87 large segments in all entered the 291
// chunks (probe/address_jumps.py).
func (s *addressSpace) freshSmall(size int64) int64 {
	r := &s.smallChunk
	if r[1]-r[0] < size {
		top := s.bottom
		s.bottom -= smallChunkSize
		*r = [2]int64{s.bottom, top}
	}
	at, _ := takeFront(r, size)
	return at
}

// layOut places the run's first segment and lays out the chunk around it.
func (s *addressSpace) layOut(size int64) int64 {
	c := &s.chunk
	end := s.bottom
	c.stage, c.top = chunkHeld, end
	switch {
	case size == smallSegment:
		c.above = [2]int64{end + aboveLow, end + aboveHigh}
		c.win = [2]int64{end - smallWindowLow, end - smallWindowHigh}
		c.decided, c.upward = true, true
	case size >= embeddingFirst:
		c.awaitTop = true
		return s.fresh(size)
	default:
		c.win = [2]int64{end - size - windowReach, end - size - driverGap}
	}
	s.bottom = min(end-size, c.win[0])
	return end - size
}

// libraryMapped takes what the driver mapped for library kernels from the
// top of a window being filled downward.
func (s *addressSpace) libraryMapped(bytes int64) {
	c := &s.chunk
	if c.stage != chunkOpen || c.upward {
		return
	}
	c.win[1] = max(c.win[0], c.win[1]-granule(bytes))
}

// openWindow hands out the window: the run's first kernel has launched.
func (s *addressSpace) openWindow() {
	c := &s.chunk
	if c.stage != chunkHeld {
		return
	}
	c.stage = chunkOpen
	if !c.decided {
		c.decided, c.upward = true, true
	}
}

// takeLowest takes size from the lowest free range that holds it, if any.
func (s *addressSpace) takeLowest(size int64) (int64, bool) {
	i, _ := slices.BinarySearch(s.widths, size)
	if i == len(s.widths) {
		return 0, false
	}
	at, w := int64(0), int64(0)
	for _, width := range s.widths[i:] {
		starts := s.los[width]
		if lo := starts[len(starts)-1]; w == 0 || lo < at {
			at, w = lo, width
		}
	}
	return s.takeFrom(at, at+w, size), true
}

// takeFrom takes size from the start of the free range [lo, hi).
func (s *addressSpace) takeFrom(lo, hi, size int64) int64 {
	s.remove(lo, hi)
	if hi > lo+size {
		s.add(lo+size, hi)
	}
	return lo
}

// takeFront takes size from the start of the range r when it holds it.
func takeFront(r *[2]int64, size int64) (int64, bool) {
	if r[1]-r[0] < size {
		return 0, false
	}
	at := r[0]
	r[0] += size
	return at, true
}

// freshRounded is the fresh range a segment of size takes.
func freshRounded(size int64) int64 { return (size + freshRange - 1) / freshRange * freshRange }

// fresh carves a fresh range below everything made so far; what the
// segment leaves of it is free.
func (s *addressSpace) fresh(size int64) int64 {
	r := freshRounded(size)
	s.bottom -= r
	if r > size {
		s.release(s.bottom+size, r-size)
	}
	return s.bottom
}

// add makes [lo, hi) a free range (it touches no other).
func (s *addressSpace) add(lo, hi int64) {
	s.byLo[lo], s.byHi[hi] = hi, lo
	w := hi - lo
	starts := s.los[w]
	if len(starts) == 0 {
		i, _ := slices.BinarySearch(s.widths, w)
		s.widths = slices.Insert(s.widths, i, w)
	}
	i, _ := slices.BinarySearchFunc(starts, lo, descending)
	s.los[w] = slices.Insert(starts, i, lo)
}

// descending orders a width's starts highest first.
func descending(a, b int64) int { return cmp.Compare(b, a) }

// remove takes the free range [lo, hi) out.
func (s *addressSpace) remove(lo, hi int64) {
	delete(s.byLo, lo)
	delete(s.byHi, hi)
	w := hi - lo
	starts := s.los[w]
	i, _ := slices.BinarySearchFunc(starts, lo, descending)
	starts = slices.Delete(starts, i, i+1)
	s.los[w] = starts // kept when empty: the width is likely to come back
	if len(starts) > 0 {
		return
	}
	j, _ := slices.BinarySearch(s.widths, w)
	s.widths = slices.Delete(s.widths, j, j+1)
}

// freshRange is the granularity of the address ranges the driver reserves
// for a cudaMalloc that fits in none it has free. Of 2, 16, 32 and 64 MiB,
// 32 matches the traces' strides and made the estimates of the 168
// measured single-GPU runs of session 8 closest (mean |error| 0.091%,
// 0.089%, 0.063%, 0.092%; figures off by more than 1%: 40, 35, 15, 25).
const freshRange = 32 << 20

func (s *addressSpace) release(addr, size int64) {
	lo, hi := addr, addr+granule(size)
	if prev, ok := s.byHi[lo]; ok {
		s.remove(prev, lo)
		lo = prev
	}
	if next, ok := s.byLo[hi]; ok {
		s.remove(hi, next)
		hi = next
	}
	if lo == s.bottom {
		s.bottom = hi // the heap's lowest range gives its space back
		if hi == s.smallChunk[0] {
			// and a small chunk's rest above it with it
			s.bottom, s.smallChunk = s.smallChunk[1], [2]int64{}
		}
		return
	}
	s.add(lo, hi)
}

// fingerprint mixes the free ranges, the bottom and the chunk's state into
// a hash, whatever the order the maps give them in.
func (s *addressSpace) fingerprint(mix func(uint64) uint64) uint64 {
	var sum uint64
	for lo, hi := range s.byLo {
		sum += mix(uint64(lo) ^ mix(uint64(hi)))
	}
	c := &s.chunk
	flags := uint64(c.stage)
	for i, b := range []bool{c.awaitTop, c.decided, c.upward} {
		if b {
			flags |= 1 << (8 + i)
		}
	}
	for _, v := range []uint64{flags, uint64(c.top), uint64(c.above[0]), uint64(c.above[1]), uint64(c.win[0]), uint64(c.win[1]), uint64(s.smallChunk[0]), uint64(s.smallChunk[1])} {
		sum = mix(sum ^ v)
	}
	return mix(sum ^ uint64(s.bottom))
}
