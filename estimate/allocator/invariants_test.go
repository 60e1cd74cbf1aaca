package allocator

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// checkInvariants walks every segment and checks that the allocator's
// counters agree with its blocks.
func checkInvariants(t testing.TB, a *Allocator) {
	t.Helper()
	s := a.Stats()
	for name, v := range map[string]int64{"Allocated": s.Allocated, "Reserved": s.Reserved,
		"Requested": s.Requested, "Active": s.Active, "InactiveSplit": s.InactiveSplit,
		"Segments": s.Segments, "Allocations": s.Allocations} {
		if v < 0 {
			t.Fatalf("%s is negative: %+v", name, s)
		}
	}
	if s.Allocated > s.Reserved || s.Active != s.Allocated || s.Requested > s.Allocated {
		t.Fatalf("counters disagree: %+v", s)
	}
	if s.AllocatedPeak < s.Allocated || s.ReservedPeak < s.Reserved || s.RequestedPeak < s.Requested ||
		s.ActivePeak < s.Active || s.SegmentsPeak < s.Segments || s.InactiveSplitPeak < s.InactiveSplit {
		t.Fatalf("a peak below its current value: %+v", s)
	}

	checkSets(t, a)
	member := map[*block]bool{}
	for _, p := range []*blockPool{&a.small, &a.large} {
		free := p.blocks.appendAll(nil)
		if len(free) != p.blocks.n {
			t.Fatalf("free set count %d, holds %d", p.blocks.n, len(free))
		}
		for i, b := range free {
			if b.in != inFree || b.allocated || !b.mapped || a.poolOf(b) != p {
				t.Fatalf("bad free block %+v", *b)
			}
			if i > 0 && !freeOrder(free[i-1], b) {
				t.Fatal("free set out of order")
			}
			member[b] = true
		}
		unmapped := p.unmapped.appendAll(nil)
		if len(unmapped) != p.unmapped.n {
			t.Fatalf("unmapped set count %d, holds %d", p.unmapped.n, len(unmapped))
		}
		for i, b := range unmapped {
			if i > 0 && (b.stream < unmapped[i-1].stream || b.stream == unmapped[i-1].stream && b.addr <= unmapped[i-1].addr) {
				t.Fatal("unmapped set out of order")
			}
			if b.in != inUnmapped || b.allocated || b.mapped || b.seg == 0 || a.poolOf(b) != p {
				t.Fatalf("bad unmapped block %+v", *b)
			}
			member[b] = true
		}
	}
	var allocated, requested, liveCount int64
	for id := range a.live {
		b := a.liveBlock(BlockID(id))
		if b == nil {
			continue
		}
		if !b.allocated || b.in != 0 || member[b] {
			t.Fatalf("bad live block %+v", *b)
		}
		member[b] = true
		allocated += b.size
		requested += b.requested
		liveCount++
	}
	if allocated != s.Allocated || requested != s.Requested || liveCount != s.Allocations {
		t.Fatalf("live blocks hold %d bytes (%d requested, %d blocks), counters say %+v",
			allocated, requested, liveCount, s)
	}
	spare := map[int32]bool{}
	for _, i := range a.spare {
		if spare[i] || member[a.blk(i)] {
			t.Fatalf("recycled block %d is in use or recycled twice", i)
		}
		spare[i] = true
	}
	if n := len(member) + len(spare) + 1; n != len(a.blocks) {
		t.Fatalf("%d blocks in use, %d recycled, %d made", len(member), len(spare), len(a.blocks)-1)
	}

	var reserved, segments, inactive int64
	visited := map[*block]bool{}
	for b := range member {
		if visited[b] {
			continue
		}
		if b != a.blk(b.self) {
			t.Fatalf("block %+v is not at its index", *b)
		}
		head := b
		for head.prev != 0 {
			head = a.blk(head.prev)
		}
		var total, free int64
		n, live := 0, 0
		for x := head; x != nil; x = a.at(x.next) {
			if visited[x] || !member[x] {
				t.Fatalf("block %+v reached twice or not accounted for", *x)
			}
			visited[x] = true
			n++
			if x.allocated {
				live++
			}
			if next := a.at(x.next); next != nil {
				if next.prev != x.self || next.addr != x.addr+x.size || next.seg != x.seg ||
					next.stream != x.stream || next.small != x.small {
					t.Fatalf("segment chain broken at %+v", *x)
				}
				if !x.allocated && !next.allocated && x.mapped == next.mapped {
					t.Fatalf("adjacent free blocks not merged: %+v %+v", *x, *next)
				}
			}
			if x.size <= 0 {
				t.Fatalf("empty block %+v", *x)
			}
			total += x.size
			if x.mapped {
				reserved += x.size
				if !x.allocated {
					free += x.size
				}
			}
		}
		if head.seg == 0 {
			segments++
			if n > 1 {
				inactive += free
			}
		} else if seg := a.segs[head.seg]; head.addr != seg.base || total != seg.size {
			t.Fatalf("expandable segment covers %d bytes from %d, want %d from %d",
				total, head.addr, seg.size, seg.base)
		}
		_ = live
	}
	if reserved != s.Reserved || segments != s.Segments || inactive != s.InactiveSplit {
		t.Fatalf("segments hold reserved %d, %d segments, inactive split %d; counters say %+v",
			reserved, segments, inactive, s)
	}
}

// liveBlock returns the block of a live id, or nil (0-byte requests, ids
// not live).
func (a *Allocator) liveBlock(id BlockID) *block {
	if id <= 0 || int(id) >= len(a.live) || a.live[id] <= 0 {
		return nil
	}
	return a.blk(a.live[id])
}

// checkSets checks the structure of every pool set: per-stream sets in
// stream order, each with its keys ascending, each key with a bucket of its
// own, buckets in descending address order whose entries name blocks with
// their key, address and stream, and the counts of members and of empty
// buckets right.
func checkSets(t testing.TB, a *Allocator) {
	t.Helper()
	for _, p := range []*blockPool{&a.small, &a.large} {
		for _, ps := range []*poolSet{&p.blocks, &p.unmapped} {
			n := 0
			for i, s := range ps.sets {
				if i > 0 && ps.sets[i-1].stream >= s.stream {
					t.Fatal("stream sets out of order")
				}
				used := map[int32]bool{}
				count, empty := 0, 0
				for k, sk := range s.keys {
					key := sk.key
					if k > 0 && s.keys[k-1].key >= key {
						t.Fatalf("keys out of order: %v", s.keys)
					}
					if used[sk.b] {
						t.Fatalf("bucket %d has two keys", sk.b)
					}
					used[sk.b] = true
					e := s.buckets[sk.b].e
					if len(e) == 0 {
						empty++
					}
					for j, x := range e {
						if j > 0 && e[j-1].addr <= x.addr {
							t.Fatalf("bucket of key %d out of order: %v", key, e)
						}
						b := a.blk(x.id)
						if b.addr != x.addr || ps.key(b) != key || b.stream != s.stream || b.in != ps.tag || b.bucket != sk.b {
							t.Fatalf("entry %+v of key %d names block %+v", x, key, *b)
						}
					}
					count += len(e)
				}
				for _, u := range s.unused {
					if used[u] || len(s.buckets[u].e) != 0 {
						t.Fatalf("unused bucket %d is in use", u)
					}
				}
				if len(used)+len(s.unused) != len(s.buckets) {
					t.Fatalf("%d buckets used, %d unused, %d made", len(used), len(s.unused), len(s.buckets))
				}
				for _, sk := range s.keys {
					if bi, _ := s.bucketOf(sk.key); bi != sk.b || s.buckets[sk.b].key != sk.key {
						t.Fatalf("key %d: bucketOf finds bucket %d, not %d", sk.key, bi, sk.b)
					}
				}
				if n := len(s.keys); s.index == nil && n > indexFrom || s.index != nil && 2*n > len(s.index) {
					t.Fatalf("index of %d slots for %d keys", len(s.index), n)
				}
				if count != s.n || empty != s.empty {
					t.Fatalf("stream set counts %d (%d empty buckets), holds %d (%d)", s.n, s.empty, count, empty)
				}
				n += count
			}
			if n != ps.n {
				t.Fatalf("pool set counts %d, holds %d", ps.n, n)
			}
		}
	}
}

// freeOrder is the order of free blocks: by stream, size, address.
func freeOrder(x, y *block) bool {
	if x.stream != y.stream {
		return x.stream < y.stream
	}
	if x.size != y.size {
		return x.size < y.size
	}
	return x.addr < y.addr
}

// checkReleasedWhole checks, after EmptyCache, that no cached segment and
// no mapped expandable page is left without a live block.
func checkReleasedWhole(t testing.TB, a *Allocator) {
	t.Helper()
	for _, p := range []*blockPool{&a.small, &a.large} {
		for _, b := range p.blocks.appendAll(nil) {
			if b.seg == 0 && !b.isSplit() {
				t.Fatalf("empty segment of %d bytes survived EmptyCache", b.size)
			}
			if b.seg != 0 {
				seg := a.segs[b.seg]
				first := (b.addr - seg.base + seg.page - 1) / seg.page
				last := (b.addr + b.size - seg.base) / seg.page
				if first < last {
					t.Fatalf("free page survived EmptyCache in %+v", *b)
				}
			}
		}
	}
}

func randomSize(r *rand.Rand) int64 {
	switch x := r.IntN(100); {
	case x < 4:
		return []int64{0, 1, 511, 512, 513, MiB, MiB + 1, 10*MiB - 1, 10 * MiB, 20 * MiB}[r.IntN(10)]
	case x < 35:
		return 1 + r.Int64N(MiB)
	case x < 75:
		return MiB + r.Int64N(10*MiB)
	case x < 85:
		return int64(1+r.IntN(64)) * MiB
	default:
		return 10*MiB + r.Int64N(300*MiB)
	}
}

func invariantConfigs() []Config {
	return []Config{
		{},
		{ExpandableSegments: true},
		{MaxSplitSize: 64 * MiB},
		{RoundupPower2Divisions: 4},
		{Capacity: 1 << 30},
		{Capacity: 1 << 30, MaxSplitSize: 40 * MiB},
		{Capacity: 1 << 30, ExpandableSegments: true, RoundupPower2Divisions: 2},
	}
}

// TestInvariantsRandom drives random sequences on several streams under
// several configurations and checks the allocator's books after each step.
func TestInvariantsRandom(t *testing.T) {
	steps := 3000
	if testing.Short() {
		steps = 500
	}
	for ci, cfg := range invariantConfigs() {
		r := rand.New(rand.NewPCG(uint64(ci), 42))
		a := New(cfg)
		var live []BlockID
		for i := 0; i < steps; i++ {
			switch x := r.IntN(100); {
			case x < 2:
				a.EmptyCache()
				checkReleasedWhole(t, a)
			case x < 4:
				a.ResetPeakStats()
			case x < 50 && len(live) > 0:
				k := r.IntN(len(live))
				if err := a.Free(live[k]); err != nil {
					t.Fatal(err)
				}
				live[k] = live[len(live)-1]
				live = live[:len(live)-1]
			default:
				id, err := a.Malloc(randomSize(r), Stream(r.IntN(3)))
				var oe *OOMError
				if errors.As(err, &oe) {
					if cfg.Capacity == 0 || oe.Reserved > cfg.Capacity {
						t.Fatalf("unexpected OOM %v", err)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				live = append(live, id)
			}
			checkInvariants(t, a)
			if cfg.Capacity > 0 && a.Stats().Reserved > cfg.Capacity {
				t.Fatalf("reserved %d above capacity %d", a.Stats().Reserved, cfg.Capacity)
			}
		}
		for _, id := range live {
			if err := a.Free(id); err != nil {
				t.Fatal(err)
			}
		}
		s := a.Stats()
		if s.Allocated != 0 || s.Requested != 0 || s.InactiveSplit != 0 || s.Allocations != 0 {
			t.Fatalf("config %+v: after freeing everything %+v", cfg, s)
		}
		a.EmptyCache()
		if s := a.Stats(); s.Reserved != 0 || s.Segments != 0 {
			t.Fatalf("config %+v: after EmptyCache %+v", cfg, s)
		}
		checkInvariants(t, a)
	}
}

func TestFreeErrors(t *testing.T) {
	a := New(Config{})
	id, _ := a.Malloc(100, 0)
	zero, _ := a.Malloc(0, 0)
	if a.BlockSize(zero) != 0 || a.Stats().Allocations != 1 {
		t.Fatalf("0-byte request must cost nothing: %+v", a.Stats())
	}
	for _, x := range []BlockID{id, zero} {
		if err := a.Free(x); err != nil {
			t.Fatal(err)
		}
		var be *BlockError
		if err := a.Free(x); !errors.As(err, &be) || !be.DoubleFree {
			t.Fatalf("double free of %d: %v", x, err)
		}
	}
	for _, x := range []BlockID{0, -1, 1000} {
		var be *BlockError
		if err := a.Free(x); !errors.As(err, &be) || be.DoubleFree {
			t.Fatalf("unknown id %d: %v", x, err)
		}
	}
	var se *SizeError
	if _, err := a.Malloc(-1, 0); !errors.As(err, &se) {
		t.Fatalf("negative size: %v", err)
	}
	var oe *OOMError
	if _, err := a.Malloc(MaxRequest, 0); !errors.As(err, &oe) {
		t.Fatalf("1 EiB: %v", err)
	}
	if a.Stats().NumOOMs != 0 {
		t.Fatal("an over-1EB request is refused before the OOM path")
	}
	if a.BlockSize(id) != 0 {
		t.Fatal("freed block has a size")
	}
}

// TestOOMPath: a request that does not fit first releases every cached
// unsplit segment and retries (num_alloc_retries), then fails.
func TestOOMPath(t *testing.T) {
	a := New(Config{Capacity: 100 * MiB})
	var ids []BlockID
	for i := 0; i < 3; i++ {
		id, err := a.Malloc(30*MiB, 0)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	_ = a.Free(ids[0])
	_ = a.Free(ids[1])
	if _, err := a.Malloc(40*MiB, 0); err != nil {
		t.Fatalf("40 MiB should fit once the cache is released: %v", err)
	}
	s := a.Stats()
	if s.NumAllocRetries != 1 || s.NumOOMs != 0 || s.Reserved != 70*MiB || s.Segments != 2 {
		t.Fatalf("after the retry: %+v", s)
	}
	_, err := a.Malloc(40*MiB, 0)
	var oe *OOMError
	if !errors.As(err, &oe) {
		t.Fatalf("want an OOMError, got %v", err)
	}
	want := OOMError{Requested: 40 * MiB, AllocSize: 40 * MiB, Reserved: 70 * MiB,
		Allocated: 70 * MiB, Capacity: 100 * MiB}
	if *oe != want {
		t.Fatalf("got %+v, want %+v", *oe, want)
	}
	if s := a.Stats(); s.NumOOMs != 1 || s.NumAllocRetries != 2 {
		t.Fatalf("counters after OOM: %+v", s)
	}
	t.Log(err)
	checkInvariants(t, a)

	// With max_split_size set, one cached oversize block large enough is
	// released first, without counting a retry.
	b := New(Config{Capacity: 200 * MiB, MaxSplitSize: 40 * MiB})
	x, _ := b.Malloc(50*MiB, 0)
	y, _ := b.Malloc(60*MiB, 0)
	if _, err := b.Malloc(80*MiB, 0); err != nil {
		t.Fatal(err)
	}
	_ = b.Free(x)
	_ = b.Free(y)
	if _, err := b.Malloc(25*MiB, 0); err != nil {
		t.Fatal(err)
	}
	if s := b.Stats(); s.Reserved != (60+80+26)*MiB || s.NumAllocRetries != 0 || s.Segments != 3 {
		t.Fatalf("release_available_cached_blocks: %+v", s)
	}
	checkInvariants(t, b)

	// Expandable segments map pages only as far as the capacity allows.
	c := New(Config{Capacity: 60 * MiB, ExpandableSegments: true})
	if _, err := c.Malloc(50*MiB, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Malloc(15*MiB, 0); !errors.As(err, &oe) {
		t.Fatalf("want OOM, got %v", err)
	}
	if s := c.Stats(); s.Reserved != 60*MiB || s.NumAllocRetries != 1 || s.NumOOMs != 1 {
		t.Fatalf("expandable OOM: %+v", s)
	}
	checkInvariants(t, c)
}

func TestRoundSize(t *testing.T) {
	for _, tc := range []struct {
		size, div, want int64
	}{
		{0, 0, 512}, {1, 0, 512}, {512, 0, 512}, {513, 0, 1024}, {MiB + 1, 0, MiB + 512},
		// PyTorch's comment rounds 1200 to 1280 with 4 divisions, but its
		// code applies divisions only above 512*divisions bytes.
		{1200, 4, 1536}, {5000, 4, 5120}, {1200, 1, 1536}, {2048, 4, 2048}, {6200, 4, 7168}, {7000, 4, 7168},
		{(1 << 30) + 1, 4, 1<<30 + 1<<28}, {100 * MiB, 2, 128 * MiB}, {96 * MiB, 2, 96 * MiB},
		{2049, 8, 2560}, {4097, 8, 4608}, {4000, 8, 4096}, {4096, 8, 4096},
	} {
		if got := RoundSize(tc.size, Config{RoundupPower2Divisions: int(tc.div)}); got != tc.want {
			t.Errorf("RoundSize(%d, %d) = %d, want %d", tc.size, tc.div, got, tc.want)
		}
	}
	for _, tc := range [][2]int64{{512, SmallBuffer}, {MiB, SmallBuffer}, {MiB + 512, LargeBuffer},
		{10*MiB - 512, LargeBuffer}, {10 * MiB, 10 * MiB}, {21 * MiB, 22 * MiB}} {
		if got := AllocationSize(tc[0]); got != tc[1] {
			t.Errorf("AllocationSize(%d) = %d, want %d", tc[0], got, tc[1])
		}
	}
}

func TestConfig(t *testing.T) {
	cfg, err := ParseAllocConf("expandable_segments:True, max_split_size_mb:512,roundup_power2_divisions:4,garbage_collection_threshold:0.6")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Config{ExpandableSegments: true, MaxSplitSize: 512 * MiB, RoundupPower2Divisions: 4}); cfg != want {
		t.Fatalf("got %+v", cfg)
	}
	for _, bad := range []string{"expandable_segments:yes", "max_split_size_mb:20", "roundup_power2_divisions:3",
		"backend:cudaMallocAsync", "bogus:1", "max_split_size_mb"} {
		var ce *ConfigError
		if _, err := ParseAllocConf(bad); !errors.As(err, &ce) {
			t.Errorf("%q: want a ConfigError, got %v", bad, err)
		}
	}
	for _, c := range []Config{{MaxSplitSize: 20 * MiB}, {RoundupPower2Divisions: 6}, {Capacity: -1}} {
		if err := c.Validate(); err == nil {
			t.Errorf("%+v should not validate", c)
		}
	}
	if err := (Config{MaxSplitSize: 21 * MiB, RoundupPower2Divisions: 8}).Validate(); err != nil {
		t.Error(err)
	}
}

// FuzzAllocator decodes operations from bytes (4 per operation) and checks
// the allocator's books after each.
func FuzzAllocator(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 1, 2, 3, 4, 200, 0, 0, 1})
	f.Add([]byte{1, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160})
	f.Add([]byte{5, 255, 255, 255, 7, 1, 1, 1, 128, 128, 128, 128, 3, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		cfgs := invariantConfigs()
		a := New(cfgs[int(data[0])%len(cfgs)])
		var live []BlockID
		data = data[1:]
		for len(data) >= 4 {
			op := binary.LittleEndian.Uint32(data)
			data = data[4:]
			switch kind := op & 15; {
			case kind == 0:
				a.EmptyCache()
				checkReleasedWhole(t, a)
			case kind == 1:
				a.ResetPeakStats()
			case kind < 7 && len(live) > 0:
				k := int(op>>4) % len(live)
				if err := a.Free(live[k]); err != nil {
					t.Fatal(err)
				}
				live = append(live[:k], live[k+1:]...)
			default:
				// sizes from 0 to 1 GiB, log-spread
				size := int64(op >> 9)
				if sh := (op >> 4) & 15; sh < 8 {
					size >>= sh
				} else {
					size <<= sh - 8
				}
				id, err := a.Malloc(size, Stream(op>>30))
				var oe *OOMError
				if errors.As(err, &oe) {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				live = append(live, id)
			}
			checkInvariants(t, a)
		}
		for _, id := range live {
			if err := a.Free(id); err != nil {
				t.Fatal(err)
			}
		}
		a.EmptyCache()
		if s := a.Stats(); s.Allocated != 0 || s.Reserved != 0 || s.Segments != 0 || s.InactiveSplit != 0 {
			t.Fatalf("not empty at the end: %+v", s)
		}
		checkInvariants(t, a)
	})
}

// BenchmarkMallocFree replays 100k mixed events (about half mallocs, half
// frees, a few empty_cache) with sizes like a training step's.
func BenchmarkMallocFree(b *testing.B) {
	const events = 100_000
	type ev struct {
		kind int // 0 malloc, 1 free, 2 empty
		size int64
		slot int
	}
	r := rand.New(rand.NewPCG(1, 2))
	evs := make([]ev, 0, events)
	liveN := 0
	for len(evs) < events {
		x := r.IntN(1000)
		switch {
		case x < 2:
			evs = append(evs, ev{kind: 2})
		case x < 480 && liveN > 0 || liveN > 3000:
			evs = append(evs, ev{kind: 1, slot: r.IntN(liveN)})
			liveN--
		default:
			evs = append(evs, ev{kind: 0, size: randomSize(r)})
			liveN++
		}
	}
	for _, cfg := range []Config{{}, {ExpandableSegments: true}} {
		name := "default"
		if cfg.ExpandableSegments {
			name = "expandable"
		}
		b.Run(name, func(b *testing.B) {
			live := make([]BlockID, 0, 4096)
			for b.Loop() {
				a := New(cfg)
				live = live[:0]
				for _, e := range evs {
					switch e.kind {
					case 0:
						id, err := a.Malloc(e.size, 0)
						if err != nil {
							b.Fatal(err)
						}
						live = append(live, id)
					case 1:
						if err := a.Free(live[e.slot]); err != nil {
							b.Fatal(err)
						}
						live[e.slot] = live[len(live)-1]
						live = live[:len(live)-1]
					case 2:
						a.EmptyCache()
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
		})
	}
}

// trainingEvents builds the event pattern of training steps of a
// transformer-like stack: parameters, forward activations and temporaries,
// backward in reverse with gradients, optimizer state and temporaries, and
// zero_grad. Each event is a size to allocate (>= 0) or -(1+i) to free the
// block allocated by event i.
func trainingEvents(layers int, hidden, tokens int64, iters int) []int64 {
	var ev []int64
	alloc := func(n int64) int64 { ev = append(ev, n); return int64(len(ev) - 1) }
	free := func(i int64) { ev = append(ev, -(1 + i)) }
	paramSizes := []int64{hidden * hidden * 2 * 3, hidden * hidden * 2, hidden * 4 * hidden * 2 * 2,
		hidden * 4 * hidden * 2, hidden * 2, hidden * 2}
	for l := 0; l < layers; l++ {
		for _, n := range paramSizes {
			alloc(n)
		}
	}
	act := tokens * hidden * 2
	for it := 0; it < iters; it++ {
		var saved [][]int64
		for l := 0; l < layers; l++ {
			tmp := alloc(act * 3)
			q, k, v := alloc(act), alloc(act), alloc(act)
			free(tmp)
			o, lse := alloc(act), alloc(tokens*4*32)
			h := alloc(act * 4)
			g := alloc(act * 4)
			r := alloc(tokens * 4)
			saved = append(saved, []int64{q, k, v, o, lse, h, g, r})
		}
		var grads []int64
		for l := layers - 1; l >= 0; l-- {
			t1, t2 := alloc(act*4), alloc(act)
			for _, n := range paramSizes {
				grads = append(grads, alloc(n))
			}
			for _, s := range saved[l] {
				free(s)
			}
			free(t1)
			free(t2)
		}
		if it == 0 {
			for l := 0; l < layers; l++ {
				for _, n := range paramSizes {
					alloc(n * 2)
					alloc(n * 2)
				}
			}
		}
		var temps []int64
		for l := 0; l < layers; l++ {
			for _, n := range paramSizes {
				temps = append(temps, alloc(n*2))
			}
		}
		for _, x := range temps {
			free(x)
		}
		for _, x := range grads {
			free(x)
		}
	}
	return ev
}

// BenchmarkTrainingSteps replays two training steps of a 126-layer,
// 16384-wide stack (Llama-405B's shape) with 4096 tokens.
func BenchmarkTrainingSteps(b *testing.B) {
	ev := trainingEvents(126, 16384, 4096, 2)
	ids := make([]BlockID, len(ev))
	for _, cfg := range []Config{{}, {ExpandableSegments: true}} {
		name := "default"
		if cfg.ExpandableSegments {
			name = "expandable"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				a := New(cfg)
				for i, e := range ev {
					if e >= 0 {
						id, err := a.Malloc(e, 0)
						if err != nil {
							b.Fatal(err)
						}
						ids[i] = id
					} else if err := a.Free(ids[-e-1]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ev)), "ns/event")
			b.ReportMetric(float64(len(ev)), "events")
		})
	}
}

// Without a capacity the allocator still stops where no device exists and
// its counts would near int64's end, and says so; a single request of 2^60
// bytes or more is refused as PyTorch refuses it.
func TestUnlimitedHasAnEnd(t *testing.T) {
	a := New(Config{})
	for i := 0; i < 8; i++ {
		if _, err := a.Malloc(1<<59, 0); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if _, err := a.Malloc(1<<59, 0); err == nil || !strings.Contains(err.Error(), "more than 2^62 bytes, beyond any device") {
		t.Errorf("past 2^62 reserved: %v", err)
	}
	if _, err := New(Config{}).Malloc(MaxRequest, 0); err == nil || !strings.Contains(err.Error(), "PyTorch refuses a single allocation of 2^60 bytes or more") {
		t.Errorf("2^60: %v", err)
	}
}
