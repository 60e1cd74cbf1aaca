package allocator

// addressSpace hands out synthetic device addresses for segments. It
// imitates what the CUDA driver was seen to do on an H200 (CUDA 13.0,
// driver 580): fresh ranges are carved downward from the top of the heap,
// and a range given back by cudaFree is reused, lowest address first, from
// its start. Only the order of addresses matters: PyTorch breaks ties
// between equally sized free blocks by address.
type addressSpace struct {
	bottom int64       // lowest address handed out so far
	free   []addrRange // ranges above bottom given back, sorted, coalesced
}

type addrRange struct{ lo, hi int64 }

func newAddressSpace() addressSpace { return addressSpace{bottom: 1 << 62} }

// granule rounds a size up to the 2 MiB the driver maps.
func granule(size int64) int64 { return (size + RoundLarge - 1) / RoundLarge * RoundLarge }

func (s *addressSpace) alloc(size int64) int64 {
	size = granule(size)
	for i := range s.free {
		r := &s.free[i]
		if r.hi-r.lo >= size {
			at := r.lo
			r.lo += size
			if r.lo == r.hi {
				s.free = append(s.free[:i], s.free[i+1:]...)
			}
			return at
		}
	}
	s.bottom -= size
	return s.bottom
}

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
