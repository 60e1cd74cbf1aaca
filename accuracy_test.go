package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/estimate"
)

// measuredRun is the part of a measured case file (shared/validation format) the accuracy test reads.
type measuredRun struct {
	Case       string `json:"case"`
	Iterations []struct {
		Phases map[string]struct {
			After map[string]int64 `json:"after"`
		} `json:"phases"`
	} `json:"iterations"`
	NVMLFinal struct {
		Procs []struct {
			Used int64 `json:"used"`
		} `json:"procs"`
	} `json:"nvml_final"`
	// FinalStats are the allocator's counters when NVMLFinal was read.
	FinalStats map[string]int64 `json:"final_stats"`
}

// tolerance is what issue 3 accepts.
type tolerance struct{ steadyPeak, phasePeak, firstPeak, steadyReserved float64 }

var accuracyTolerance = tolerance{steadyPeak: 0.03, phasePeak: 0.05, firstPeak: 0.05, steadyReserved: 0.05}

// knownMisses are figures a hold-out run showed outside the tolerance, with
// the cause as far as it is known. They are printed as KNOWN MISS and do not
// fail the test; every other figure of the case is still held. Each entry is
// an open defect (see the README's accuracy section), not a tolerance.
var knownMisses = map[string]map[string]string{
	"custom-convnet-bf16-adamw-b64-img96": {
		"steady peak allocated": convRuleMiss,
		"steady peak reserved":  convRuleMiss,
	},
	"vgg16-amp-bf16-sgd-mom-b2300": {
		"steady peak reserved": convBeyondMiss,
	},
	"custom-convnet-wide-fp32-sgd-mom-b32-img64": {
		"steady peak reserved": convWideRuleMiss,
	},
	"phi3-small-l4-bf16-eager-infer-b8-s2048": {
		"steady peak reserved": phi3TieMiss,
		"nvidia-smi (process)": phi3TieMiss,
	},
	"mistral-small-l8-bf16-sgd-mom-b1-s1024": {
		"steady peak reserved": mistralSmallSegmentMiss,
		"nvidia-smi (process)": mistralSmallSegmentMiss,
	},
}

// convWideRuleMiss is why the wide custom convnet (holdout19) reserves less
// than the run with the built-in profile.
const convWideRuleMiss = "its 64→128 convolution at 64 px is in no table, so the engine-class rule sizes its cuDNN workspace and the estimate's requests are not the run's; with the driver's address window that places the run's segments otherwise (−9.2% steady reserved), and with a profile `memplan calibrate --convs` wrote on the H200 every figure is exact (TestCalibratedConvProfile)"

// mistralSmallSegmentMiss is why a Mistral with SGD at 1 × 1024 (holdout51)
// reserves less than the run in its steady step.
const mistralSmallSegmentMiss = "placement, not requests: every request of every step is the run's in both pools, the first step is exact in every figure, and at PyTorch's segment addresses the allocator model puts every block where PyTorch did (TestReplayRunTraces); the driver put a 2 MiB small-pool segment made in the first forward right above an older one, the address model far below, so a 512 KiB request takes the new segment's block instead of the older one's (TestAddressModelDivergence) and the steady step's blocks lie otherwise: the run makes 126 MiB of segments the estimate does not (−8.0% reserved; notes/addresses.md)"

// phi3TieMiss is why eager Phi3 inference at 8 × 2048 (holdout44) reserves
// a third 2 GiB segment the run does not make.
const phi3TieMiss = "placement, not requests: every request is the run's in both pools, and at PyTorch's segment addresses the allocator model puts every block where PyTorch did (TestReplayRunTraces); with the model's addresses a 32 MiB request picks another of three equal free blocks — the driver put a later 32 MiB segment above a 96 MiB one, the model below (TestAddressModelDivergence) — and from there the blocks lie otherwise, until the second layer's softmax finds no free 2 GiB block and the estimate makes a third 2 GiB segment (+30% reserved; notes/addresses.md)"

// convRuleMiss is why a convnet of shapes no table holds misses with the
// built-in profile; TestCalibratedConvProfile holds the same run to the
// profile `memplan calibrate --convs` wrote for it.
const convRuleMiss = "its convolutions' shapes (a 5×5 stem, 48 and 96 channels at 96 px) are in no table, so the engine-class rule sizes their cuDNN workspaces, and cuDNN's backward-filter engines there keep split-K copies the rule leaves out (6–9 MiB more per call); with a profile `memplan calibrate --convs` wrote on the H200 every figure is exact (TestCalibratedConvProfile)"

// convBeyondMiss is why VGG-16 at a batch far past the workspace table's
// misses with the built-in profile; TestCalibratedConvProfile holds the same
// run to the profile `memplan calibrate --convs` wrote at its batch.
const convBeyondMiss = "its batch (2300) is far past the 256 the built-in workspace table measured, where cuDNN picks other engines (62/67/65): the line extrapolated from 256 asks 28.3 GB for the 64→64 convolution at 224 px where cuDNN asked 8.6 GB, so the estimate's reserve grows past the H200 and the simulated allocator releases its cache once (−7.2% steady reserved, allocated exact); the estimate warns that the workspaces are extrapolated, and with a profile `memplan calibrate --convs` wrote at this batch every figure is exact (TestCalibratedConvProfile)"

// measuredFiles maps case names to measured JSON files under testdata.
func measuredFiles(t *testing.T) map[string]string {
	files := map[string]string{}
	for _, dir := range []string{"testdata/validation/h200", "testdata/measured/h200"} {
		matches, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, f := range matches {
			base := strings.TrimSuffix(filepath.Base(f), ".json")
			if strings.HasPrefix(base, "probe-") || strings.HasSuffix(base, ".saved") {
				continue
			}
			files[base] = f
		}
	}
	return files
}

// estimateAndMeasured estimates a description and reads its measured run.
func estimateAndMeasured(t *testing.T, example, measuredFile string) (*estimate.Result, *measuredRun) {
	t.Helper()
	m := readMeasured(t, measuredFile)
	r, err := estimateFile(example, "", false)
	if err != nil {
		t.Fatalf("estimate: %v", err)
	}
	return r, m
}

// readMeasured reads a measured run (memplan_probe.py's JSON).
func readMeasured(t *testing.T, path string) *measuredRun {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m measuredRun
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &m
}

func relErr(est, meas int64) float64 {
	if meas == 0 {
		return 0
	}
	return float64(est-meas) / float64(meas)
}

// TestAccuracy estimates every example that has a measured run and compares
// phase by phase: `go test -run Accuracy -v` prints the whole table.
func TestAccuracy(t *testing.T) {
	measured := measuredFiles(t)
	examples, _ := filepath.Glob("examples/*.yaml")
	for _, pattern := range []string{"examples/measured/*.yaml", "examples/holdout*/*.yaml"} {
		more, _ := filepath.Glob(pattern)
		examples = append(examples, more...)
	}
	checked := 0
	seen := map[string]bool{}
	for _, ex := range examples {
		name := strings.TrimSuffix(filepath.Base(ex), ".yaml")
		mf, ok := measured[name]
		if !ok || seen[name] {
			continue
		}
		seen[name] = true
		checked++
		t.Run(name, func(t *testing.T) {
			r, m := estimateAndMeasured(t, ex, mf)
			compareRun(t, r, m)
		})
	}
	if checked == 0 {
		t.Fatal("no example has a measured run")
	}
}

// figureRows collects the rows of an accuracy table: each figure estimated
// against measured, held to its limit (0: printed, not held) unless known
// names it as a known miss.
type figureRows struct {
	known map[string]string
	// checkStale fails a known miss that is within tolerance now (the
	// single-GPU list, one entry per run; the parallel lists are shared
	// by ranks and cases that differ).
	checkStale bool
	lines      []string
	fails      int
	stale      []string // known misses now within tolerance
	missed     []string // known misses outside tolerance here
}

func (f *figureRows) row(what string, est, meas int64, limit float64) {
	const mib = 1 << 20
	e := relErr(est, meas)
	mark := ""
	if _, ok := f.known[strings.TrimSpace(what)]; ok && f.checkStale && limit > 0 && math.Abs(e) <= limit {
		f.stale = append(f.stale, strings.TrimSpace(what))
	}
	if limit > 0 && math.Abs(e) > limit {
		if reason, ok := f.known[strings.TrimSpace(what)]; ok {
			mark = "  KNOWN MISS: " + reason
			f.missed = append(f.missed, strings.TrimSpace(what))
		} else {
			mark = fmt.Sprintf("  FAIL (> %.0f%%)", limit*100)
			f.fails++
		}
	}
	f.lines = append(f.lines, fmt.Sprintf("%-34s est %9.1f MiB  meas %9.1f MiB  err %+6.2f%%%s", what, float64(est)/mib, float64(meas)/mib, 100*e, mark))
}

// report logs the table under title and fails t if a figure is out of tolerance.
func (f *figureRows) report(t *testing.T, title string) {
	t.Helper()
	t.Logf("%s\n%s", title, strings.Join(f.lines, "\n"))
	if f.fails > 0 {
		t.Errorf("%d figures outside tolerance", f.fails)
	}
	if len(f.stale) > 0 {
		t.Errorf("known misses now within tolerance (remove them from the list): %s", strings.Join(f.stale, "; "))
	}
}

func compareRun(t *testing.T, r *estimate.Result, m *measuredRun) {
	t.Helper()
	compareRunKnown(t, r, m, knownMisses[r.Name])
}

// compareRunKnown is compareRun with the known misses given.
func compareRunKnown(t *testing.T, r *estimate.Result, m *measuredRun, known map[string]string) {
	t.Helper()
	tol := accuracyTolerance
	f := figureRows{known: known, checkStale: true}
	check := f.row
	steadyIdx := len(m.Iterations) - 1
	var steadyPeakEst, steadyPeakMeas, steadyResEst, steadyResMeas int64
	for _, it := range r.Iterations {
		mi := 0
		if it.Iteration == 2 {
			mi = steadyIdx
		}
		for _, ph := range it.Phases {
			mp, ok := m.Iterations[mi].Phases[ph.Phase.String()]
			if !ok {
				continue
			}
			meas := mp.After["allocated_bytes.all.peak"]
			limit := tol.phasePeak
			check(fmt.Sprintf("iter %d %-9s peak allocated", it.Iteration, ph.Phase), ph.PeakAllocatedBytes, meas, limit)
			check(fmt.Sprintf("iter %d %-9s peak reserved", it.Iteration, ph.Phase), ph.PeakReservedBytes, mp.After["reserved_bytes.all.peak"], 0)
			if it.Iteration == 2 {
				steadyPeakEst = max(steadyPeakEst, ph.PeakAllocatedBytes)
				steadyPeakMeas = max(steadyPeakMeas, meas)
				steadyResEst = max(steadyResEst, ph.PeakReservedBytes)
				steadyResMeas = max(steadyResMeas, mp.After["reserved_bytes.all.peak"])
			}
		}
	}
	var firstEst, firstMeas int64
	for _, ph := range r.Iterations[0].Phases {
		firstEst = max(firstEst, ph.PeakAllocatedBytes)
		if mp, ok := m.Iterations[0].Phases[ph.Phase.String()]; ok {
			firstMeas = max(firstMeas, mp.After["allocated_bytes.all.peak"])
		}
	}
	check("first-iteration peak allocated", firstEst, firstMeas, tol.firstPeak)
	check("steady peak allocated", steadyPeakEst, steadyPeakMeas, tol.steadyPeak)
	check("steady peak reserved", steadyResEst, steadyResMeas, tol.steadyReserved)
	if len(m.NVMLFinal.Procs) > 0 {
		check("nvidia-smi (process)", r.Peak.DeviceUsedBytes, measuredDevicePeak(m), 0.05)
	}
	f.report(t, r.Name)
}

// measuredDevicePeak is the process's nvidia-smi figure at its highest.
// NVML was read once, at the end; reserved memory never shrinks unless the
// allocator released its cache to retry an allocation (num_alloc_retries,
// holdout39), and then the peak is the end's figure plus what reserved fell
// from its highest.
func measuredDevicePeak(m *measuredRun) int64 {
	var highest, end int64
	for _, it := range m.Iterations {
		for _, ph := range it.Phases {
			highest = max(highest, ph.After["reserved_bytes.all.peak"])
		}
	}
	if final, ok := m.FinalStats["reserved_bytes.all.current"]; ok {
		// What the allocator held when NVML was read: a run that released
		// cached segments at the device's limit holds less at the end.
		end = final
	} else {
		for _, ph := range m.Iterations[len(m.Iterations)-1].Phases {
			end = max(end, ph.After["reserved_bytes.all.current"])
		}
	}
	return m.NVMLFinal.Procs[0].Used + max(highest-end, 0)
}

// TestCalibratedConvProfile: custom convnets the built-in profile misses
// (convolution shapes no table holds, sized by the engine-class rule) are
// exact in every figure with the profiles `memplan calibrate --convs` wrote
// for them on the H200, and no longer warn about their convolutions.
func TestCalibratedConvProfile(t *testing.T) {
	for _, c := range []struct{ name, example, profile string }{
		{"custom-convnet-bf16-adamw-b64-img96", "examples/holdout11", "testdata/profiles/h200-convnet96.yaml"},
		{"custom-convnet-wide-fp32-sgd-mom-b32-img64", "examples/holdout19", "testdata/profiles/h200-convnets-holdout19.yaml"},
		{"custom-convnet-amp-bf16-adamw-b16-img128", "examples/holdout19", "testdata/profiles/h200-convnets-holdout19.yaml"},
		{"vgg16-amp-bf16-sgd-mom-b2207", "examples/holdout38", "testdata/profiles/h200-vgg16-b2207-b2300.yaml"},
		{"vgg16-amp-bf16-sgd-mom-b2300", "examples/holdout38", "testdata/profiles/h200-vgg16-b2207-b2300.yaml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := readMeasured(t, "testdata/measured/h200/"+c.name+".json")
			r, err := estimateFile(c.example+"/"+c.name+".yaml", c.profile, false)
			if err != nil {
				t.Fatal(err)
			}
			compareRunKnown(t, r, m, nil) // no known miss here
			if got, want := r.Peak.ReservedBytes, m.Iterations[len(m.Iterations)-1].Phases["backward"].After["reserved_bytes.all.peak"]; got != want {
				t.Errorf("steady reserved %d, measured %d", got, want)
			}
			for _, w := range r.Warnings {
				if strings.Contains(w, "convolution geometries") {
					t.Errorf("warns although every geometry was measured: %s", w)
				}
			}
		})
	}
}
