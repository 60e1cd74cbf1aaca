package allocator

import (
	"os"
	"strconv"
)

// EXPERIMENTAL knobs (exploration only).
var (
	xWin, _   = strconv.ParseInt(os.Getenv("XWIN"), 10, 64)  // region MiB (0 off)
	xBlob, _  = strconv.ParseInt(os.Getenv("XBLOB"), 10, 64) // MiB held below the first segment
	xOpen     = os.Getenv("XOPEN")                           // "", "start", "free"
	xFit      = os.Getenv("XFIT")                            // "", best, low, high, lifo
	xWinDown  = os.Getenv("XWINDOWN") == "1"
	xFresh, _ = strconv.ParseInt(os.Getenv("XFRESH"), 10, 64)
)

type addressSpace struct {
	bottom  int64
	free    []addrRange
	started bool
	held    addrRange // window not yet open
	win     addrRange // open window filled downward (xWinDown)
	mode    int       // XMODE: 0 undecided, 1 up, 2 down
}
var xWinSz, _ = strconv.ParseInt(os.Getenv("XWINSZ"), 10, 64)
var xMode = os.Getenv("XMODE") == "1"


type addrRange struct{ lo, hi int64 }

func newAddressSpace() addressSpace { return addressSpace{bottom: 1 << 62} }

func granule(size int64) int64 { return (size + RoundLarge - 1) / RoundLarge * RoundLarge }

func (s *addressSpace) open() {
	if s.held.hi > s.held.lo {
		h := s.held
		s.held = addrRange{}
		if xWinDown {
			s.win = h
			return
		}
		s.insert(h)
	}
}

func (s *addressSpace) alloc(size int64) int64 {
	size = granule(size)
	if xMode && s.started {
		if at, ok := s.modeAlloc(size); ok {
			return at
		}
	}
	fr := int64(freshRange)
	if xFresh > 0 {
		fr = xFresh << 20
	}
	best := -1
	for i, r := range s.free {
		w := r.hi - r.lo
		if w < size {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		bw := s.free[best].hi - s.free[best].lo
		switch xFit {
		case "low":
		case "high":
			best = i
		default:
			if w < bw {
				best = i
			}
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
	if xWinDown && s.win.hi-s.win.lo >= size {
		fresh := (size + fr - 1) / fr * fr
		if fresh > s.win.hi-s.win.lo {
			fresh = size
		}
		s.win.hi -= fresh
		at := s.win.hi
		if fresh > size {
			s.insert(addrRange{at + size, at + fresh})
		}
		return at
	}
	fresh := (size + fr - 1) / fr * fr
	s.bottom -= fresh
	at := s.bottom
	if fresh > size {
		s.release(s.bottom+size, fresh-size)
	}
	if !s.started {
		s.started = true
		if xWin > 0 {
			top := at + fresh
			s.held = addrRange{top - xWin<<20, at - xBlob<<20}
			if xWinSz > 0 {
				s.held = addrRange{at - xBlob<<20 - xWinSz<<20, at - xBlob<<20}
			}
			s.bottom = s.held.lo
			if xOpen == "start" {
				s.open()
			}
			if xMode {
				s.win, s.held = s.held, addrRange{}
				if size == 2<<20 {
					s.mode = 1
				}
			}
		}
	}
	return at
}

const freshRange = 32 << 20

func (s *addressSpace) insert(r addrRange) {
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
}

func (s *addressSpace) release(addr, size int64) {
	s.insert(addrRange{addr, addr + granule(size)})
	if len(s.free) > 0 && s.free[0].lo == s.bottom {
		s.bottom = s.free[0].hi
		s.free = s.free[1:]
	}
}

// modeAlloc: window kept in s.win; small-first decides direction.
func (s *addressSpace) modeAlloc(size int64) (int64, bool) {
	// best fit among free ranges first
	best := -1
	for i, r := range s.free {
		if w := r.hi - r.lo; w >= size && (best < 0 || w < s.free[best].hi-s.free[best].lo) {
			best = i
		}
	}
	if best >= 0 {
		if s.mode == 0 && size == 2<<20 {
			s.mode = 2
		}
		r := &s.free[best]
		at := r.lo
		r.lo += size
		if r.lo == r.hi {
			s.free = append(s.free[:best], s.free[best+1:]...)
		}
		return at, true
	}
	if s.win.hi-s.win.lo < size {
		return 0, false
	}
	if s.mode == 0 && size == 2<<20 {
		s.mode = 1
		s.win.hi -= size
		return s.win.hi, true
	}
	if s.mode == 2 {
		fresh := (size + freshRange - 1) / freshRange * freshRange
		if fresh > s.win.hi-s.win.lo {
			fresh = size
		}
		s.win.hi -= fresh
		at := s.win.hi
		if fresh > size {
			s.insert(addrRange{at + size, at + fresh})
		}
		return at, true
	}
	at := s.win.lo
	s.win.lo += size
	return at, true
}
