package oom

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realFacts is what make_ooms.py recorded in the process at the moment of
// each OOM (testdata/facts.json).
type realFacts struct {
	Allocated         int64 `json:"allocated_bytes.all.current"`
	Reserved          int64 `json:"reserved_bytes.all.current"`
	InactiveSplit     int64 `json:"inactive_split_bytes.all.current"`
	Free              int64 `json:"free"`
	Total             int64 `json:"total"`
	OutsideCUDAMalloc int64 `json:"outside_cudamalloc_bytes"`
	OtherProcess      int64 `json:"other_process_tensor_bytes"`
	Torch             string
}

// TestRealMessages reads the torch.OutOfMemoryError messages produced on an
// H200 (PyTorch 2.11) by testdata/make_ooms.py, one per kind, and checks the
// verdict and the figures against what the process knew at that moment.
func TestRealMessages(t *testing.T) {
	raw, err := os.ReadFile("testdata/facts.json")
	if err != nil {
		t.Fatal(err)
	}
	var facts map[string]realFacts
	if err := json.Unmarshal(raw, &facts); err != nil {
		t.Fatal(err)
	}
	want := map[string]Kind{
		"live":            LiveTensors,
		"fragmentation":   Fragmentation,
		"outside-cupy":    OutsideAllocator,
		"outside-process": OutsideAllocator,
	}
	files, _ := filepath.Glob("testdata/*.txt")
	if len(files) != len(want) {
		t.Fatalf("testdata holds %d messages, want %d: %v", len(files), len(want), files)
	}
	// The message prints sizes with two decimals: 0.005 GiB at most off.
	const slack = 0.006 * (1 << 30)
	near := func(name, what string, got, want int64) {
		t.Helper()
		if math.Abs(float64(got-want)) > slack {
			t.Errorf("%s: %s %d, the process had %d", name, what, got, want)
		}
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		msg, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Parse(string(msg))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		k, ok := want[name]
		if !ok {
			t.Errorf("%s: no expected kind", name)
			continue
		}
		if r.Kind != k {
			t.Errorf("%s: verdict %v, want %v (%+v)", name, r.Kind, k, r)
		}
		if !strings.HasPrefix(r.Explain(), "verdict: "+k.String()+"\n") {
			t.Errorf("%s: explanation does not open with the verdict", name)
		}
		fx, ok := facts[name]
		if !ok {
			t.Errorf("%s: no facts", name)
			continue
		}
		near(name, "allocated", r.Allocated, fx.Allocated)
		near(name, "reserved", r.Reserved, fx.Reserved)
		near(name, "free", r.Free, fx.Free)
		near(name, "total", r.Total, fx.Total)
		if r.ProcessInUse < r.Reserved {
			t.Errorf("%s: this process %d < reserved %d", name, r.ProcessInUse, r.Reserved)
		}
		switch name {
		case "fragmentation":
			// All the free reserve sits in split segments that hold live
			// blocks: empty_cache could release none of it.
			near(name, "reserved but unallocated", r.ReservedUnallocated, fx.InactiveSplit)
		case "outside-cupy":
			if r.NonPyTorch < fx.OutsideCUDAMalloc || r.OtherProcesses != 0 {
				t.Errorf("%s: outside PyTorch %d, other processes %d; CuPy held %d", name, r.NonPyTorch, r.OtherProcesses, fx.OutsideCUDAMalloc)
			}
		case "outside-process":
			if r.OtherProcesses < fx.OtherProcess {
				t.Errorf("%s: other processes %d; the holder had %d", name, r.OtherProcesses, fx.OtherProcess)
			}
		}
	}
}
