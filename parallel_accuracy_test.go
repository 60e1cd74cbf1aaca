package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/estimate"
	"github.com/memplan/memplan/spec"
	"github.com/memplan/memplan/spec/family"
)

// TestParallelAccuracy holds the per-rank estimates of the data-parallel
// examples (examples/parallel) to their measured runs (rank 0 measured on
// one H200 with a fake process group, testdata/measured/h200/parallel) with
// the single-GPU tolerances: `go test -run ParallelAccuracy -v` prints the
// table.
func TestParallelAccuracy(t *testing.T) {
	examples, _ := filepath.Glob("examples/parallel/*.yaml")
	checked := 0
	for _, ex := range examples {
		name := strings.TrimSuffix(filepath.Base(ex), ".yaml")
		mf := filepath.Join("testdata/measured/h200/parallel", name+".json")
		if _, err := os.Stat(mf); err != nil {
			continue
		}
		checked++
		t.Run(name, func(t *testing.T) {
			r, m := estimateAndMeasured(t, ex, mf)
			if r.Parallel == nil {
				t.Fatalf("%s: no rank layout in the result", name)
			}
			compareAllocated(t, r, m)
		})
	}
	if checked < 18 {
		t.Fatalf("%d parallel examples have a measured run (want at least 18: DDP, FSDP, FSDP+checkpointing × GPT-2, Llama × 2, 4, 8 ranks)", checked)
	}
}

// TestLlama70BFSDPSpeed: the sharded Llama-3.1-70B example (FSDP on 8
// ranks, bf16, AdamW) estimates — expansion and simulation, as
// BenchmarkEstimateLlama405B measures — in under 50 ms. CI machines are
// shared, so the test holds a loose 250 ms unless MEMPLAN_TIMING=1.
func TestLlama70BFSDPSpeed(t *testing.T) {
	m, err := spec.Load("examples/parallel/llama-3.1-70b-fsdp8-bf16-adamw.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := calibrate.Resolve(m.GPU)
	if err != nil {
		t.Fatal(err)
	}
	best := time.Hour
	for range 8 {
		start := time.Now()
		g, err := family.Expand(m)
		if err != nil {
			t.Fatal(err)
		}
		r, err := estimate.Run(m, g, p, estimate.Options{})
		if err != nil {
			t.Fatal(err)
		}
		best = min(best, time.Since(start))
		if r.Parallel == nil || r.Parallel.WorldSize != 8 || r.Parallel.Sharding != "fsdp" {
			t.Fatalf("layout %+v", r.Parallel)
		}
	}
	t.Logf("llama-3.1-70b fsdp×8 estimate: %v (best of 8)", best)
	limit := 250 * time.Millisecond
	if os.Getenv("MEMPLAN_TIMING") == "1" {
		limit = 50 * time.Millisecond
	}
	if best > limit && !raceEnabled {
		t.Errorf("estimate took %v (want < %v)", best, limit)
	}
}

// compareAllocated holds allocated peaks to the single-GPU tolerances (each
// phase within 5%, the first-iteration peak within 5%, the steady peak
// within 3%) and prints reserved and nvidia-smi beside them without holding
// them: the collectives' side streams make the allocator's segment layout,
// and so reserved, depend on timing the estimate does not model (one case,
// gpt2-fp32-fsdp-ckpt-w2, reads 13% more reserved than measured).
func compareAllocated(t *testing.T, r *estimate.Result, m *measuredRun) {
	t.Helper()
	tol := accuracyTolerance
	const mib = 1 << 20
	var lines []string
	fails := 0
	row := func(what string, est, meas int64, limit float64) {
		e := relErr(est, meas)
		mark := ""
		if limit > 0 && math.Abs(e) > limit {
			mark = fmt.Sprintf("  FAIL (> %.0f%%)", limit*100)
			fails++
		}
		lines = append(lines, fmt.Sprintf("%-34s est %9.1f MiB  meas %9.1f MiB  err %+6.2f%%%s", what, float64(est)/mib, float64(meas)/mib, 100*e, mark))
	}
	last := len(m.Iterations) - 1
	var steadyEst, steadyMeas, firstEst, firstMeas, resEst, resMeas int64
	for _, it := range r.Iterations {
		mi := 0
		if it.Iteration == 2 {
			mi = last
		}
		for _, ph := range it.Phases {
			mp, ok := m.Iterations[mi].Phases[ph.Phase.String()]
			if !ok {
				t.Errorf("iteration %d: no measured %s phase", it.Iteration, ph.Phase)
				continue
			}
			meas := mp.After["allocated_bytes.all.peak"]
			row(fmt.Sprintf("iter %d %-9s peak allocated", it.Iteration, ph.Phase), ph.PeakAllocatedBytes, meas, tol.phasePeak)
			if it.Iteration == 2 {
				steadyEst, steadyMeas = max(steadyEst, ph.PeakAllocatedBytes), max(steadyMeas, meas)
				resEst, resMeas = max(resEst, ph.PeakReservedBytes), max(resMeas, mp.After["reserved_bytes.all.peak"])
			} else {
				firstEst, firstMeas = max(firstEst, ph.PeakAllocatedBytes), max(firstMeas, meas)
			}
		}
	}
	row("first-iteration peak allocated", firstEst, firstMeas, tol.firstPeak)
	row("steady peak allocated", steadyEst, steadyMeas, tol.steadyPeak)
	row("steady peak reserved (not held)", resEst, resMeas, 0)
	if len(m.NVMLFinal.Procs) > 0 {
		row("nvidia-smi, no NCCL (not held)", r.Peak.DeviceUsedBytes, m.NVMLFinal.Procs[0].Used, 0)
	}
	t.Logf("%s (%s)\n%s", r.Name, r.Parallel.Layout, strings.Join(lines, "\n"))
	if fails > 0 {
		t.Errorf("%d figures outside tolerance", fails)
	}
}
