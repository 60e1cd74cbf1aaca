package main

import (
	"fmt"
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
// examples (examples/parallel, and the hold-outs of examples/holdout5/parallel) to their measured runs (rank 0 measured on
// one H200 with a fake process group, testdata/measured/h200/parallel) with
// the single-GPU tolerances: `go test -run ParallelAccuracy -v` prints the
// table.
func TestParallelAccuracy(t *testing.T) {
	examples, _ := filepath.Glob("examples/parallel/*.yaml")
	holdout, _ := filepath.Glob("examples/holdout[0-9]*/parallel/*.yaml")
	examples = append(examples, holdout...)
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
			compareAllocated(t, r, m, false)
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
// within 3%). For a fake-process-group run (real false) it prints reserved
// and nvidia-smi beside them without holding them: the fake collectives
// return at once, which leaves a segment layout real runs need not have
// (gpt2-fp32-fsdp-ckpt-w2 reads 13% more reserved than its fake run, and
// within 1% of its real NCCL run), and the run has no NCCL memory, so its
// nvidia-smi row is the estimate less the profile's NCCL figure. A real
// NCCL run (real true) holds steady reserved and nvidia-smi at 5% too,
// except for the known misses.
//
// It returns the known misses that were outside the tolerance on this rank.
func compareAllocated(t *testing.T, r *estimate.Result, m *measuredRun, real bool) (missed []string) {
	t.Helper()
	tol := accuracyTolerance
	known := fakeDifferences
	if real {
		known = parallelKnownMisses
	}
	f := figureRows{known: known[r.Name]}
	row := f.row
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
	if len(m.NVMLFinal.Procs) == 0 {
		t.Errorf("%s: the run has no NVML process reading", r.Name)
	}
	if real {
		row("steady peak reserved", resEst, resMeas, tol.steadyReserved)
		if len(m.NVMLFinal.Procs) > 0 {
			row("nvidia-smi (process, with NCCL)", r.Peak.DeviceUsedBytes, m.NVMLFinal.Procs[0].Used, 0.05)
		}
	} else {
		row("steady peak reserved (not held)", resEst, resMeas, 0)
		if len(m.NVMLFinal.Procs) > 0 {
			p, _ := calibrate.Resolve("h200")
			row("nvidia-smi, no NCCL (not held)", r.Peak.DeviceUsedBytes-p.NCCLBytes, m.NVMLFinal.Procs[0].Used, 0)
		}
	}
	f.report(t, fmt.Sprintf("%s (%s)", r.Name, r.Parallel.Layout))
	return f.missed
}

// fakeDifferences are figures where a fake-process-group run is expected to
// differ from the estimate, which models real NCCL: its collectives finish
// at once.
var fakeDifferences = map[string]map[string]string{
	"gpt2-fp32-ddp-mb2-w2": fakeDDPRebuild,
	"gpt2-fp32-ddp-mb2-w4": fakeDDPRebuild,
	// a hold-out: the estimate (written before the run) holds TinyLlama's
	// 2.1 GB of old buckets through the first step, as real NCCL does
	"tinyllama-bf16-ddp-mb2-w2": fakeDDPRebuild,
}

// fakeDDPRebuild: DDP's buckets rebuilt within the first step (micro-batches).
var fakeDDPRebuild = map[string]string{
	"iter 1 forward   peak allocated": "the fake all-reduce finishes at once, so DDP's old buckets go at the rebuild; NCCL holds them until its watchdog reaps the work, as modelled (real runs: parallel-nccl/gpt2-fp32-ddp-mb2-w2)",
	"iter 1 backward  peak allocated": "as the forward: the old buckets, held with NCCL",
	"first-iteration peak allocated":  "as the forward: the old buckets, held with NCCL",
}

// parallelKnownMisses are figures of real NCCL runs outside the tolerance,
// with their cause as far as it is known; printed as KNOWN MISS, not held.
var parallelKnownMisses = map[string]map[string]string{
	"llama-small-bf16-ddp-ckpt-w2": {
		"steady peak reserved":            "the two real ranks differ: rank 0 reserves 2400 MiB, as the fake-process-group run and the estimate do, rank 1 2776 MiB — blocks waiting on the all-reduce's stream are freed at times that differ between ranks",
		"nvidia-smi (process, with NCCL)": "follows the reserve (ranks 376 MiB apart)",
	},
	"gpt2-fp32-ddp-mb2-w2": {
		"iter 1 optimizer peak allocated": "NCCL's watchdog reaped the old DDP buckets (474.7 MiB) only in the next step on this rank; the model frees them at the end of the step's backward, as the other rank did",
		"iter 1 zero_grad peak allocated": "as the optimizer: the old buckets still held on this rank",
	},
}

// TestParallelNCCLAccuracy holds the per-rank estimates to runs with a real
// NCCL process group on two H200s of one host, every rank measured
// (testdata/measured/h200/parallel-nccl, probe/measure_parallel_nccl.sh):
// allocated, steady reserved and the nvidia-smi figure, which includes
// NCCL's own memory from the H200 profile. `go test -run NCCL -v` prints
// the table.
func TestParallelNCCLAccuracy(t *testing.T) {
	files, _ := filepath.Glob("testdata/measured/h200/parallel-nccl/*.rank*.json")
	if len(files) < 50 {
		t.Fatalf("%d real NCCL rank measurements (want 50: DDP and FSDP2 with and without checkpointing for GPT-2 and Llama, ZeRO-1, ZeRO-2, micro-batches, TinyLlama-1.1B, holdout21's three, holdout74's four and holdout75's fit answer; 2 ranks each)", len(files))
	}
	used := map[string]bool{} // case and figure of a known miss outside the tolerance on some rank
	for _, mf := range files {
		base := filepath.Base(mf)
		name := base[:strings.Index(base, ".rank")]
		t.Run(strings.TrimSuffix(base, ".json"), func(t *testing.T) {
			example := parallelExample(name)
			if example == "" {
				t.Fatalf("%s: no description", name)
			}
			r, m := estimateAndMeasured(t, example, mf)
			for _, what := range compareAllocated(t, r, m, true) {
				used[name+": "+what] = true
			}
		})
	}
	// A known miss that no rank shows any more is out of date.
	for name, figures := range parallelKnownMisses {
		for what := range figures {
			if !used[name+": "+what] {
				t.Errorf("%s: %s is within tolerance on every rank now: remove it from parallelKnownMisses", name, what)
			}
		}
	}
}
