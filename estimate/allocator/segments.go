package allocator

import (
	"cmp"
	"slices"
)

// Segment is one segment of the allocator's memory map, as
// torch.cuda.memory_snapshot() lists it: its address range, its pool and
// its blocks in address order.
type Segment struct {
	Addr, Size int64
	// Small is the small pool's (requests of 1 MiB or less).
	Small bool
	// Expandable is an expandable segment's mapped range.
	Expandable bool
	Blocks     []SegmentBlock
}

// SegmentBlock is one block of a Segment.
type SegmentBlock struct {
	Size int64
	// Requested is the bytes asked for (0 for a free block).
	Requested int64
	Allocated bool
}

// Segments returns the memory map: every segment with its blocks, by
// address. An expandable segment lists its mapped blocks as one segment
// per mapped run, as the snapshot does.
func (a *Allocator) Segments() []Segment {
	var out []Segment
	for i := 1; i < len(a.blocks); i++ {
		b := &a.blocks[i]
		if b.size == 0 || !(b.allocated || b.in == inFree) || !b.mapped {
			continue
		}
		if b.prev != 0 && a.blk(b.prev).mapped {
			continue // not the first block of its mapped run
		}
		seg := Segment{Addr: b.addr, Small: b.small, Expandable: b.seg != 0}
		for c := b; ; c = a.blk(c.next) {
			blk := SegmentBlock{Size: c.size, Allocated: c.allocated}
			if c.allocated {
				blk.Requested = c.requested
			}
			seg.Blocks = append(seg.Blocks, blk)
			seg.Size += c.size
			if c.next == 0 || !a.blk(c.next).mapped {
				break
			}
		}
		out = append(out, seg)
	}
	slices.SortFunc(out, func(x, y Segment) int { return cmp.Compare(x.Addr, y.Addr) })
	return out
}
