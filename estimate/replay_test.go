package estimate_test

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/estimate"
	"github.com/memplan/memplan/spec"
	"github.com/memplan/memplan/spec/family"
)

// exampleFiles lists the bundled descriptions (one GPU and parallel).
func exampleFiles(t *testing.T) []string {
	var files []string
	for _, glob := range []string{"../examples/*.yaml", "../examples/parallel/*.yaml", "../examples/holdout/*.yaml", "../examples/holdout2/*.yaml", "../examples/measured/*.yaml"} {
		m, _ := filepath.Glob(glob)
		files = append(files, m...)
	}
	if len(files) < 30 {
		t.Fatalf("only %d bundled descriptions found", len(files))
	}
	return files
}

// expanded loads and expands a bundled description.
func expanded(t *testing.T, file string) (*spec.Model, *spec.Graph) {
	t.Helper()
	m, err := spec.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	return m, expandModel(t, m)
}

// expandedSource parses and expands a description given as YAML text.
func expandedSource(t *testing.T, name, src string) (*spec.Model, *spec.Graph) {
	t.Helper()
	m, err := spec.Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m, expandModel(t, m)
}

func expandModel(t *testing.T, m *spec.Model) *spec.Graph {
	t.Helper()
	g, err := family.Expand(m)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// sameError reports whether two runs failed alike: both not, or with the
// same message.
func sameError(a, b error) bool {
	return (a == nil) == (b == nil) && (a == nil || a.Error() == b.Error())
}

// A concurrent replay gives exactly the result of one after the other —
// every phase, every event of the timeline — and so do the errors.
func TestConcurrentReplayIsIdentical(t *testing.T) {
	p, _ := calibrate.Builtin("h200")
	files := exampleFiles(t)
	if testing.Short() {
		files = files[:8]
	}
	for _, f := range files {
		m, g := expanded(t, f)
		for _, opt := range []estimate.Options{{Timeline: true}, {Capacity: 40 << 30}, {Limit: 60 << 30}} {
			seq, seqErr := estimate.Run(m, g, p, opt)
			opt.Concurrent = true
			con, conErr := estimate.Run(m, g, p, opt)
			if !sameError(seqErr, conErr) {
				t.Errorf("%s %+v: errors differ: %v / %v", f, opt, seqErr, conErr)
				continue
			}
			if !reflect.DeepEqual(seq, con) {
				t.Errorf("%s %+v: the concurrent replay's result differs", f, opt)
			}
		}
	}
}

// Options.Limit stops a run as soon as its nvidia-smi figure passes the
// limit, and only then: a limit at the full run's figure lets it finish.
func TestLimitStopsOnlyRunsThatPassIt(t *testing.T) {
	p, _ := calibrate.Builtin("h200")
	m, g := expanded(t, "../examples/gpt2-fp32-adamw-b8.yaml")
	full, err := estimate.Run(m, g, p, estimate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	used := full.Peak.DeviceUsedBytes
	for _, concurrent := range []bool{false, true} {
		if _, err := estimate.Run(m, g, p, estimate.Options{Limit: used, Concurrent: concurrent}); err != nil {
			t.Errorf("limit at the peak (%d): %v", used, err)
		}
		_, err := estimate.Run(m, g, p, estimate.Options{Limit: used - 1, Concurrent: concurrent})
		var le *estimate.LimitError
		if !errors.As(err, &le) || !estimate.IsOverLimit(err) {
			t.Fatalf("limit one byte under the peak: got %v, want a *LimitError", err)
		}
		if le.DeviceUsedBytes <= le.Limit || le.DeviceUsedBytes > used {
			t.Errorf("stopped at %d for limit %d; the full run's figure is %d", le.DeviceUsedBytes, le.Limit, used)
		}
	}
}

// Options.PeaksOnly gives the same peak and iterations, without the terms,
// layers, gaps and inputs (one GPU and a parallel description, whose
// nvidia-smi figure includes NCCL's memory).
func TestPeaksOnly(t *testing.T) {
	p, _ := calibrate.Builtin("h200")
	for _, f := range []string{"../examples/gpt2-fp32-adamw-b8.yaml", "../examples/parallel/llama-small-bf16-fsdp-w4.yaml"} {
		m, err := spec.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := family.Expand(m)
		if err != nil {
			t.Fatal(err)
		}
		full, err := estimate.Run(m, g, p, estimate.Options{})
		if err != nil {
			t.Fatal(err)
		}
		short, err := estimate.Run(m, g, p, estimate.Options{PeaksOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if short.Peak != full.Peak || !reflect.DeepEqual(short.Iterations, full.Iterations) {
			t.Errorf("%s: peak %+v, want %+v", f, short.Peak, full.Peak)
		}
		if short.Terms != nil || short.Layers != nil || full.Terms == nil || full.Layers == nil {
			t.Errorf("%s: PeaksOnly kept terms or layers, or the full result lacks them", f)
		}
	}
}

// A run that runs out of memory in its second or third step (past the
// point where the timeline waits for the replay's verdict on step 2) ends
// with the same error whether the replay is concurrent or not, and never
// leaves either half waiting.
func TestConcurrentReplayFailsLate(t *testing.T) {
	p, _ := calibrate.Builtin("h200")
	m, g := expanded(t, "../examples/parallel/gpt2-fp32-ddp-mb2-w2.yaml")
	full, err := estimate.Run(m, g, p, estimate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	first := full.Iterations[0]
	var firstReserved int64
	for _, ph := range first.Phases {
		firstReserved = max(firstReserved, ph.PeakReservedBytes)
	}
	if full.Peak.ReservedBytes <= firstReserved {
		t.Fatalf("the example's reserve does not grow after step 1 (%d ≤ %d)", full.Peak.ReservedBytes, firstReserved)
	}
	for _, capacity := range []int64{firstReserved, (firstReserved + full.Peak.ReservedBytes) / 2} {
		_, seqErr := estimate.Run(m, g, p, estimate.Options{Capacity: capacity})
		_, conErr := estimate.Run(m, g, p, estimate.Options{Capacity: capacity, Concurrent: true})
		if seqErr == nil || conErr == nil || seqErr.Error() != conErr.Error() {
			t.Errorf("capacity %d: errors %v / %v (want the same out-of-memory error)", capacity, seqErr, conErr)
		}
		t.Logf("capacity %d: %v", capacity, conErr)
		if !estimate.IsOutOfMemory(conErr) {
			t.Errorf("capacity %d: %v is not an out-of-memory error", capacity, conErr)
		}
	}
}

// A collective buffer's size is a term of its own, and what of it is live at
// the peak is in "collective buffers (at the peak)": the size terms are
// marked as counted there, so that totals do not count them twice; and a
// fused AdamW's step counters are an included term with their 512 B blocks.
func TestTermsCountedOnce(t *testing.T) {
	p, _ := calibrate.Builtin("h200")
	for f, sizes := range map[string][]string{
		"../examples/parallel/llama-small-bf16-fsdp-w4.yaml": {"FSDP all-gather buffers", "FSDP reduce-scatter input"},
		"../examples/parallel/gpt2-fp32-ddp-w2.yaml":         {"DDP gradient buckets"},
	} {
		m, g := expanded(t, f)
		r, err := estimate.Run(m, g, p, estimate.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range sizes {
			found := false
			for _, term := range r.Terms {
				if term.Name == name {
					found = true
					if term.Where != estimate.WhereCountedElsewhere || term.Bytes <= 0 {
						t.Errorf("%s: %s is %v with %d bytes (want a size counted at the peak)", f, name, term.Where, term.Bytes)
					}
				}
			}
			if !found {
				t.Errorf("%s: no %q term", f, name)
			}
		}
	}
	m, g := expanded(t, "../examples/holdout33/gpt2-fp32-adamw-mb2-b4-s512.yaml")
	m.Training.OptimizerImpl = spec.ImplFused
	r, err := estimate.Run(m, g, p, estimate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, term := range r.Terms {
		if term.Name == "optimizer step counters" && (!term.Included || term.Bytes != int64(len(g.Params))*512) {
			t.Errorf("fused AdamW step counters: %+v (want %d parameters × 512 B, included)", term, len(g.Params))
		}
	}
}

// A step whose repeat the allocator shows from its warmed cache
// (Allocator.RepeatsFromCache) gets exactly the figures of walking and
// replaying that repeat: every phase, every event of the timeline, the
// errors. Every bundled description runs with the options that change the
// allocator's path (a capacity, a limit, a device, expandable segments off
// and on come from the descriptions).
func TestRepeatFromCacheIsIdentical(t *testing.T) {
	p, _ := calibrate.Builtin("h200")
	files := exampleFiles(t)
	if testing.Short() {
		// and one whose third step is derived
		files = append(files[:8:8], "../examples/vit-base-amp-bf16-adamw-ckpt-b32.yaml")
	}
	derived := 0
	for _, f := range files {
		m, g := expanded(t, f)
		for _, opt := range []estimate.Options{{Timeline: true}, {Timeline: true, Capacity: 40 << 30}, {Limit: 60 << 30}, {Device: 80 << 30}} {
			got, walked, gotErr := estimate.RunCountingSteps(m, g, p, opt)
			want, full, wantErr := estimate.RunCountingSteps(m, g, p, estimate.WalkEveryStep(opt))
			if walked < full {
				derived++
			}
			if !sameError(gotErr, wantErr) {
				t.Errorf("%s %+v: errors differ: %v / %v", f, opt, gotErr, wantErr)
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %+v: the derived step's result differs", f, opt)
			}
		}
	}
	// The check must have been put to work: ViT-B checkpointed's third
	// step, for one, repeats its second from the cache.
	if derived == 0 {
		t.Error("no run derived a step")
	}
	t.Logf("%d of %d runs derived their last step", derived, 4*len(files))
}
