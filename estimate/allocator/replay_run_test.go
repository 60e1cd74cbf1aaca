package allocator

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/memplan/memplan/internal/gztest"
)

// runTrace is a `memplan_probe.py --trace-run` trace: the allocator's
// segments before the first step and its events from there on.
type runTrace struct {
	marks   map[string]int
	initial []initialSegment
	events  []traceEvent
	// allocConf is the run's PYTORCH_CUDA_ALLOC_CONF ("" for the defaults).
	allocConf string
}

type initialSegment struct {
	addr, size int64
	small      bool
	blocks     []initialBlock
}

type initialBlock struct {
	size      int64
	allocated bool
}

type traceEvent struct {
	I      int    `json:"i"`
	Action string `json:"action"`
	Addr   int64  `json:"addr"`
	Size   int64  `json:"size"`
	Stream int64  `json:"stream"`
}

func readRunTrace(t *testing.T, path string) runTrace {
	t.Helper()
	dec := json.NewDecoder(gztest.Open(t, path))
	var head struct {
		Marks     map[string]int `json:"marks"`
		Initial   [][]any        `json:"initial_segments"`
		AllocConf *string        `json:"alloc_conf"`
	}
	if err := dec.Decode(&head); err != nil {
		t.Fatal(err)
	}
	if head.AllocConf == nil {
		t.Fatalf("%s: no alloc_conf in the header", path)
	}
	rt := runTrace{marks: head.Marks, allocConf: *head.AllocConf}
	for _, s := range head.Initial {
		seg := initialSegment{addr: int64(s[0].(float64)), size: int64(s[1].(float64)), small: s[3] == "small"}
		for _, b := range s[4].([]any) {
			bb := b.([]any)
			seg.blocks = append(seg.blocks, initialBlock{size: int64(bb[0].(float64)), allocated: bb[2].(bool)})
		}
		rt.initial = append(rt.initial, seg)
	}
	for dec.More() {
		var e traceEvent
		if err := dec.Decode(&e); err != nil {
			t.Fatal(err)
		}
		rt.events = append(rt.events, e)
	}
	return rt
}

// releases reports whether the run released a segment (a cache release
// before retrying an allocation at the device's limit).
func (rt runTrace) releases() bool {
	for _, e := range rt.events {
		if e.Action == "segment_free" || e.Action == "segment_unmap" {
			return true
		}
	}
	return false
}

// phaseAt names the phase an event falls in.
func (rt runTrace) phaseAt(i int) string {
	best, name := -1, "?"
	for n, at := range rt.marks {
		if at >= i && (best < 0 || at < best) {
			best, name = at, strings.TrimSuffix(n, "_end")
		}
	}
	return name
}

// replayRun rebuilds the allocator's state before the first step at the
// measured addresses (newAddressReplay), then replays every allocation and
// free of the trace, new segments taking the addresses the run's segments
// had. It returns "" when every block lands where PyTorch's did, else the
// first difference.
func replayRun(t *testing.T, rt runTrace) string {
	r := newAddressReplay(t, rt)
	if d := compareLayout(r.a, rt.initial); d != "" {
		return "rebuilding the state before the step: " + d
	}
	a := r.a
	live := map[int64]BlockID{}
	for i, e := range rt.events {
		switch e.Action {
		case "segment_alloc":
			r.bases = append(r.bases, e.Addr)
		case "alloc":
			id, err := a.Malloc(e.Size, Stream(e.Stream))
			if err != nil {
				return fmt.Sprintf("event %d (%s): alloc %d: %v", i, rt.phaseAt(i), e.Size, err)
			}
			b := a.liveBlock(id)
			if b == nil {
				continue
			}
			if b.addr != e.Addr || len(r.bases) != 0 {
				return fmt.Sprintf("event %d (%s): alloc %d went to %#x, PyTorch's to %#x (segments PyTorch made and the model did not: %d); free blocks of that size class: %s",
					i, rt.phaseAt(i), e.Size, b.addr, e.Addr, len(r.bases), freeBlocksNear(a, b.size))
			}
			live[e.Addr] = id
		case "free_requested":
			if id, ok := live[e.Addr]; ok {
				if err := a.Free(id); err != nil {
					t.Fatal(err)
				}
				delete(live, e.Addr)
			}
		case "segment_free", "segment_unmap":
			return fmt.Sprintf("event %d: PyTorch released a segment (%s)", i, e.Action)
		}
	}
	return ""
}

// compareLayout checks the rebuilt blocks against the snapshot's.
func compareLayout(a *Allocator, segs []initialSegment) string {
	type blk struct {
		addr, size int64
		allocated  bool
	}
	var got []blk
	for i := 1; i < len(a.blocks); i++ {
		b := &a.blocks[i]
		if b.size > 0 && (b.allocated || b.in == inFree) {
			got = append(got, blk{b.addr, b.size, b.allocated})
		}
	}
	sort.Slice(got, func(i, j int) bool { return got[i].addr < got[j].addr })
	var want []blk
	for _, s := range segs {
		at := s.addr
		for _, b := range s.blocks {
			want = append(want, blk{at, b.size, b.allocated})
			at += b.size
		}
	}
	for i := range max(len(got), len(want)) {
		if i >= len(got) || i >= len(want) || got[i] != want[i] {
			g, w := "(none)", "(none)"
			if i < len(got) {
				g = fmt.Sprintf("%+v", got[i])
			}
			if i < len(want) {
				w = fmt.Sprintf("%+v", want[i])
			}
			return fmt.Sprintf("block %d: rebuilt %s, snapshot %s", i, g, w)
		}
	}
	return ""
}

// freeBlocksNear lists cached blocks about the size of one, for messages.
func freeBlocksNear(a *Allocator, size int64) string {
	var out []string
	for i := 1; i < len(a.blocks); i++ {
		b := &a.blocks[i]
		if b.size > 0 && !b.allocated && b.in == inFree && b.size >= size/2 && b.size <= 4*size {
			out = append(out, fmt.Sprintf("%d@%#x", b.size, b.addr))
		}
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// TestReplayRunTraces replays whole measured runs (three steps, from the
// allocator's state before the first; testdata/measured/h200/runs) through
// the allocator model with PyTorch's own segment addresses: every block
// must land at the address PyTorch gave it.
func TestReplayRunTraces(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/measured/h200/runs/*.run.trace.jsonl.gz")
	if len(paths) == 0 {
		t.Skip("no run traces")
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".run.trace.jsonl.gz")
		t.Run(name, func(t *testing.T) {
			rt := readRunTrace(t, p)
			if rt.releases() {
				t.Skip("a run at its device's limit: PyTorch released cached segments to retry, which a replay without the capacity does not")
			}
			if diff := replayRun(t, rt); diff != "" {
				t.Error(diff)
			} else {
				t.Logf("%d events: every block where PyTorch put it", len(rt.events))
			}
		})
	}
}
