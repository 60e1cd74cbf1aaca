package allocator

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
	bottom int64       // lowest address handed out so far
	free   []addrRange // free ranges above bottom (given back, or left of a fresh range), sorted, coalesced
}

type addrRange struct{ lo, hi int64 }

func newAddressSpace() addressSpace { return addressSpace{bottom: 1 << 62} }

// granule rounds a size up to the 2 MiB the driver maps.
func granule(size int64) int64 { return (size + RoundLarge - 1) / RoundLarge * RoundLarge }

func (s *addressSpace) alloc(size int64) int64 {
	size = granule(size)
	best := -1 // the smallest free range that fits, the lowest of equals
	for i, r := range s.free {
		if w := r.hi - r.lo; w >= size && (best < 0 || w < s.free[best].hi-s.free[best].lo) {
			best = i
		}
	}
	if best >= 0 {
		r := &s.free[best]
		at := r.lo
		r.lo += size
		if r.lo == r.hi {
			s.free = append(s.free[:best], s.free[best+1:]...)
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

// freshRange is the granularity of the address ranges the driver reserves
// for a cudaMalloc that fits in none it has free. Of 2, 16, 32 and 64 MiB,
// 32 matches the traces' strides and makes the estimates of the 168
// measured single-GPU runs closest (mean |error| 0.091%, 0.089%, 0.063%,
// 0.092%; figures off by more than 1%: 40, 35, 15, 25 — measured with the
// lowest free range taken; with the smallest, 32 MiB gives 0.062%).
const freshRange = 32 << 20

func (s *addressSpace) release(addr, size int64) {
	r := addrRange{addr, addr + granule(size)}
	i := 0
	for i < len(s.free) && s.free[i].lo < r.lo {
		i++
	}
	if i > 0 && s.free[i-1].hi == r.lo {
		i--
		s.free[i].hi = r.hi
	} else {
		s.free = append(s.free, addrRange{})
		copy(s.free[i+1:], s.free[i:])
		s.free[i] = r
	}
	if i+1 < len(s.free) && s.free[i].hi == s.free[i+1].lo {
		s.free[i].hi = s.free[i+1].hi
		s.free = append(s.free[:i+1], s.free[i+2:]...)
	}
	if len(s.free) > 0 && s.free[0].lo == s.bottom {
		s.bottom = s.free[0].hi
		s.free = s.free[1:]
	}
}
