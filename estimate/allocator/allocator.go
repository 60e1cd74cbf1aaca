package allocator

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
)

// Sizes fixed in PyTorch's allocator source.
const (
	MinBlockSize  int64 = 512      // kMinBlockSize: every request is rounded to a multiple of this
	SmallSize     int64 = 1 << 20  // kSmallSize: rounded requests up to this go to the small pool
	SmallBuffer   int64 = 2 << 20  // kSmallBuffer: segment size (and page size) of the small pool
	LargeBuffer   int64 = 20 << 20 // kLargeBuffer: segment for large requests below MinLargeAlloc; large expandable page
	MinLargeAlloc int64 = 10 << 20 // kMinLargeAlloc: requests from here on get a segment of their own size
	RoundLarge    int64 = 2 << 20  // kRoundLarge: such segments are rounded up to this
	// MaxNonSplitRounding is max_non_split_rounding_mb's default: an
	// oversize cached block serves a request of at least MaxSplitSize only
	// if it is less than this much larger.
	MaxNonSplitRounding int64 = 20 << 20
	// MaxRequest is the first size PyTorch refuses outright ("more than
	// 1EB"), before looking at the cache.
	MaxRequest int64 = 1 << 60
)

// Config is the subset of PYTORCH_CUDA_ALLOC_CONF the simulation honours,
// plus the memory the allocator may use.
type Config struct {
	// ExpandableSegments is expandable_segments:True.
	ExpandableSegments bool
	// MaxSplitSize is max_split_size_mb in bytes; 0 means unlimited (the
	// PyTorch default). Blocks of at least this size are never split, and
	// cached ones serve only requests of at least this size that they
	// exceed by less than MaxNonSplitRounding.
	MaxSplitSize int64
	// RoundupPower2Divisions is roundup_power2_divisions (one value for
	// every size); 0 or 1 is off, otherwise a power of two.
	RoundupPower2Divisions int
	// Capacity is the number of bytes the allocator may reserve in total;
	// 0 means unlimited. A new segment (or, with expandable segments, new
	// pages) that would exceed it fails like cudaMalloc (cuMemCreate) does
	// when the device is full, which starts PyTorch's out-of-memory path.
	// Without expandable segments this is also exactly how
	// set_per_process_memory_fraction limits PyTorch; with them, PyTorch's
	// fraction check compares the segment size a cudaMalloc would have
	// taken rather than the pages needed, which this does not model.
	Capacity int64
}

// Validate reports settings PyTorch rejects: a max_split_size of 20 MiB or
// less, a division count that is not a power of two, a negative capacity.
func (c Config) Validate() error {
	if c.MaxSplitSize < 0 || (c.MaxSplitSize > 0 && c.MaxSplitSize <= LargeBuffer) {
		return &ConfigError{Field: "MaxSplitSize", Reason: fmt.Sprintf(
			"%d bytes: must be 0 (unlimited) or more than %d bytes (20 MiB)", c.MaxSplitSize, LargeBuffer)}
	}
	if d := c.RoundupPower2Divisions; d < 0 || d&(d-1) != 0 {
		return &ConfigError{Field: "RoundupPower2Divisions", Reason: fmt.Sprintf(
			"%d: must be 0 (off) or a power of two", d)}
	}
	if c.Capacity < 0 {
		return &ConfigError{Field: "Capacity", Reason: fmt.Sprintf(
			"%d bytes: must be 0 (unlimited) or positive", c.Capacity)}
	}
	return nil
}

// Stream identifies a CUDA stream. Cached blocks are reused only by
// requests on the stream they were allocated on.
type Stream int

// BlockID identifies a block handed out by Malloc. Ids are never reused.
type BlockID int64

// Stats holds the allocator counters, named after torch.cuda.memory_stats
// ("all" pools). Byte counts are exact; peaks are sticky until
// ResetPeakStats.
type Stats struct {
	Allocated     int64 // allocated_bytes.all.current: sizes of live blocks (rounded, whole when unsplit)
	AllocatedPeak int64 // allocated_bytes.all.peak
	Reserved      int64 // reserved_bytes.all.current: segments (mapped pages with expandable segments)
	ReservedPeak  int64 // reserved_bytes.all.peak
	Requested     int64 // requested_bytes.all.current: sizes as asked for
	RequestedPeak int64 // requested_bytes.all.peak
	Active        int64 // active_bytes.all.current (equals Allocated: no cross-stream use is modelled)
	ActivePeak    int64 // active_bytes.all.peak
	// InactiveSplit is inactive_split_bytes.all.current: free blocks in
	// segments that also hold a live block, which empty_cache cannot free.
	InactiveSplit     int64
	InactiveSplitPeak int64 // inactive_split_bytes.all.peak
	Segments          int64 // segment.all.current: cudaMalloc segments (expandable segments count 0)
	SegmentsPeak      int64 // segment.all.peak
	Allocations       int64 // allocation.all.current: live blocks
	NumAllocRetries   int64 // num_alloc_retries: times every cached segment was released to retry
	NumOOMs           int64 // num_ooms
	NumDeviceAlloc    int64 // num_device_alloc: cudaMalloc calls and page mappings
	NumDeviceFree     int64 // num_device_free: cudaFree calls and page unmappings
}

type stat struct{ cur, peak int64 }

func (s *stat) inc(n int64) {
	s.cur += n
	if s.cur > s.peak {
		s.peak = s.cur
	}
}

func (s *stat) dec(n int64) { s.cur -= n }

func (s *stat) resetPeak() { s.peak = s.cur }

// block is a contiguous range of one segment: live, free and cached, or
// (expandable segments only) unmapped address space.
type block struct {
	addr, size int64
	requested  int64
	stream     Stream
	pool       *blockPool
	seg        *expSegment // nil for a cudaMalloc segment
	prev, next *block      // neighbours in the same segment
	allocated  bool
	mapped     bool

	// treap links while the block is in a pool's set (in names the set)
	left, right, parent *block
	key                 int64 // size in the free set, 0 in the unmapped set
	prio                uint32
	in                  uint8
}

func (b *block) isSplit() bool { return b.prev != nil || b.next != nil }

// expSegment is one expandable segment: a reserved virtual range mapped in
// pages of a fixed size.
type expSegment struct {
	base, size, page int64
}

const (
	inFree     = 1
	inUnmapped = 2
)

type blockPool struct {
	small    bool
	blocks   treap // free mapped blocks by (stream, size, addr)
	unmapped treap // unmapped expandable ranges by (stream, addr)
}

// Allocator is one device's caching allocator. It is not safe for
// concurrent use.
type Allocator struct {
	cfg      Config
	maxSplit int64 // MaxSplitSize, or MaxInt64 when unlimited
	expVirt  int64 // virtual size of an expandable segment

	small, large blockPool

	live  []*block // by BlockID; nil once freed
	zero  block    // stands for every live 0-byte request
	addrs addressSpace
	// baseAddr, when set (by tests replaying a recorded run), supplies the
	// base address of each new segment instead of addrs.
	baseAddr func(size int64) int64
	spare    []*block
	scratch  []*block

	allocated, reserved, requested, active stat
	inactiveSplit, inactiveSplitBlocks     stat
	segments, allocations                  stat
	numAllocRetries, numOOMs               int64
	numDeviceAlloc, numDeviceFree          int64
}

// New returns an empty allocator. It does not check cfg; call
// Config.Validate for PyTorch's own checks.
func New(cfg Config) *Allocator {
	a := &Allocator{cfg: cfg, maxSplit: math.MaxInt64, addrs: newAddressSpace()}
	if cfg.MaxSplitSize > 0 {
		a.maxSplit = cfg.MaxSplitSize
	}
	// PyTorch reserves 1 1/8 of the device's memory of address space per
	// expandable segment; capacity stands in for the device's memory.
	virt := int64(1) << 46
	if cfg.Capacity > 0 && cfg.Capacity < virt {
		virt = cfg.Capacity + cfg.Capacity/8
	}
	a.expVirt = (virt + LargeBuffer - 1) / LargeBuffer * LargeBuffer
	a.small = blockPool{small: true, blocks: newTreap(false, inFree, 0x9e3779b97f4a7c15),
		unmapped: newTreap(true, inUnmapped, 0xbf58476d1ce4e5b9)}
	a.large = blockPool{blocks: newTreap(false, inFree, 0x94d049bb133111eb),
		unmapped: newTreap(true, inUnmapped, 0x2545f4914f6cdd1d)}
	a.live = append(a.live, nil) // ids start at 1
	return a
}

// Config returns the configuration the allocator was created with.
func (a *Allocator) Config() Config { return a.cfg }

// RoundSize is PyTorch's round_size: the block size a request of size bytes
// occupies before any unsplit remainder is added.
func RoundSize(size int64, cfg Config) int64 {
	if size < MinBlockSize {
		return MinBlockSize
	}
	if d := int64(cfg.RoundupPower2Divisions); d > 1 && size > MinBlockSize*d {
		return roundupPower2NextDivision(size, d)
	}
	return (size + MinBlockSize - 1) / MinBlockSize * MinBlockSize
}

func roundupPower2NextDivision(size, divisions int64) int64 {
	if size&(size-1) == 0 {
		return size
	}
	floor := int64(1) << (63 - bits.LeadingZeros64(uint64(size)))
	step := floor >> (63 - bits.LeadingZeros64(uint64(divisions)))
	if step == 0 {
		return floor << 1
	}
	down := size &^ (step - 1)
	if down == size {
		return size
	}
	return down + step
}

// AllocationSize is PyTorch's get_allocation_size: the segment size
// obtained for a rounded request that finds no cached block.
func AllocationSize(rounded int64) int64 {
	switch {
	case rounded <= SmallSize:
		return SmallBuffer
	case rounded < MinLargeAlloc:
		return LargeBuffer
	default:
		return (rounded + RoundLarge - 1) / RoundLarge * RoundLarge
	}
}

type params struct {
	size      int64 // rounded request
	stream    Stream
	pool      *blockPool
	allocSize int64
	block     *block
}

// Malloc allocates size bytes on stream and returns the block's id. A
// 0-byte request gets a valid id that holds no memory (PyTorch hands out no
// block for it). When the capacity cannot hold the request even after the
// cache is released, it returns an *OOMError and counts it in NumOOMs.
func (a *Allocator) Malloc(size int64, stream Stream) (BlockID, error) {
	if size < 0 {
		return 0, fmt.Errorf("allocating on stream %d: %w", stream,
			&SizeError{Input: strconv.FormatInt(size, 10), Reason: "a request must be 0 or more bytes"})
	}
	if size == 0 {
		return a.register(&a.zero), nil
	}
	if size >= MaxRequest {
		return 0, &OOMError{Requested: size, AllocSize: size, Reserved: a.reserved.cur,
			Allocated: a.allocated.cur, Capacity: a.cfg.Capacity, Stream: stream}
	}
	rounded := RoundSize(size, a.cfg)
	p := params{size: rounded, stream: stream, pool: &a.large, allocSize: AllocationSize(rounded)}
	if rounded <= SmallSize {
		p.pool = &a.small
	}
	found := a.getFreeBlock(&p) ||
		a.allocBlock(&p, false) ||
		(a.releaseAvailableCachedBlocks(&p) && a.allocBlock(&p, false)) ||
		(a.releaseCachedBlocks() && a.allocBlock(&p, true))
	if !found {
		a.numOOMs++
		return 0, &OOMError{Requested: size, AllocSize: p.allocSize, Reserved: a.reserved.cur,
			Allocated: a.allocated.cur, Capacity: a.cfg.Capacity, Stream: stream}
	}
	b := a.allocFoundBlock(&p, size, a.shouldSplit(p.block, rounded))
	return a.register(b), nil
}

func (a *Allocator) register(b *block) BlockID {
	a.live = append(a.live, b)
	return BlockID(len(a.live) - 1)
}

// Free returns a block to the cache, merging it with free neighbours in its
// segment. Reserved memory does not shrink. Freeing an id twice, or one
// never handed out, returns a *BlockError.
func (a *Allocator) Free(id BlockID) error {
	if id <= 0 || int64(id) >= int64(len(a.live)) {
		return fmt.Errorf("freeing block %d: %w", id, &BlockError{ID: id})
	}
	b := a.live[id]
	if b == nil {
		return fmt.Errorf("freeing block %d: %w", id, &BlockError{ID: id, DoubleFree: true})
	}
	a.live[id] = nil
	if b == &a.zero {
		return nil
	}
	b.allocated = false
	a.allocations.dec(1)
	a.allocated.dec(b.size)
	a.freeBlock(b)
	return nil
}

// BlockSize returns the bytes a live block occupies: the rounded request,
// or the whole cached block when it was not split. It is 0 for a 0-byte
// request and for ids that are not live.
func (a *Allocator) BlockSize(id BlockID) int64 {
	if id <= 0 || int64(id) >= int64(len(a.live)) || a.live[id] == nil {
		return 0
	}
	return a.live[id].size
}

// EmptyCache releases every cached segment that holds no live block, and
// with expandable segments unmaps every page that holds none. It frees no
// live block and moves nothing.
func (a *Allocator) EmptyCache() { a.releaseCachedBlocks() }

// ResetPeakStats sets every peak to its current value.
func (a *Allocator) ResetPeakStats() {
	for _, s := range []*stat{&a.allocated, &a.reserved, &a.requested, &a.active,
		&a.inactiveSplit, &a.inactiveSplitBlocks, &a.segments, &a.allocations} {
		s.resetPeak()
	}
}

// Stats returns the current counters.
func (a *Allocator) Stats() Stats {
	return Stats{
		Allocated: a.allocated.cur, AllocatedPeak: a.allocated.peak,
		Reserved: a.reserved.cur, ReservedPeak: a.reserved.peak,
		Requested: a.requested.cur, RequestedPeak: a.requested.peak,
		Active: a.active.cur, ActivePeak: a.active.peak,
		InactiveSplit: a.inactiveSplit.cur, InactiveSplitPeak: a.inactiveSplit.peak,
		Segments: a.segments.cur, SegmentsPeak: a.segments.peak,
		Allocations:     a.allocations.cur,
		NumAllocRetries: a.numAllocRetries, NumOOMs: a.numOOMs,
		NumDeviceAlloc: a.numDeviceAlloc, NumDeviceFree: a.numDeviceFree,
	}
}

func (a *Allocator) newBlock(addr, size int64, stream Stream, pool *blockPool, seg *expSegment, mapped bool) *block {
	var b *block
	if n := len(a.spare); n > 0 {
		b = a.spare[n-1]
		a.spare = a.spare[:n-1]
		*b = block{}
	} else {
		b = new(block)
	}
	b.addr, b.size, b.stream, b.pool, b.seg, b.mapped = addr, size, stream, pool, seg, mapped
	return b
}

func (a *Allocator) recycle(b *block) {
	b.prev, b.next, b.pool, b.seg = nil, nil, nil, nil
	a.spare = append(a.spare, b)
}

// newAddr returns the base address of a new segment.
func (a *Allocator) newAddr(size int64) int64 {
	if a.baseAddr != nil {
		return a.baseAddr(size)
	}
	return a.addrs.alloc(size)
}

// getFreeBlock is get_free_block: best fit among cached blocks.
func (a *Allocator) getFreeBlock(p *params) bool {
	set := &p.pool.blocks
	b := set.lowerBound(p.stream, p.size, math.MinInt64)
	if b == nil || b.stream != p.stream {
		return false
	}
	if b.seg != nil {
		// For a block followed by unmapped space, best fit considers the
		// size it can grow to.
		for b.seg != nil {
			next := set.successor(b)
			if next == nil || next.stream != p.stream || expandableSize(next) >= expandableSize(b) {
				break
			}
			b = next
		}
	}
	if p.size < a.maxSplit && b.size >= a.maxSplit {
		return false // do not hand out an oversize block for a smaller request
	}
	if p.size >= a.maxSplit && b.size >= p.size+MaxNonSplitRounding {
		return false
	}
	set.remove(b)
	p.block = b
	return true
}

func expandableSize(b *block) int64 {
	if b.next != nil && !b.next.mapped {
		return b.size + b.next.size
	}
	return b.size
}

func (a *Allocator) shouldSplit(b *block, size int64) bool {
	remaining := b.size - size
	if b.pool.small || a.cfg.ExpandableSegments {
		return remaining >= MinBlockSize
	}
	return size < a.maxSplit && remaining > SmallSize
}

// allocBlock is alloc_block: a new segment, or new pages of an expandable
// segment.
func (a *Allocator) allocBlock(p *params, isRetry bool) bool {
	if isRetry {
		a.numAllocRetries++
	}
	if a.cfg.ExpandableSegments {
		p.block = a.tryAllocateExpandableBlock(p)
		return p.block != nil
	}
	if a.cfg.Capacity > 0 && a.reserved.cur+p.allocSize > a.cfg.Capacity {
		return false
	}
	p.block = a.newBlock(a.newAddr(p.allocSize), p.allocSize, p.stream, p.pool, nil, true)
	a.segments.inc(1)
	a.reserved.inc(p.allocSize)
	a.numDeviceAlloc++
	return true
}

// allocFoundBlock is alloc_found_block: split off the request if asked and
// account for it.
func (a *Allocator) allocFoundBlock(p *params, origSize int64, split bool) *block {
	b := p.block
	alreadySplit := b.isSplit()
	if split {
		rem := b
		b = a.newBlock(rem.addr, p.size, p.stream, p.pool, rem.seg, true)
		b.prev = rem.prev
		if b.prev != nil {
			b.prev.next = b
		}
		b.next = rem
		rem.prev = b
		rem.addr += p.size
		rem.size -= p.size
		p.pool.blocks.insert(rem)
		if b.seg == nil {
			if alreadySplit {
				a.inactiveSplit.dec(b.size)
			} else {
				a.inactiveSplit.inc(rem.size)
				a.inactiveSplitBlocks.inc(1)
			}
		}
	} else if alreadySplit && b.seg == nil {
		a.inactiveSplit.dec(b.size)
		a.inactiveSplitBlocks.dec(1)
	}
	b.allocated = true
	b.requested = origSize
	a.allocations.inc(1)
	a.allocated.inc(b.size)
	a.active.inc(b.size)
	a.requested.inc(origSize)
	return b
}

// freeBlock is free_block: merge with free neighbours and cache.
func (a *Allocator) freeBlock(b *block) {
	origSize, req := b.size, b.requested
	var netBlocks, netSize int64
	prev, next := b.prev, b.next
	for _, c := range [2]*block{prev, next} {
		if s := a.tryMergeBlocks(b, c); s > 0 {
			netBlocks--
			netSize -= s
		}
	}
	b.pool.blocks.insert(b)
	if b.isSplit() {
		netBlocks++
		netSize += b.size
	}
	if b.seg == nil {
		if netBlocks > 0 {
			a.inactiveSplitBlocks.inc(netBlocks)
		} else if netBlocks < 0 {
			a.inactiveSplitBlocks.dec(-netBlocks)
		}
		if netSize > 0 {
			a.inactiveSplit.inc(netSize)
		} else if netSize < 0 {
			a.inactiveSplit.dec(-netSize)
		}
	}
	a.active.dec(origSize)
	a.requested.dec(req)
}

// tryMergeBlocks merges src into dst when src is a free neighbour in the
// same mapping state; it returns the bytes gained. dst must not be in a set.
func (a *Allocator) tryMergeBlocks(dst, src *block) int64 {
	if src == nil || src.allocated || dst.mapped != src.mapped {
		return 0
	}
	if dst.prev == src {
		dst.addr = src.addr
		dst.prev = src.prev
		if dst.prev != nil {
			dst.prev.next = dst
		}
	} else {
		dst.next = src.next
		if dst.next != nil {
			dst.next.prev = dst
		}
	}
	dst.size += src.size
	if src.mapped {
		dst.pool.blocks.remove(src)
	} else {
		dst.pool.unmapped.remove(src)
	}
	n := src.size
	a.recycle(src)
	return n
}

// releaseAvailableCachedBlocks frees one cached oversize block large enough
// for the request, or else the largest oversize blocks until enough is
// freed. It applies only with MaxSplitSize set.
func (a *Allocator) releaseAvailableCachedBlocks(p *params) bool {
	if a.maxSplit == math.MaxInt64 {
		return false
	}
	set := &p.pool.blocks
	keySize := p.size
	if keySize < a.maxSplit {
		keySize = a.maxSplit
	}
	b := set.lowerBound(p.stream, keySize, math.MinInt64)
	if b != nil && b.stream == p.stream && b.seg == nil && !b.isSplit() {
		a.releaseBlock(b)
		return true
	}
	// No single block is large enough: free oversize blocks, largest first.
	cur := set.predecessor(p.stream, keySize, math.MinInt64)
	var released int64
	for cur != nil && released < keySize && cur.size >= a.maxSplit && cur.stream == p.stream {
		prev := set.predecessor(cur.stream, cur.size, cur.addr)
		if cur.seg == nil && !cur.isSplit() {
			released += cur.size
			a.releaseBlock(cur)
		}
		cur = prev
	}
	return released >= keySize
}

// releaseCachedBlocks is release_cached_blocks (empty_cache): free every
// unsplit cached segment, unmap every free page of expandable segments.
func (a *Allocator) releaseCachedBlocks() bool {
	a.releaseBlocks(&a.large)
	a.releaseBlocks(&a.small)
	return true
}

func (a *Allocator) releaseBlocks(pool *blockPool) {
	all := pool.blocks.appendAll(a.scratch[:0])
	toUnmap := all[:0]
	for _, b := range all {
		switch {
		case b.seg != nil:
			toUnmap = append(toUnmap, b)
		case !b.isSplit():
			a.releaseBlock(b)
		}
	}
	for _, b := range toUnmap {
		a.unmapBlock(b)
		if !b.mapped && !b.isSplit() {
			// the whole virtual range is unmapped: give it back
			if a.baseAddr == nil {
				a.addrs.release(b.addr, b.size)
			}
			pool.unmapped.remove(b)
			a.recycle(b)
		}
	}
	clear(all)
	a.scratch = all[:0]
}

// releaseBlock frees a cached, unsplit cudaMalloc segment.
func (a *Allocator) releaseBlock(b *block) {
	if a.baseAddr == nil {
		a.addrs.release(b.addr, b.size)
	}
	a.numDeviceFree++
	a.segments.dec(1)
	a.reserved.dec(b.size)
	b.pool.blocks.remove(b)
	a.recycle(b)
}

// findExpandableBlock returns the lowest-addressed free or unmapped block of
// the stream from which size bytes of free and unmapped space follow, or a
// new expandable segment.
func (a *Allocator) findExpandableBlock(p *params) *block {
	pool := p.pool
	for u := pool.unmapped.lowerBound(p.stream, 0, math.MinInt64); u != nil && u.stream == p.stream; u = pool.unmapped.successor(u) {
		c := u
		if c.prev != nil && !c.prev.allocated {
			c = c.prev
		}
		var have int64
		for b := c; have < p.size && b != nil && !b.allocated; b = b.next {
			have += b.size
		}
		if have >= p.size {
			return c
		}
	}
	page := LargeBuffer
	if pool.small {
		page = SmallBuffer
	}
	seg := &expSegment{size: a.expVirt, page: page}
	seg.base = a.newAddr(seg.size)
	c := a.newBlock(seg.base, seg.size, p.stream, pool, seg, false)
	pool.unmapped.insert(c)
	return c
}

// mapBlock maps the pages covering the first size bytes of an unmapped
// block and merges them with free mapped neighbours.
func (a *Allocator) mapBlock(b *block, size int64) bool {
	seg := b.seg
	begin := (b.addr - seg.base) / seg.page
	end := (b.addr + size - seg.base + seg.page - 1) / seg.page
	mapped := (end - begin) * seg.page
	if mapped == 0 || (a.cfg.Capacity > 0 && a.reserved.cur+mapped > a.cfg.Capacity) {
		return false
	}
	pool := b.pool
	pool.unmapped.remove(b)
	b.mapped = true
	if mapped < b.size {
		rem := a.newBlock(b.addr+mapped, b.size-mapped, b.stream, pool, seg, false)
		rem.prev, rem.next = b, b.next
		if b.next != nil {
			b.next.prev = rem
		}
		b.next = rem
		pool.unmapped.insert(rem)
		b.size = mapped
	}
	a.tryMergeBlocks(b, b.prev)
	a.tryMergeBlocks(b, b.next)
	pool.blocks.insert(b)
	a.reserved.inc(mapped)
	a.numDeviceAlloc++
	return true
}

func (a *Allocator) tryAllocateExpandableBlock(p *params) *block {
	c := a.findExpandableBlock(p)
	if !c.mapped && !a.mapBlock(c, min(c.size, p.size)) {
		return nil
	}
	for c.size < p.size {
		next := c.next
		if next == nil || next.mapped || !a.mapBlock(next, min(p.size-c.size, next.size)) {
			return nil
		}
		c = next
	}
	p.pool.blocks.remove(c)
	return c
}

// unmapBlock unmaps the whole pages inside a free expandable block.
func (a *Allocator) unmapBlock(b *block) {
	seg := b.seg
	begin := (b.addr - seg.base + seg.page - 1) / seg.page
	end := (b.addr + b.size - seg.base) / seg.page
	if begin >= end {
		return
	}
	pool := b.pool
	pool.blocks.remove(b)
	start := seg.base + begin*seg.page
	size := (end - begin) * seg.page
	if before := start - b.addr; before > 0 {
		f := a.newBlock(b.addr, before, b.stream, pool, seg, true)
		f.prev, f.next = b.prev, b
		if b.prev != nil {
			b.prev.next = f
		}
		b.prev = f
		pool.blocks.insert(f)
	}
	if after := b.addr + b.size - (start + size); after > 0 {
		f := a.newBlock(start+size, after, b.stream, pool, seg, true)
		f.prev, f.next = b, b.next
		if b.next != nil {
			b.next.prev = f
		}
		b.next = f
		pool.blocks.insert(f)
	}
	b.addr, b.size, b.mapped = start, size, false
	a.tryMergeBlocks(b, b.prev)
	a.tryMergeBlocks(b, b.next)
	pool.unmapped.insert(b)
	a.reserved.dec(size)
	a.numDeviceFree++
}
