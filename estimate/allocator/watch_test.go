package allocator

import (
	"math/rand/v2"
	"testing"
)

// stepOp is one request of a random training-like step: an allocation
// freed after request free of the same run, or with carry of the next run
// (a gradient kept until the next step's zero_grad), or with keep never
// (optimizer state, made by the first run only).
type stepOp struct {
	size  int64
	free  int
	carry bool
	keep  bool
}

// randomStep draws a step of n allocations, with carried ones if carry,
// and of a few sizes only if few (so that blocks of one size tie).
func randomStep(r *rand.Rand, n int, carry, few bool) []stepOp {
	ops := make([]stepOp, n)
	for i := range ops {
		ops[i] = stepOp{size: randomSize(r), free: i + 1 + r.IntN(12)}
		if few {
			ops[i].size = []int64{300 << 10, 4 * MiB, 20 * MiB, 64 * MiB}[r.IntN(4)]
		}
		switch r.IntN(100) {
		case 0, 1, 2, 3, 4, 5, 6, 7, 8, 9:
			ops[i].keep = true
		case 10:
			if carry {
				ops[i].carry, ops[i].free = true, r.IntN(n)
			}
		}
	}
	return ops
}

// runStep replays the step on stream 0, freeing what the previous run
// carried over (by request index), and returns what it carries over and,
// after each allocation, the block's address and allocated and reserved.
// first marks the first run, whose kept allocations stay; later runs skip
// them.
func runStep(t *testing.T, a *Allocator, ops []stepOp, first bool, carried map[int][]BlockID) (carry map[int][]BlockID, addrs, allocated, reserved []int64) {
	t.Helper()
	free := func(ids []BlockID) {
		for _, id := range ids {
			if err := a.Free(id); err != nil {
				t.Fatal(err)
			}
		}
	}
	pending, carry := map[int][]BlockID{}, map[int][]BlockID{}
	for i, op := range ops {
		free(carried[i])
		if !op.keep || first {
			id, err := a.Malloc(op.size, 0)
			if err != nil {
				t.Fatal(err)
			}
			addr := int64(-1) // a 0-byte request holds no block
			if b := a.liveBlock(id); b != nil {
				addr = b.addr
			}
			addrs = append(addrs, addr)
			allocated, reserved = append(allocated, a.Allocated()), append(reserved, a.Reserved())
			switch {
			case op.carry:
				carry[op.free] = append(carry[op.free], id)
			case !op.keep:
				pending[op.free] = append(pending[op.free], id)
			}
		}
		free(pending[i])
		delete(pending, i)
	}
	for i := len(ops); len(pending) > 0; i++ {
		free(pending[i])
		delete(pending, i)
	}
	return carry, addrs, allocated, reserved
}

// When RepeatsFromCache says a watched step repeats from the cache it
// warmed, replaying the step again takes the same blocks and figures request
// for request with the reserve flat at the end state's, and leaves the
// allocator as it found it. Random steps in which the first run also makes
// state that stays (so that the second creates segments) put the check to
// work both ways.
func TestRepeatsFromCache(t *testing.T) {
	yes, no, carried := 0, 0, 0
	for seed := range uint64(1000) {
		r := rand.New(rand.NewPCG(seed, 7))
		ops := randomStep(r, 20+r.IntN(200), seed%2 == 1, seed%3 == 2)
		cfg := Config{}
		if seed%5 == 4 {
			cfg.RoundupPower2Divisions = 4
		}
		a := New(cfg)
		carry, _, _, _ := runStep(t, a, ops, true, nil)
		before := a.Fingerprint()
		a.WatchStep()
		carry, addr2, alloc2, _ := runStep(t, a, ops, false, carry)
		extra, ok := a.RepeatsFromCache()
		after := a.Fingerprint()
		if !ok {
			no++
			continue
		}
		if seed%2 == 1 {
			carried++
		}
		if after == before {
			t.Fatalf("seed %d: a repeat from the cache where the state did not change", seed)
		}
		yes++
		reserved := a.Reserved()
		_, addr3, alloc3, res3 := runStep(t, a, ops, false, carry)
		if a.Fingerprint() != after {
			t.Fatalf("seed %d: the third run left another state", seed)
		}
		for i := range alloc3 {
			if addr3[i] != addr2[i] || alloc3[i] != alloc2[i] || res3[i] != reserved {
				t.Fatalf("seed %d, request %d: block at %#x, allocated %d, reserved %d; want %#x, %d and %d", seed, i, addr3[i], alloc3[i], res3[i], addr2[i], alloc2[i], reserved)
			}
		}
		if extra <= 0 || extra > reserved {
			t.Fatalf("seed %d: %d bytes of created segments", seed, extra)
		}
	}
	t.Logf("%d repeats from the cache (%d with carried blocks), %d not", yes, carried, no)
	if yes < 20 || no < 20 || carried < 10 {
		t.Errorf("the draws do not test both answers: %d repeats, %d not", yes, no)
	}
}

// Without a watch, or with one whose step created nothing, there is no
// repeat from the cache to report.
func TestRepeatsFromCacheNeedsCreatedSegments(t *testing.T) {
	a := New(Config{})
	if _, ok := a.RepeatsFromCache(); ok {
		t.Error("a repeat without a watch")
	}
	id, _ := a.Malloc(MiB, 0)
	a.Free(id)
	a.WatchStep()
	id, _ = a.Malloc(MiB, 0)
	a.Free(id)
	if _, ok := a.RepeatsFromCache(); ok {
		t.Error("a repeat from a step that created no segment")
	}
}

// A step that frees a block made before it, or empties the cache, is not
// vouched for even when its state and choices pass: the comparison of
// states does not say which block holds which allocation, and an emptied
// cache would release the created segments on the next run.
func TestRepeatsFromCacheRefusesCarriedFreesAndEmptyCache(t *testing.T) {
	step := func(a *Allocator, carried BlockID, empty bool) bool {
		a.WatchStep()
		big, _ := a.Malloc(30*MiB, 0) // a new segment, free and whole at the end
		if carried != 0 {
			// The same block set as before: another 4 MiB takes its place.
			a.Free(carried)
			a.Malloc(4*MiB, 0)
		}
		if empty {
			a.EmptyCache()
		}
		a.Free(big)
		_, ok := a.RepeatsFromCache()
		return ok
	}
	if a := New(Config{}); !step(a, 0, false) {
		t.Fatal("a plain step that created one segment is not vouched for")
	}
	a := New(Config{})
	old, _ := a.Malloc(4*MiB, 0)
	if step(a, old, false) {
		t.Error("a step that freed a block made before it is vouched for")
	}
	if step(New(Config{}), 0, true) {
		t.Error("a step that emptied the cache is vouched for")
	}
}
