package allocator

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/memplan/memplan/internal/gztest"
)

// Recorded estimator runs: every Malloc, Free and EmptyCache the estimator
// made (on stream 0) while estimating examples/gpt2-fp32-adamw-b8.yaml and
// examples/llama3.1-405b-bf16-adamw.yaml, recorded by wrapping those calls
// (memplan at 92a6be3; 6,288 and 124,767 events). The files hold a line
// "sizes S0 S1 ..." and then one event a line: "aK" allocates size SK, "fD"
// frees the block allocated D allocations ago, "e" empties the cache.
var recordedRuns = []string{"gpt2-fp32-adamw-b8", "llama3.1-405b-bf16-adamw"}

// recordedCapacity is a capacity below each run's peak.
var recordedCapacity = map[string]int64{"gpt2-fp32-adamw-b8": 12 << 30, "llama3.1-405b-bf16-adamw": 3790 << 30}

// recEvent is a size to allocate (>= 0), -(1+k) to free the block of the
// k-th allocation, or emptyCacheEvent.
type recEvent int64

const emptyCacheEvent recEvent = -1 << 62

func loadRecorded(t testing.TB, name string) []recEvent {
	t.Helper()
	zr := gztest.Open(t, "testdata/events-"+name+".txt.gz")
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	var sizes []int64
	var evs []recEvent
	allocs := int64(0)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "sizes "); ok {
			for _, s := range strings.Fields(rest) {
				n, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				sizes = append(sizes, n)
			}
			continue
		}
		if line == "e" {
			evs = append(evs, emptyCacheEvent)
			continue
		}
		n, err := strconv.ParseInt(line[1:], 10, 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", name, line, err)
		}
		switch line[0] {
		case 'a':
			evs = append(evs, recEvent(sizes[n]))
			allocs++
		case 'f':
			evs = append(evs, recEvent(-(1 + allocs - n)))
		default:
			t.Fatalf("%s: bad line %q", name, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return evs
}

// replayRecorded runs events through a, calling Stats after each event and
// BlockSize around each allocation and free as the estimator does. A failed
// allocation (past the capacity) is skipped, and so is its free. When sum
// is not nil, it is called with the allocator after each event.
func replayRecorded(a *Allocator, evs []recEvent, ids []BlockID, sum func(*Allocator, BlockID, error)) int64 {
	var total int64
	k := 0
	for _, e := range evs {
		var id BlockID
		var err error
		switch {
		case e == emptyCacheEvent:
			a.EmptyCache()
		case e >= 0:
			id, err = a.Malloc(int64(e), 0)
			if err != nil {
				id = 0
			}
			ids[k] = id
			k++
			total += a.BlockSize(id)
		default:
			if x := ids[-e-1]; x != 0 {
				total -= a.BlockSize(x)
				err = a.Free(x)
			}
		}
		st := a.Stats()
		total += st.Allocated
		if sum != nil {
			sum(a, id, err)
		}
	}
	return total
}

// recordedConfigs are the configurations the runs are checked under;
// capacity is tight enough to make some of the run's requests retry or fail.
func recordedConfigs(capacity int64) map[string]Config {
	return map[string]Config{
		"default":    {},
		"expandable": {ExpandableSegments: true},
		"maxsplit":   {MaxSplitSize: 256 * MiB},
		"roundup":    {RoundupPower2Divisions: 4},
		"capacity":   {Capacity: capacity, MaxSplitSize: 64 * MiB},
		"capexp":     {Capacity: capacity, ExpandableSegments: true},
	}
}

// recordedDigest hashes every counter after every event, and the address
// and size of each block handed out.
func recordedDigest(t testing.TB, cfg Config, evs []recEvent, moveBlocks bool) string {
	a := New(cfg)
	a.moveBlocks = moveBlocks
	h := uint64(14695981039346656037)
	mix := func(v int64) {
		h ^= uint64(v)
		h *= 1099511628211
		h ^= h >> 29
	}
	ooms := 0
	replayRecorded(a, evs, make([]BlockID, len(evs)), func(a *Allocator, id BlockID, err error) {
		var oe *OOMError
		switch {
		case errors.As(err, &oe):
			ooms++
			mix(oe.Reserved)
			mix(oe.AllocSize)
		case err != nil:
			t.Fatal(err)
		case a.liveBlock(id) != nil:
			mix(a.liveBlock(id).addr)
			mix(a.liveBlock(id).size)
		}
		s := a.Stats()
		for _, v := range []int64{s.Allocated, s.AllocatedPeak, s.Reserved, s.ReservedPeak, s.Requested,
			s.RequestedPeak, s.Active, s.ActivePeak, s.InactiveSplit, s.InactiveSplitPeak, s.Segments,
			s.SegmentsPeak, s.Allocations, s.NumAllocRetries, s.NumOOMs, s.NumDeviceAlloc, s.NumDeviceFree} {
			mix(v)
		}
	})
	checkInvariants(t, a)
	s := a.Stats()
	return fmt.Sprintf("%016x ooms=%d retries=%d peak=%d/%d", h, ooms, s.NumAllocRetries, s.AllocatedPeak, s.ReservedPeak)
}

// TestRecordedRuns replays the recorded estimator runs under several
// configurations and compares a digest of every counter and block address
// with the one pinned when the address model last changed (32 MiB fresh
// ranges, session 8; before, the first, treap-based implementation's; one
// moved in session 20, when a 2 MiB segment that fits nowhere began to
// open a small chunk): a faster implementation must take exactly the same
// decisions.
func TestRecordedRuns(t *testing.T) {
	want := map[string]string{
		"gpt2-fp32-adamw-b8/capacity":         "ae391e5e875591d6 ooms=6 retries=7 peak=12487199232/12884901888",
		"gpt2-fp32-adamw-b8/capexp":           "7cfd644934b6e580 ooms=6 retries=7 peak=12483259904/12574523392",
		"gpt2-fp32-adamw-b8/default":          "cc156e35481ceb73 ooms=0 retries=0 peak=15777571328/16521363456",
		"gpt2-fp32-adamw-b8/expandable":       "bca15d9916524123 ooms=0 retries=0 peak=15776771584/15846080512",
		"gpt2-fp32-adamw-b8/maxsplit":         "7c62a86940cde601 ooms=0 retries=0 peak=15783791104/16613638144",
		"gpt2-fp32-adamw-b8/roundup":          "b727d626e2da92c4 ooms=0 retries=0 peak=16719682048/17567842304",
		"llama3.1-405b-bf16-adamw/capacity":   "eb3e64e85c56ad25 ooms=0 retries=0 peak=4058601128960/4069410209792",
		"llama3.1-405b-bf16-adamw/capexp":     "e1561bc85d1ab1d4 ooms=0 retries=2 peak=4058601128960/4068160307200",
		"llama3.1-405b-bf16-adamw/default":    "96919ca8a120677f ooms=0 retries=0 peak=4058601128960/4124577890304",
		"llama3.1-405b-bf16-adamw/expandable": "412b1a34e517db7d ooms=0 retries=0 peak=4058601128960/4099659530240",
		"llama3.1-405b-bf16-adamw/maxsplit":   "43499a0ba5e803ad ooms=0 retries=0 peak=4058601128960/4104707375104",
		"llama3.1-405b-bf16-adamw/roundup":    "c5dbb81d753014ef ooms=0 retries=0 peak=4313195381760/4390190579712", // session 20: a 2 MiB segment in a small chunk
	}
	for _, name := range recordedRuns {
		evs := loadRecorded(t, name)
		for cname, cfg := range recordedConfigs(recordedCapacity[name]) {
			key := name + "/" + cname
			got := recordedDigest(t, cfg, evs, false)
			if w, ok := want[key]; !ok {
				t.Errorf("%s: no digest recorded; got %q", key, got)
			} else if got != w {
				t.Errorf("%s: digest %q, want %q", key, got, w)
			}
		}
	}
}

// BenchmarkRecorded replays the recorded estimator runs (allocations, frees,
// and a Stats call after each, as the estimator makes them).
func BenchmarkRecorded(b *testing.B) {
	for _, name := range recordedRuns {
		evs := loadRecorded(b, name)
		ids := make([]BlockID, len(evs))
		for _, cname := range []string{"default", "expandable"} {
			cfg := recordedConfigs(0)[cname]
			b.Run(name+"/"+cname, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					replayRecorded(New(cfg), evs, ids, nil)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
			})
		}
	}
}

// randomDigest replays a random sequence over three streams with a few
// EmptyCache calls: the paths the recorded runs do not take.
func randomDigest(t testing.TB, cfg Config, seed uint64, steps int, moveBlocks bool) string {
	r := rand.New(rand.NewPCG(seed, 7))
	a := New(cfg)
	a.moveBlocks = moveBlocks
	h := uint64(14695981039346656037)
	mix := func(v int64) {
		h ^= uint64(v)
		h *= 1099511628211
		h ^= h >> 29
	}
	var live []BlockID
	for i := 0; i < steps; i++ {
		switch x := r.IntN(1000); {
		case x < 5:
			a.EmptyCache()
		case x < 10:
			a.ResetPeakStats()
		case x < 480 && len(live) > 0 || len(live) > 2000:
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
				mix(oe.Reserved)
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			live = append(live, id)
			if b := a.liveBlock(id); b != nil {
				mix(b.addr)
				mix(b.size)
			}
		}
		s := a.Stats()
		for _, v := range []int64{s.Allocated, s.AllocatedPeak, s.Reserved, s.ReservedPeak, s.Requested,
			s.RequestedPeak, s.Active, s.ActivePeak, s.InactiveSplit, s.InactiveSplitPeak, s.Segments,
			s.SegmentsPeak, s.Allocations, s.NumAllocRetries, s.NumOOMs, s.NumDeviceAlloc, s.NumDeviceFree} {
			mix(v)
		}
	}
	checkInvariants(t, a)
	s := a.Stats()
	return fmt.Sprintf("%016x ooms=%d retries=%d", h, s.NumOOMs, s.NumAllocRetries)
}

// TestRandomDigest pins the decisions on random multi-stream sequences
// (with EmptyCache) under every invariant configuration (pinned as
// TestRecordedRuns's are).
func TestRandomDigest(t *testing.T) {
	want := []string{
		"d50f8b7fc4f2b62c ooms=0 retries=0",
		"fde314c7ba50fced ooms=0 retries=0",
		"503f2bf23267e0e6 ooms=0 retries=0",
		"4d26050525d7e9a8 ooms=0 retries=0",
		"9a26bc7b76a28902 ooms=1076 retries=1207",
		"8491378db333cc0b ooms=785 retries=1213",
		"502ccdbe43e3c5f6 ooms=979 retries=1343",
	}
	for ci, cfg := range invariantConfigs() {
		got := randomDigest(t, cfg, uint64(ci), 20000, false)
		if ci >= len(want) {
			t.Errorf("config %d %+v: no digest recorded; got %q", ci, cfg, got)
		} else if got != want[ci] {
			t.Errorf("config %d %+v: digest %q, want %q", ci, cfg, got, want[ci])
		}
	}
}

// TestBlocksMove runs the digests with the blocks moved (and the old copies
// spoiled) at every new block: code that keeps a *block across newBlock
// would read or write a stale copy and change the result.
func TestBlocksMove(t *testing.T) {
	evs := loadRecorded(t, recordedRuns[0])
	for cname, cfg := range recordedConfigs(recordedCapacity[recordedRuns[0]]) {
		if got, want := recordedDigest(t, cfg, evs, true), recordedDigest(t, cfg, evs, false); got != want {
			t.Errorf("%s: digest %q with blocks moved, %q without", cname, got, want)
		}
	}
	for ci, cfg := range invariantConfigs() {
		if got, want := randomDigest(t, cfg, uint64(ci), 4000, true), randomDigest(t, cfg, uint64(ci), 4000, false); got != want {
			t.Errorf("config %+v: digest %q with blocks moved, %q without", cfg, got, want)
		}
	}
}
