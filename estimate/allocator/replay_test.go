package allocator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memplan/memplan/internal/gztest"
)

const MiB = 1 << 20

// torchStats are the counters of torch.cuda.memory_stats() that the probe
// files record.
type torchStats struct {
	AllocCur      int64 `json:"allocated_bytes.all.current"`
	AllocPeak     int64 `json:"allocated_bytes.all.peak"`
	ResCur        int64 `json:"reserved_bytes.all.current"`
	ResPeak       int64 `json:"reserved_bytes.all.peak"`
	ReqCur        int64 `json:"requested_bytes.all.current"`
	ReqPeak       int64 `json:"requested_bytes.all.peak"`
	ActivePeak    int64 `json:"active_bytes.all.peak"`
	InactiveSplit int64 `json:"inactive_split_bytes.all.current"`
	SegCur        int64 `json:"segment.all.current"`
	SegPeak       int64 `json:"segment.all.peak"`
	Retries       int64 `json:"num_alloc_retries"`
	OOMs          int64 `json:"num_ooms"`
}

func (w torchStats) diff(s Stats) string {
	got := torchStats{s.Allocated, s.AllocatedPeak, s.Reserved, s.ReservedPeak, s.Requested,
		s.RequestedPeak, s.ActivePeak, s.InactiveSplit, s.Segments, s.SegmentsPeak,
		s.NumAllocRetries, s.NumOOMs}
	if got == w {
		return ""
	}
	return fmt.Sprintf("\n got  %+v\n want %+v", got, w)
}

type probeStep struct {
	Op    string `json:"op"`
	Key   string `json:"key"`
	Bytes int64  `json:"bytes"`
	torchStats
}

// orderedSequences decodes a JSON object of named step lists, keeping the
// order of the file (the sequences ran one after another).
func orderedSequences(t *testing.T, raw json.RawMessage) (names []string, seqs [][]probeStep) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var steps []probeStep
		if err := dec.Decode(&steps); err != nil {
			t.Fatal(err)
		}
		names = append(names, tok.(string))
		seqs = append(seqs, steps)
	}
	return names, seqs
}

// TestProbeAllocator replays every step of the H200 probe
// (validation/h200/probe-allocator.json) in one allocator, as it ran: peaks
// stay sticky across steps.
func TestProbeAllocator(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "probe-allocator.json"))
	if err != nil {
		t.Fatal(err)
	}
	var probe struct {
		Single    []probeStep     `json:"single"`
		Sequences json.RawMessage `json:"sequences"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		t.Fatal(err)
	}
	a := New(Config{})
	for _, st := range probe.Single {
		id, err := a.Malloc(st.Bytes, 0)
		if err != nil {
			t.Fatal(err)
		}
		if d := st.diff(a.Stats()); d != "" {
			t.Errorf("single %d bytes:%s", st.Bytes, d)
		}
		if err := a.Free(id); err != nil {
			t.Fatal(err)
		}
		a.EmptyCache()
	}
	names, seqs := orderedSequences(t, probe.Sequences)
	if len(seqs) != 4 {
		t.Fatalf("want 4 sequences, got %d", len(seqs))
	}
	for i, steps := range seqs {
		live := map[string]BlockID{}
		for j, st := range steps {
			switch st.Op {
			case "alloc":
				id, err := a.Malloc(st.Bytes, 0)
				if err != nil {
					t.Fatal(err)
				}
				live[st.Key] = id
			case "free":
				if err := a.Free(live[st.Key]); err != nil {
					t.Fatal(err)
				}
				delete(live, st.Key)
			default:
				t.Fatalf("unknown op %q", st.Op)
			}
			if d := st.diff(a.Stats()); d != "" {
				t.Errorf("%s step %d (%s %s %d):%s", names[i], j, st.Op, st.Key, st.Bytes, d)
			}
		}
		for _, id := range live {
			if err := a.Free(id); err != nil {
				t.Fatal(err)
			}
		}
		a.EmptyCache()
	}
}

// TestSeed is the design card's example: a 4 MiB tensor sits in a 20 MiB
// segment.
func TestSeed(t *testing.T) {
	a := New(Config{})
	if _, err := a.Malloc(1024*1024*4, 0); err != nil {
		t.Fatal(err)
	}
	s := a.Stats()
	if s.Allocated != 4*MiB || s.Reserved != 20*MiB || s.Segments != 1 || s.InactiveSplit != 16*MiB {
		t.Fatalf("got %+v", s)
	}
}

// TestExpandableSegments: 3, 30 and 45 MiB. PyTorch 2.11 on the H200 read
// 80 MiB reserved with expandable segments (20 MiB pages, one growing
// range) and 96 MiB without (20 + 30 + 46); see testdata/torchprobe.py,
// sequences "3-30-45*". PYTORCH-MEMORY.md quotes 98 MiB for the latter,
// which exact 3/30/45 MiB requests do not give (an extra 2 MiB small
// segment would).
func TestExpandableSegments(t *testing.T) {
	for _, tc := range []struct {
		expandable               bool
		reserved, allocated, seg int64
	}{
		{true, 80 * MiB, 78 * MiB, 0},
		{false, 96 * MiB, 79 * MiB, 3},
	} {
		a := New(Config{ExpandableSegments: tc.expandable})
		var ids []BlockID
		for _, n := range []int64{3 * MiB, 30 * MiB, 45 * MiB} {
			id, err := a.Malloc(n, 0)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		s := a.Stats()
		if s.Reserved != tc.reserved || s.Allocated != tc.allocated || s.Segments != tc.seg {
			t.Errorf("expandable=%v: reserved %d MiB allocated %d MiB segments %d, want %d, %d, %d",
				tc.expandable, s.Reserved/MiB, s.Allocated/MiB, s.Segments,
				tc.reserved/MiB, tc.allocated/MiB, tc.seg)
		}
		for _, id := range ids {
			if err := a.Free(id); err != nil {
				t.Fatal(err)
			}
		}
		a.EmptyCache()
		if s := a.Stats(); s.Reserved != 0 || s.Segments != 0 {
			t.Errorf("expandable=%v: after empty_cache %+v", tc.expandable, s)
		}
		checkInvariants(t, a)
	}
}

type torchSequence struct {
	Name     string            `json:"name"`
	Conf     string            `json:"conf"`
	Ops      []json.RawMessage `json:"ops"`
	Capacity int64             `json:"capacity"`
	Stats    [][]int64         `json:"stats"`
	OOM      []int             `json:"oom"`
	Ptrs     []int64           `json:"ptrs"`
	Torch    string            `json:"torch"`
}

type torchFile struct {
	Keys      []string        `json:"keys"`
	Sequences []torchSequence `json:"sequences"`
}

// torchFiles lists the recorded sets: torch-sequences.json.gz, and
// torch-heldout.json.gz where it was recorded.
func torchFiles(t *testing.T) []string {
	t.Helper()
	names := []string{"torch-sequences.json.gz"}
	if _, err := os.Stat(filepath.Join("testdata", "torch-heldout.json.gz")); err == nil {
		names = append(names, "torch-heldout.json.gz")
	}
	return names
}

func loadTorchFile(t *testing.T, name string) torchFile {
	t.Helper()
	zr := gztest.Open(t, filepath.Join("testdata", name))
	var file torchFile
	if err := json.NewDecoder(zr).Decode(&file); err != nil {
		t.Fatal(err)
	}
	if len(file.Keys) != 14 || len(file.Sequences) == 0 {
		t.Fatalf("%s: unexpected layout: %v", name, file.Keys)
	}
	return file
}

// replayResult summarises a replay against a recorded sequence.
type replayResult struct {
	firstBad, bad      int    // first differing step (-1: none), differing steps
	maxReservedDiff    int64  // largest |reserved - PyTorch's reserved|
	maxReservedPeakErr int64  // largest |reserved peak - PyTorch's|
	report             string // the first differences, for the log
}

// replayTorch replays seq. With realAddrs, each new segment gets the base
// address PyTorch's allocation got, and every block's address is checked
// too; otherwise the synthetic address space is used.
func replayTorch(t *testing.T, keys []string, seq torchSequence, realAddrs bool) replayResult {
	t.Helper()
	cfg, err := ParseAllocConf(seq.Conf)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Capacity = seq.Capacity
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	a := New(cfg)
	step := 0
	if realAddrs {
		a.baseAddr = func(int64) int64 { return seq.Ptrs[step] }
	}
	res := replayResult{firstBad: -1}
	var rep strings.Builder
	live := map[string]BlockID{}
	for i, raw := range seq.Ops {
		step = i
		var op []any
		if err := json.Unmarshal(raw, &op); err != nil {
			t.Fatal(err)
		}
		oom, addrBad := 0, false
		switch op[0] {
		case "a":
			id, err := a.Malloc(int64(op[2].(float64)), Stream(op[3].(float64)))
			var oe *OOMError
			switch {
			case errors.As(err, &oe):
				oom = 1
			case err != nil:
				t.Fatal(err)
			default:
				live[op[1].(string)] = id
				if b := a.liveBlock(id); realAddrs && b != nil && b.addr != seq.Ptrs[i] {
					addrBad = true
					fmt.Fprintf(&rep, "step %d %s: block at %#x, PyTorch's at %#x\n", i, raw, b.addr, seq.Ptrs[i])
				}
			}
		case "f":
			if id, ok := live[op[1].(string)]; ok {
				if err := a.Free(id); err != nil {
					t.Fatal(err)
				}
				delete(live, op[1].(string))
			}
		case "e":
			a.EmptyCache()
		case "r":
			a.ResetPeakStats()
		default:
			t.Fatalf("unknown op %s", raw)
		}
		s := a.Stats()
		got := []int64{s.Allocated, s.AllocatedPeak, s.Reserved, s.ReservedPeak,
			s.Requested, s.RequestedPeak, s.Active, s.ActivePeak, s.InactiveSplit,
			s.InactiveSplitPeak, s.Segments, s.SegmentsPeak, s.NumAllocRetries, s.NumOOMs}
		want := seq.Stats[i]
		res.maxReservedDiff = max(res.maxReservedDiff, abs(s.Reserved-want[2]))
		res.maxReservedPeakErr = max(res.maxReservedPeakErr, abs(s.ReservedPeak-want[3]))
		if oom != seq.OOM[i] || addrBad || !slices.Equal(got, want) {
			res.bad++
			if res.firstBad < 0 {
				res.firstBad = i
			}
			if res.bad <= 3 {
				fmt.Fprintf(&rep, "step %d %s (oom %d, PyTorch %d):\n", i, raw, oom, seq.OOM[i])
				for k, name := range keys {
					if got[k] != want[k] {
						fmt.Fprintf(&rep, "  %s: got %d want %d (diff %d)\n", name, got[k], want[k], got[k]-want[k])
					}
				}
			}
		}
		if i%50 == 0 {
			checkInvariants(t, a)
		}
	}
	checkInvariants(t, a)
	res.report = rep.String()
	return res
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestTorchSequences replays scripted sequences recorded on an H200 with
// PyTorch 2.11 (testdata/torchprobe.py) under several allocator settings,
// several streams and a memory limit (with OOMs and retries), and checks
// all 14 counters after every step and the address of every block. Fed the
// segment addresses the CUDA driver returned, the simulation must agree
// exactly.
func TestTorchSequences(t *testing.T) {
	for _, name := range torchFiles(t) {
		file := loadTorchFile(t, name)
		for _, seq := range file.Sequences {
			t.Run(seq.Name, func(t *testing.T) {
				if r := replayTorch(t, file.Keys, seq, true); r.bad > 0 {
					t.Errorf("%d of %d steps differ from PyTorch %s:\n%s", r.bad, len(seq.Ops), seq.Torch, r.report)
				}
			})
		}
	}
}

// syntheticDivergence lists the recorded sequences where the synthetic
// address space orders two equally sized free blocks differently from the
// CUDA driver, and from which step on the counters differ as a result.
func syntheticDivergence() map[string]int {
	return map[string]int{"random-roundup": 957, "heldout-1": 409, "heldout-5": 975}
}

// TestTorchSequencesSyntheticAddresses replays the same sequences with the
// allocator's own address model, as the estimator runs it. Counters agree
// exactly except where the address order decides a best-fit tie
// differently; there they stay within a few segments of PyTorch's. (Of the
// 22 sequences, which launch no kernel, this model matches 19 exactly: the
// driver's first chunk laid out from the first segment, the lowest free
// range taken, session 15. Before it, 32 MiB fresh ranges below everything
// and the smallest free range taken matched 18; taking the lowest free
// range then also matched 18, a different set; monotone increasing
// addresses matched 12, decreasing ones 16.)
func TestTorchSequencesSyntheticAddresses(t *testing.T) {
	diverge := syntheticDivergence()
	for _, name := range torchFiles(t) {
		file := loadTorchFile(t, name)
		for _, seq := range file.Sequences {
			t.Run(seq.Name, func(t *testing.T) {
				r := replayTorch(t, file.Keys, seq, false)
				first, known := diverge[seq.Name]
				switch {
				case r.bad == 0 && known:
					t.Errorf("matches PyTorch exactly now: drop it from syntheticDivergence")
				case r.bad == 0:
				case !known || r.firstBad != first:
					t.Errorf("%d of %d steps differ from PyTorch %s:\n%s", r.bad, len(seq.Ops), seq.Torch, r.report)
				case r.maxReservedDiff > 256*MiB || r.maxReservedPeakErr > 256*MiB:
					// (these runs reserve 2 to 4 GiB)
					t.Errorf("reserved drifts up to %d MiB (peak %d MiB) from PyTorch's",
						r.maxReservedDiff/MiB, r.maxReservedPeakErr/MiB)
				default:
					t.Logf("differs from step %d on (tie broken by address); reserved within %d MiB, peak within %d MiB",
						r.firstBad, r.maxReservedDiff/MiB, r.maxReservedPeakErr/MiB)
				}
			})
		}
	}
}
