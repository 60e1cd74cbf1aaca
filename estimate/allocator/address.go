package allocator

import (
	"cmp"
	"slices"
)

// addressSpace hands out synthetic device addresses for segments. It
// imitates what the CUDA driver was seen to do on an H200 (CUDA 13.0,
// driver 580): a segment that fits in free address space takes the
// smallest such range (the lowest of equals), from its start; otherwise a
// fresh range, rounded up to 32 MiB (freshRange), is carved downward from
// the top of the heap, and what the segment leaves of it is free for later
// ones (the traces: 20 MiB
// segments 32 MiB apart, 50 and 62 MiB ones 64 apart, 478 MiB ones 480
// apart, a 12 MiB segment in the 12 MiB after a 20 MiB one, 2 MiB ones in
// the rest of a 50 MiB one's range; notes/addresses.md). A range given back
// by cudaFree is free the same way. Only the order of addresses matters:
// PyTorch breaks ties between equally sized free blocks by address.
type addressSpace struct {
	bottom int64 // lowest address handed out so far
	// The free ranges above bottom (given back, or left of a fresh range),
	// coalesced: by start and by end (to merge a range given back with its
	// neighbours), and by width (best fit: the smallest width that fits,
	// then the lowest start) — a model of thousands of layers leaves
	// thousands of ranges, and a scan per segment made it quadratic.
	byLo, byHi map[int64]int64
	widths     []int64           // the widths free ranges have, ascending
	los        map[int64][]int64 // by width: the starts of its ranges, descending (the lowest last); empty for a width none has now
}

func newAddressSpace() addressSpace {
	return addressSpace{bottom: 1 << 62, byLo: map[int64]int64{}, byHi: map[int64]int64{}, los: map[int64][]int64{}}
}

// granule rounds a size up to the 2 MiB the driver maps.
func granule(size int64) int64 { return (size + RoundLarge - 1) / RoundLarge * RoundLarge }

func (s *addressSpace) alloc(size int64) int64 {
	size = granule(size)
	if w, ok := s.smallestWidth(size); ok {
		starts := s.los[w]
		at := starts[len(starts)-1]
		s.remove(at, at+w)
		if w > size {
			s.add(at+size, at+w)
		}
		return at
	}
	fresh := (size + freshRange - 1) / freshRange * freshRange
	s.bottom -= fresh
	if fresh > size {
		s.release(s.bottom+size, fresh-size)
	}
	return s.bottom
}

// smallestWidth returns the smallest width of a free range that holds size.
func (s *addressSpace) smallestWidth(size int64) (int64, bool) {
	i, _ := slices.BinarySearch(s.widths, size)
	if i == len(s.widths) {
		return 0, false
	}
	return s.widths[i], true
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
// 32 matches the traces' strides and makes the estimates of the 168
// measured single-GPU runs closest (mean |error| 0.091%, 0.089%, 0.063%,
// 0.092%; figures off by more than 1%: 40, 35, 15, 25 — measured with the
// lowest free range taken; with the smallest, 32 MiB gives 0.062%).
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
		return
	}
	s.add(lo, hi)
}

// fingerprint mixes the free ranges and the bottom into a hash, whatever
// the order the maps give them in.
func (s *addressSpace) fingerprint(mix func(uint64) uint64) uint64 {
	var sum uint64
	for lo, hi := range s.byLo {
		sum += mix(uint64(lo) ^ mix(uint64(hi)))
	}
	return mix(sum ^ uint64(s.bottom))
}
