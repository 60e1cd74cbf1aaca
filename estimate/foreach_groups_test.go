package estimate_test

import (
	"testing"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/estimate"
	"github.com/memplan/memplan/spec"
)

// With parameters of two dtypes, foreach Adam's sqrt copies of one group
// are still alive when the next group's are made: the optimizer peak holds
// both groups' copies at once.
func TestForeachGroupsOverlap(t *testing.T) {
	m, err := spec.Parse("g.yaml", []byte("model:\n  inputs: {x: {shape: [batch, 1024]}, y: {shape: [batch, 1024]}}\n  layers: [{relu: {}}]\n  loss: mse\ntraining: {batch_size: 8, optimizer: adam}\n"))
	if err != nil {
		t.Fatal(err)
	}
	b := spec.NewBuilder(m.Training)
	x := b.Input("x", []int64{8, 1024}, spec.FP32)
	y := b.Input("y", []int64{8, 1024}, spec.BF16)
	w32 := b.Param("w32", []int64{4096, 1024}, spec.FP32) // 16 MiB
	w16 := b.Param("w16", []int64{1024, 4096}, spec.BF16) // 8 MiB
	h := b.Linear("l1", x, w32, spec.NoTensor)
	h = b.Cast("to_bf16", h, spec.BF16)
	h = b.Linear("l2", h, w16, spec.NoTensor)
	g, err := b.Finish(b.MSELoss("loss", h, y))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := calibrate.Builtin("h200")
	r, err := estimate.Run(m, g, p, estimate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	steady := r.Iterations[len(r.Iterations)-1]
	var opt, zero estimate.PhaseRun
	for _, ph := range steady.Phases {
		switch ph.Phase {
		case estimate.PhaseOptimizer:
			opt = ph
		case estimate.PhaseZeroGrad:
			zero = ph
		}
	}
	// zero_grad starts from the optimizer's end state; the step's peak adds
	// both groups' copies (16 MiB + 8 MiB) on top of it.
	if got, want := opt.PeakAllocatedBytes-zero.PeakAllocatedBytes, int64(24<<20); got != want {
		t.Errorf("optimizer peak above its end state = %d, want %d (both groups' sqrt copies)", got, want)
	}
}

// SGD with momentum makes one buffer per parameter at the first step and
// updates in place after, whatever the implementation: fused SGD's
// allocator events are foreach SGD's, one for one.
func TestFusedSGDIsForeachSGD(t *testing.T) {
	events := func(impl string) []estimate.Event {
		src := "model: {architecture: GPT2LMHeadModel, config: {n_layer: 2}}\ntraining: {batch_size: 2, seq_len: 128, optimizer: sgd, momentum: 0.9, optimizer_impl: " + impl + "}\n"
		m, g := expandedSource(t, "sgd.yaml", src)
		p, _ := calibrate.Builtin("h200")
		r, err := estimate.Run(m, g, p, estimate.Options{Timeline: true})
		if err != nil {
			t.Fatal(err)
		}
		return r.Timeline
	}
	fused, foreach := events("fused"), events("foreach")
	if len(fused) != len(foreach) {
		t.Fatalf("fused SGD: %d events, foreach: %d", len(fused), len(foreach))
	}
	state := 0
	for i := range fused {
		if fused[i] != foreach[i] {
			t.Fatalf("event %d: fused %+v, foreach %+v", i, fused[i], foreach[i])
		}
		if fused[i].Role == spec.RoleOptimizerState.String() && fused[i].Action == estimate.ActionAlloc {
			state++
		}
	}
	if state == 0 {
		t.Errorf("no momentum buffers made")
	}
}
