package allocator

// Fingerprint digests everything that decides the allocator's future
// answers: every block (address, size, whether handed out, stream, pool,
// mapping), the expandable segments, the free address ranges and the current
// counters. Two allocators with equal fingerprints answer the same sequence
// of requests the same way, so a caller replaying identical steps can stop
// once a step leaves the state unchanged. Peaks are not included.
func (a *Allocator) Fingerprint() uint64 {
	h := mix(a.blockSum(nil))
	for i := 1; i < len(a.segs); i++ {
		s := a.segs[i]
		h = mix(h ^ uint64(s.base) ^ mix(uint64(s.size)) ^ mix(uint64(s.page)<<3))
	}
	h = mix(h ^ a.addrs.fingerprint(mix))
	st := a.st
	for _, v := range []int64{st.Allocated, st.Reserved, st.Requested, st.InactiveSplit, st.Segments, st.Active} {
		h = mix(h ^ uint64(v))
	}
	return h
}

// blockSum combines every block but those skip reports (skip may be nil)
// with a commutative sum of mixed hashes: their order in the slice (which
// reuses freed slots) does not matter.
func (a *Allocator) blockSum(skip func(*block) bool) uint64 {
	var sum uint64
	for i := 1; i < len(a.blocks); i++ {
		b := &a.blocks[i]
		if !b.allocated && b.in == 0 {
			continue // a recycled slot
		}
		if skip != nil && skip(b) {
			continue
		}
		h := mix(uint64(b.addr)) ^ mix(uint64(b.size)<<1) ^ mix(uint64(b.stream)<<7|flag(b.allocated)<<1|flag(b.small)<<2|flag(b.mapped)<<3)
		sum += mix(h)
	}
	return sum
}

func flag(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// mix is the splitmix64 finaliser.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
