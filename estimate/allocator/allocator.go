package allocator

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
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
	// RoundupPower2DivisionsBySize is roundup_power2_divisions' list form
	// ("[256:1,512:2,>:8]", ParseRoundupDivisions): entry i holds for
	// requests of [2^i, 2^(i+1)) MiB, the first also below 1 MiB, the last
	// from 32 GiB on. When any entry is set it replaces
	// RoundupPower2Divisions.
	RoundupPower2DivisionsBySize [RoundupIntervals]int
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
	for i, d := range c.RoundupPower2DivisionsBySize {
		if d < 0 || d&(d-1) != 0 {
			return &ConfigError{Field: "RoundupPower2DivisionsBySize", Reason: fmt.Sprintf(
				"entry %d is %d: must be 0 (off) or a power of two", i, d)}
		}
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

// raise adds n to a counter and keeps its peak.
func raise(cur, peak *int64, n int64) {
	*cur += n
	if *cur > *peak {
		*peak = *cur
	}
}

// block is a contiguous range of one segment: live, free and cached, or
// (expandable segments only) unmapped address space. Blocks live in one
// slice of the allocator and refer to each other by index (0: none), so
// they hold no pointers: the garbage collector neither scans them nor puts
// write barriers on their updates. The slice moves when it grows, so a
// *block must not be kept across newBlock: keep the index.
type block struct {
	addr, size int64
	requested  int64
	stream     Stream
	prev, next int32 // neighbours in the same segment
	seg        int32 // expandable segment (index in Allocator.segs); 0 for a cudaMalloc segment
	self       int32 // this block's index
	bucket     int32 // the bucket holding it while it is in a pool set
	small      bool  // in the small pool
	allocated  bool
	mapped     bool
	in         uint8 // the pool set holding it (inFree, inUnmapped), or 0
}

func (b *block) isSplit() bool { return b.prev != 0 || b.next != 0 }

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
	blocks   poolSet // free mapped blocks by (stream, size, addr)
	unmapped poolSet // unmapped expandable ranges by (stream, addr)
}

// zeroBlock is the live entry of a 0-byte request, which holds no block.
const zeroBlock int32 = -1

// Allocator is one device's caching allocator. It is not safe for
// concurrent use.
type Allocator struct {
	cfg      Config
	divs     divisionTable // cfg's roundup_power2_divisions by size range
	maxSplit int64         // MaxSplitSize, or MaxInt64 when unlimited
	expVirt  int64         // virtual size of an expandable segment

	small, large blockPool

	live    []int32      // block index by BlockID; 0 once freed, zeroBlock for a 0-byte request
	blocks  []block      // by index; index 0 is unused
	spare   []int32      // indices of recycled blocks
	segs    []expSegment // expandable segments by index; index 0 is unused
	oldSegs []int32      // indices of segments given back
	addrs   addressSpace
	// baseAddr, when set (by tests replaying a recorded run), supplies the
	// base address of each new segment instead of addrs.
	baseAddr func(size int64) int64
	scratch  []int32
	// moveBlocks (tests) moves every block at each newBlock and spoils
	// the old copies, so that a *block kept across it shows.
	moveBlocks bool

	watch               stepWatch // WatchStep's notes
	st                  Stats     // the counters, as Stats returns them
	inactiveSplitBlocks int64     // inactive_split.all.current (not reported)
}

// New returns an empty allocator. It does not check cfg; call
// Config.Validate for PyTorch's own checks.
func New(cfg Config) *Allocator {
	a := &Allocator{addrs: newAddressSpace(),
		blocks: make([]block, 1, 256), segs: make([]expSegment, 1), live: make([]int32, 1, 256)}
	a.configure(cfg)
	for i, pool := range []*blockPool{&a.small, &a.large} {
		pool.small = i == 0
		pool.blocks = poolSet{a: a, tag: inFree}
		pool.unmapped = poolSet{a: a, byAddr: true, tag: inUnmapped}
	}
	return a
}

// configure sets cfg and what follows from it: the divisions by size, the
// oversize threshold and the expandable segments' virtual size.
func (a *Allocator) configure(cfg Config) {
	a.cfg, a.divs, a.maxSplit = cfg, cfg.divisionTable(), math.MaxInt64
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
}

// SetCapacity sets the device capacity (0: unlimited) of an allocator that
// has not allocated yet. The expandable segments' address space stays what
// it was: a capacity that stands for what the process may use of a device
// (less what lies outside the allocator) must not move the segments'
// layout, which follows the whole device's size.
func (a *Allocator) SetCapacity(capacity int64) {
	if len(a.blocks) > 1 {
		panic("allocator: SetCapacity after the first allocation")
	}
	virt := a.expVirt
	cfg := a.cfg
	cfg.Capacity = capacity
	a.configure(cfg)
	a.expVirt = virt
}

// Config returns the configuration the allocator was created with.
func (a *Allocator) Config() Config { return a.cfg }

// RoundSize is PyTorch's round_size: the block size a request of size bytes
// occupies before any unsplit remainder is added.
func RoundSize(size int64, cfg Config) int64 {
	divs := cfg.divisionTable()
	return divs.roundSize(size)
}

// roundSize is RoundSize with the divisions resolved once.
func (t *divisionTable) roundSize(size int64) int64 {
	if size < MinBlockSize {
		return MinBlockSize
	}
	if d := t.of(size); d > 1 && size > MinBlockSize*d {
		return roundupPower2NextDivision(size, d)
	}
	return (size + MinBlockSize - 1) / MinBlockSize * MinBlockSize
}

// RoundupIntervals is how many size ranges roundup_power2_divisions sets
// apart (PyTorch's kRoundUpPowerOfTwoIntervals: 1 MiB to 64 GiB).
const RoundupIntervals = 16

// divisionTable is roundup_power2_divisions for each size range, the
// single value copied into every range when no list is set.
type divisionTable [RoundupIntervals]int64

// divisionTable resolves the configuration's divisions once, so rounding a
// request reads one entry.
func (c Config) divisionTable() divisionTable {
	var t divisionTable
	list := c.RoundupPower2DivisionsBySize != ([RoundupIntervals]int{})
	for i := range t {
		t[i] = int64(c.RoundupPower2Divisions)
		if list {
			t[i] = int64(c.RoundupPower2DivisionsBySize[i])
		}
	}
	return t
}

// of is roundup_power2_divisions for a request of size bytes
// (CUDAAllocatorConfig::roundup_power2_divisions).
func (t *divisionTable) of(size int64) int64 {
	return t[min(max(bits.Len64(uint64(size))-1-20, 0), RoundupIntervals-1)]
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
		return a.register(zeroBlock), nil
	}
	if size >= MaxRequest {
		return 0, &OOMError{Requested: size, AllocSize: size, Reserved: a.st.Reserved,
			Allocated: a.st.Allocated, Capacity: a.cfg.Capacity, Stream: stream}
	}
	rounded := a.divs.roundSize(size)
	p := params{size: rounded, stream: stream, pool: &a.large, allocSize: AllocationSize(rounded)}
	if rounded <= SmallSize {
		p.pool = &a.small
	}
	devAllocs := a.st.NumDeviceAlloc
	found := a.getFreeBlock(&p) ||
		a.allocBlock(&p, false) ||
		(a.releaseAvailableCachedBlocks(&p) && a.allocBlock(&p, false)) ||
		(a.releaseCachedBlocks() && a.allocBlock(&p, true))
	if !found {
		a.st.NumOOMs++
		return 0, &OOMError{Requested: size, AllocSize: p.allocSize, Reserved: a.st.Reserved,
			Allocated: a.st.Allocated, Capacity: a.cfg.Capacity, Stream: stream}
	}
	if a.watch.on {
		a.watch.note(&p, a.st.NumDeviceAlloc != devAllocs)
	}
	b := a.allocFoundBlock(&p, size, a.shouldSplit(p.block, rounded))
	return a.register(b.self), nil
}

func (a *Allocator) register(i int32) BlockID {
	if len(a.live) == cap(a.live) {
		a.live = slices.Grow(a.live, len(a.live)) // double: append grows large slices by a quarter
	}
	a.live = append(a.live, i)
	return BlockID(len(a.live) - 1)
}

// Free returns a block to the cache, merging it with free neighbours in its
// segment. Reserved memory does not shrink. Freeing an id twice, or one
// never handed out, returns a *BlockError.
func (a *Allocator) Free(id BlockID) error {
	if id <= 0 || int64(id) >= int64(len(a.live)) {
		return fmt.Errorf("freeing block %d: %w", id, &BlockError{ID: id})
	}
	i := a.live[id]
	if i == 0 {
		return fmt.Errorf("freeing block %d: %w", id, &BlockError{ID: id, DoubleFree: true})
	}
	a.live[id] = 0
	if a.watch.on && id < a.watch.firstID {
		a.watch.broken = true
	}
	if i == zeroBlock {
		return nil
	}
	b := a.blk(i)
	b.allocated = false
	a.st.Allocations--
	a.st.Allocated -= b.size
	a.freeBlock(b)
	return nil
}

// BlockSize returns the bytes a live block occupies: the rounded request,
// or the whole cached block when it was not split. It is 0 for a 0-byte
// request and for ids that are not live.
func (a *Allocator) BlockSize(id BlockID) int64 {
	if id <= 0 || int64(id) >= int64(len(a.live)) {
		return 0
	}
	if i := a.live[id]; i > 0 {
		return a.blk(i).size
	}
	return 0
}

// Requested returns the bytes a live block was asked for (before rounding),
// 0 for a 0-byte request and for ids that are not live.
func (a *Allocator) Requested(id BlockID) int64 {
	if id <= 0 || int64(id) >= int64(len(a.live)) {
		return 0
	}
	if i := a.live[id]; i > 0 {
		return a.blk(i).requested
	}
	return 0
}

// EmptyCache releases every cached segment that holds no live block, and
// with expandable segments unmaps every page that holds none. It frees no
// live block and moves nothing.
func (a *Allocator) EmptyCache() {
	a.watch.broken = a.watch.broken || a.watch.on
	a.releaseCachedBlocks()
}

// ResetPeakStats sets every peak to its current value.
func (a *Allocator) ResetPeakStats() {
	s := &a.st
	s.AllocatedPeak, s.ReservedPeak, s.RequestedPeak = s.Allocated, s.Reserved, s.Requested
	s.ActivePeak, s.InactiveSplitPeak, s.SegmentsPeak = s.Active, s.InactiveSplit, s.Segments
}

// Stats returns the current counters.
func (a *Allocator) Stats() Stats { return a.st }

// Allocated is Stats().Allocated without copying the counters.
func (a *Allocator) Allocated() int64 { return a.st.Allocated }

// Reserved is Stats().Reserved without copying the counters.
func (a *Allocator) Reserved() int64 { return a.st.Reserved }

// blk returns block i (i > 0).
func (a *Allocator) blk(i int32) *block { return &a.blocks[i] }

// at returns block i, or nil for 0.
func (a *Allocator) at(i int32) *block {
	if i == 0 {
		return nil
	}
	return a.blk(i)
}

func (a *Allocator) poolOf(b *block) *blockPool {
	if b.small {
		return &a.small
	}
	return &a.large
}

func (a *Allocator) newBlock(addr, size int64, stream Stream, pool *blockPool, seg int32, mapped bool) *block {
	if a.moveBlocks {
		old := a.blocks
		a.blocks = append([]block(nil), old...)
		for i := range old {
			old[i] = block{addr: -1, size: -1, prev: -1, next: -1, seg: -1, self: -1}
		}
	}
	var i int32
	if n := len(a.spare); n > 0 {
		i = a.spare[n-1]
		a.spare = a.spare[:n-1]
	} else {
		i = int32(len(a.blocks))
		if len(a.blocks) == cap(a.blocks) {
			a.blocks = slices.Grow(a.blocks, len(a.blocks))
		}
		a.blocks = append(a.blocks, block{})
	}
	b := a.blk(i)
	b.addr, b.size, b.requested, b.stream = addr, size, 0, stream
	b.prev, b.next, b.seg, b.self, b.bucket = 0, 0, seg, i, 0
	b.small, b.allocated, b.mapped, b.in = pool.small, false, mapped, 0
	return b
}

func (a *Allocator) recycle(b *block) {
	b.prev, b.next, b.seg = 0, 0, 0
	a.spare = append(a.spare, b.self)
}

// KernelsStarted tells the address model that the run's first kernel has
// launched: the CUDA driver then hands out the window of its first chunk
// (notes/addresses.md, session 15).
func (a *Allocator) KernelsStarted() { a.addrs.openWindow() }

// LibraryMapped tells the address model that the CUDA driver mapped bytes
// of library kernels, loaded lazily, in its window: a window being filled
// downward loses them at its top, where the next segment would have gone
// (probe/module_addresses.py). Before the first kernel, and in a window
// filled upward, nothing changes (not measured).
func (a *Allocator) LibraryMapped(bytes int64) { a.addrs.libraryMapped(bytes) }

// newAddr returns the base address of a new segment.
func (a *Allocator) newAddr(size int64) int64 {
	if a.baseAddr != nil {
		return a.baseAddr(size)
	}
	return a.addrs.alloc(size)
}

// getFreeBlock is get_free_block: best fit among cached blocks.
func (a *Allocator) getFreeBlock(p *params) bool {
	ps := &p.pool.blocks
	set := ps.set(p.stream)
	if set == nil {
		return false
	}
	at := set.lowerBound(p.size, math.MinInt64)
	if !set.valid(at) {
		return false
	}
	b := a.blk(set.id(at))
	if b.seg != 0 && a.expandableSize(b) > b.size {
		// For a block followed by unmapped space, best fit considers the
		// size it can grow to. (Any other block is the best fit: those
		// after it are no smaller, and can grow no less.)
		for b.seg != 0 {
			nextAt := set.next(at)
			if !set.valid(nextAt) {
				break
			}
			next := a.blk(set.id(nextAt))
			if a.expandableSize(next) >= a.expandableSize(b) {
				break
			}
			b, at = next, nextAt
		}
	}
	if p.size < a.maxSplit && b.size >= a.maxSplit {
		return false // do not hand out an oversize block for a smaller request
	}
	if p.size >= a.maxSplit && b.size >= p.size+MaxNonSplitRounding {
		return false
	}
	ps.removeAt(set, at, b)
	p.block = b
	return true
}

func (a *Allocator) expandableSize(b *block) int64 {
	if b.next != 0 {
		if next := a.blk(b.next); !next.mapped {
			return b.size + next.size
		}
	}
	return b.size
}

func (a *Allocator) shouldSplit(b *block, size int64) bool {
	remaining := b.size - size
	if b.small || a.cfg.ExpandableSegments {
		return remaining >= MinBlockSize
	}
	return size < a.maxSplit && remaining > SmallSize
}

// allocBlock is alloc_block: a new segment, or new pages of an expandable
// segment.
func (a *Allocator) allocBlock(p *params, isRetry bool) bool {
	if isRetry {
		a.st.NumAllocRetries++
	}
	if a.cfg.ExpandableSegments {
		p.block = a.tryAllocateExpandableBlock(p)
		return p.block != nil
	}
	if !a.canReserve(p.allocSize) {
		return false
	}
	p.block = a.newBlock(a.newAddr(p.allocSize), p.allocSize, p.stream, p.pool, 0, true)
	raise(&a.st.Segments, &a.st.SegmentsPeak, 1)
	raise(&a.st.Reserved, &a.st.ReservedPeak, p.allocSize)
	a.st.NumDeviceAlloc++
	return true
}

// MaxReserved bounds what an allocator without a capacity reserves: past
// 2^62 bytes no device exists and the counts would near int64's end.
const MaxReserved int64 = 1 << 62

// canReserve reports whether n more bytes may be reserved: within the
// capacity, or MaxReserved when there is none.
func (a *Allocator) canReserve(n int64) bool {
	limit := a.cfg.Capacity
	if limit <= 0 {
		limit = MaxReserved
	}
	return a.st.Reserved+n <= limit
}

// allocFoundBlock is alloc_found_block: split off the request if asked and
// account for it.
func (a *Allocator) allocFoundBlock(p *params, origSize int64, split bool) *block {
	b := p.block
	alreadySplit := b.isSplit()
	if split {
		ri := b.self
		b = a.newBlock(b.addr, p.size, p.stream, p.pool, b.seg, true)
		rem := a.blk(ri)
		b.prev = rem.prev
		if b.prev != 0 {
			a.blk(b.prev).next = b.self
		}
		b.next = rem.self
		rem.prev = b.self
		rem.addr += p.size
		rem.size -= p.size
		p.pool.blocks.insert(rem)
		if b.seg == 0 {
			if alreadySplit {
				a.st.InactiveSplit -= b.size
			} else {
				raise(&a.st.InactiveSplit, &a.st.InactiveSplitPeak, rem.size)
				a.inactiveSplitBlocks++
			}
		}
	} else if alreadySplit && b.seg == 0 {
		a.st.InactiveSplit -= b.size
		a.inactiveSplitBlocks--
	}
	b.allocated = true
	b.requested = origSize
	a.st.Allocations++
	raise(&a.st.Allocated, &a.st.AllocatedPeak, b.size)
	raise(&a.st.Active, &a.st.ActivePeak, b.size)
	raise(&a.st.Requested, &a.st.RequestedPeak, origSize)
	return b
}

// freeBlock is free_block: merge with free neighbours and cache.
func (a *Allocator) freeBlock(b *block) {
	origSize, req := b.size, b.requested
	var netBlocks, netSize int64
	prev, next := a.at(b.prev), a.at(b.next)
	for _, c := range [2]*block{prev, next} {
		if s := a.tryMergeBlocks(b, c); s > 0 {
			netBlocks--
			netSize -= s
		}
	}
	a.poolOf(b).blocks.insert(b)
	if b.isSplit() {
		netBlocks++
		netSize += b.size
	}
	if b.seg == 0 {
		a.inactiveSplitBlocks += netBlocks
		raise(&a.st.InactiveSplit, &a.st.InactiveSplitPeak, netSize)
	}
	a.st.Active -= origSize
	a.st.Requested -= req
}

// tryMergeBlocks merges src into dst when src is a free neighbour in the
// same mapping state; it returns the bytes gained. dst must not be in a set.
func (a *Allocator) tryMergeBlocks(dst, src *block) int64 {
	if src == nil || src.allocated || dst.mapped != src.mapped {
		return 0
	}
	if dst.prev == src.self {
		dst.addr = src.addr
		dst.prev = src.prev
		if dst.prev != 0 {
			a.blk(dst.prev).next = dst.self
		}
	} else {
		dst.next = src.next
		if dst.next != 0 {
			a.blk(dst.next).prev = dst.self
		}
	}
	dst.size += src.size
	if src.mapped {
		a.poolOf(dst).blocks.remove(src)
	} else {
		a.poolOf(dst).unmapped.remove(src)
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
	ps := &p.pool.blocks
	set := ps.set(p.stream)
	if set == nil {
		return false
	}
	keySize := p.size
	if keySize < a.maxSplit {
		keySize = a.maxSplit
	}
	at := set.lowerBound(keySize, math.MinInt64)
	if set.valid(at) {
		if b := a.blk(set.id(at)); b.seg == 0 && !b.isSplit() {
			a.releaseBlock(b)
			return true
		}
	}
	// No single block is large enough: free oversize blocks, largest first.
	at, ok := set.prev(at)
	var released int64
	for ok {
		cur := a.blk(set.id(at))
		if released >= keySize || cur.size < a.maxSplit {
			break
		}
		var prev *block
		at, ok = set.prev(at)
		if ok {
			prev = a.blk(set.id(at))
		}
		if cur.seg == 0 && !cur.isSplit() {
			released += cur.size
			a.releaseBlock(cur)
			if ok {
				at = set.find(prev.size, prev.addr) // positions move on removal
			}
		}
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
	all := pool.blocks.appendIDs(a.scratch[:0])
	toUnmap := all[:0]
	for _, i := range all {
		switch b := a.blk(i); {
		case b.seg != 0:
			toUnmap = append(toUnmap, i)
		case !b.isSplit():
			a.releaseBlock(b)
		}
	}
	for _, i := range toUnmap {
		a.unmapBlock(i)
		if b := a.blk(i); !b.mapped && !b.isSplit() {
			// the whole virtual range is unmapped: give it back
			if a.baseAddr == nil {
				a.addrs.release(b.addr, b.size)
			}
			pool.unmapped.remove(b)
			a.oldSegs = append(a.oldSegs, b.seg)
			a.recycle(b)
		}
	}
	a.scratch = all[:0]
}

// releaseBlock frees a cached, unsplit cudaMalloc segment.
func (a *Allocator) releaseBlock(b *block) {
	if a.baseAddr == nil {
		a.addrs.release(b.addr, b.size)
	}
	a.st.NumDeviceFree++
	a.st.Segments--
	a.st.Reserved -= b.size
	a.poolOf(b).blocks.remove(b)
	a.recycle(b)
}

// findExpandableBlock returns the lowest-addressed free or unmapped block of
// the stream from which size bytes of free and unmapped space follow, or a
// new expandable segment.
func (a *Allocator) findExpandableBlock(p *params) *block {
	pool := p.pool
	if set := pool.unmapped.set(p.stream); set != nil {
		for at := set.lowerBound(0, math.MinInt64); set.valid(at); at = set.next(at) {
			c := a.blk(set.id(at))
			if prev := a.at(c.prev); prev != nil && !prev.allocated {
				c = prev
			}
			var have int64
			for b := c; have < p.size && b != nil && !b.allocated; b = a.at(b.next) {
				have += b.size
			}
			if have >= p.size {
				return c
			}
		}
	}
	page := LargeBuffer
	if pool.small {
		page = SmallBuffer
	}
	seg := expSegment{size: a.expVirt, page: page}
	seg.base = a.newAddr(seg.size)
	var si int32
	if n := len(a.oldSegs); n > 0 {
		si = a.oldSegs[n-1]
		a.oldSegs = a.oldSegs[:n-1]
		a.segs[si] = seg
	} else {
		si = int32(len(a.segs))
		a.segs = append(a.segs, seg)
	}
	c := a.newBlock(seg.base, seg.size, p.stream, pool, si, false)
	pool.unmapped.insert(c)
	return c
}

// mapBlock maps the pages covering the first size bytes of unmapped block
// bi and merges them with free mapped neighbours.
func (a *Allocator) mapBlock(bi int32, size int64) bool {
	b := a.blk(bi)
	seg := a.segs[b.seg]
	begin := (b.addr - seg.base) / seg.page
	end := (b.addr + size - seg.base + seg.page - 1) / seg.page
	mapped := (end - begin) * seg.page
	if mapped == 0 || !a.canReserve(mapped) {
		return false
	}
	pool := a.poolOf(b)
	pool.unmapped.remove(b)
	b.mapped = true
	if mapped < b.size {
		rem := a.newBlock(b.addr+mapped, b.size-mapped, b.stream, pool, b.seg, false)
		b = a.blk(bi)
		rem.prev, rem.next = b.self, b.next
		if b.next != 0 {
			a.blk(b.next).prev = rem.self
		}
		b.next = rem.self
		pool.unmapped.insert(rem)
		b.size = mapped
	}
	a.tryMergeBlocks(b, a.at(b.prev))
	a.tryMergeBlocks(b, a.at(b.next))
	pool.blocks.insert(b)
	raise(&a.st.Reserved, &a.st.ReservedPeak, mapped)
	a.st.NumDeviceAlloc++
	return true
}

func (a *Allocator) tryAllocateExpandableBlock(p *params) *block {
	c := a.findExpandableBlock(p)
	ci := c.self
	if !c.mapped && !a.mapBlock(ci, min(c.size, p.size)) {
		return nil
	}
	for c = a.blk(ci); c.size < p.size; c = a.blk(ci) {
		next := a.at(c.next)
		if next == nil || next.mapped {
			return nil
		}
		ni := next.self
		if !a.mapBlock(ni, min(p.size-c.size, next.size)) {
			return nil
		}
		ci = ni
	}
	p.pool.blocks.remove(c)
	return c
}

// unmapBlock unmaps the whole pages inside free expandable block bi.
func (a *Allocator) unmapBlock(bi int32) {
	b := a.blk(bi)
	seg := a.segs[b.seg]
	begin := (b.addr - seg.base + seg.page - 1) / seg.page
	end := (b.addr + b.size - seg.base) / seg.page
	if begin >= end {
		return
	}
	pool := a.poolOf(b)
	pool.blocks.remove(b)
	start := seg.base + begin*seg.page
	size := (end - begin) * seg.page
	if before := start - b.addr; before > 0 {
		f := a.newBlock(b.addr, before, b.stream, pool, b.seg, true)
		b = a.blk(bi)
		f.prev, f.next = b.prev, b.self
		if b.prev != 0 {
			a.blk(b.prev).next = f.self
		}
		b.prev = f.self
		pool.blocks.insert(f)
	}
	if after := b.addr + b.size - (start + size); after > 0 {
		f := a.newBlock(start+size, after, b.stream, pool, b.seg, true)
		b = a.blk(bi)
		f.prev, f.next = b.self, b.next
		if b.next != 0 {
			a.blk(b.next).prev = f.self
		}
		b.next = f.self
		pool.blocks.insert(f)
	}
	b.addr, b.size, b.mapped = start, size, false
	a.tryMergeBlocks(b, a.at(b.prev))
	a.tryMergeBlocks(b, a.at(b.next))
	pool.unmapped.insert(b)
	a.st.Reserved -= size
	a.st.NumDeviceFree++
}
