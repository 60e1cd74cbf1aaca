package allocator

import (
	"reflect"
	"testing"
)

// TestSegments: the memory map lists every segment by address with its
// blocks in order — live ones with what they were asked for, free ones
// with 0 — for both pools.
func TestSegments(t *testing.T) {
	a := New(Config{})
	big, _ := a.Malloc(3<<20, 0) // a 20 MiB segment: 3 MiB taken, 17 free
	a.Malloc(1000, 0)            // a 2 MiB small segment: 1024 taken
	a.Malloc(5<<20, 0)           // after the first 3 MiB
	if err := a.Free(big); err != nil {
		t.Fatal(err)
	}
	segs := a.Segments()
	if len(segs) != 2 {
		t.Fatalf("%d segments, want 2: %+v", len(segs), segs)
	}
	var large, sm Segment
	for _, s := range segs {
		if s.Small {
			sm = s
		} else {
			large = s
		}
	}
	if segs[0].Addr >= segs[1].Addr {
		t.Errorf("segments not by address: %#x, %#x", segs[0].Addr, segs[1].Addr)
	}
	wantLarge := []SegmentBlock{{Size: 3 << 20}, {Size: 5 << 20, Requested: 5 << 20, Allocated: true}, {Size: 12 << 20}}
	if large.Size != LargeBuffer || !reflect.DeepEqual(large.Blocks, wantLarge) {
		t.Errorf("large segment %d bytes, blocks %+v; want %d, %+v", large.Size, large.Blocks, LargeBuffer, wantLarge)
	}
	wantSmall := []SegmentBlock{{Size: 1024, Requested: 1000, Allocated: true}, {Size: SmallBuffer - 1024}}
	if sm.Size != SmallBuffer || !reflect.DeepEqual(sm.Blocks, wantSmall) {
		t.Errorf("small segment %d bytes, blocks %+v; want %d, %+v", sm.Size, sm.Blocks, SmallBuffer, wantSmall)
	}
}
