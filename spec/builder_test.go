package spec

import (
	"slices"
	"testing"
)

// TestNoGradExtras: an op that saves nothing still makes the extras its
// kernel always makes, as temporaries where the extra would have been —
// layer_norm's mean and rstd after its output; cuDNN attention's philox
// seed and offset before its output, with no logsumexp (measured in ViT,
// GPT-2 and TinyLlama inference traces) — and keeps them where an input
// needs a gradient in training.
func TestNoGradExtras(t *testing.T) {
	names := func(g *Graph, ids []TensorID) []string {
		var out []string
		for _, id := range ids {
			out = append(out, g.Tensors[id].Name)
		}
		return out
	}
	wantTemps := func(g *Graph, out TensorID, first int, want ...string) {
		t.Helper()
		op := &g.Ops[g.Tensors[out].Op]
		if got := names(g, op.Temps); !slices.Equal(got, want) || op.TempsFirst != first || len(op.Extra) != 0 {
			t.Errorf("%s: temps %v (%d before the output), %d extras; want %v (%d before)", op.Name, got, op.TempsFirst, len(op.Extra), want, first)
		}
	}
	wantExtras := func(g *Graph, out TensorID, after int, want ...string) {
		t.Helper()
		op := &g.Ops[g.Tensors[out].Op]
		if got := names(g, op.Extra); !slices.Equal(got, want) || op.ExtraAfter != after || op.TempsFirst != 0 {
			t.Errorf("%s: extras %v (%d after the output), %d temps first; want %v (%d after)", op.Name, got, op.ExtraAfter, op.TempsFirst, want, after)
		}
	}
	for _, mode := range []Mode{ModeInference, ModeTrain} {
		b := NewBuilder(Training{Mode: mode, BatchSize: 2, SeqLen: 16})
		x := b.Input("x", []int64{2, 16, 64}, BF16)
		w := b.Param("w", []int64{64}, BF16)
		ln := b.LayerNorm("ln", x, w, NoTensor)
		q := b.Input("q", []int64{2, 4, 16, 16}, BF16)
		frozen := b.SDPACausal("frozen", q, q, q) // no input needs a gradient
		b.T(q).RequiresGrad = mode == ModeTrain
		att := b.SDPACausal("attn", q, q, q)
		wantTemps(b.g, frozen, 2, "frozen.philox_seed", "frozen.philox_offset", "frozen.scratch")
		if mode == ModeInference {
			wantTemps(b.g, ln, 0, "ln.mean", "ln.rstd")
			wantTemps(b.g, att, 2, "attn.philox_seed", "attn.philox_offset", "attn.scratch")
			continue
		}
		wantExtras(b.g, ln, 2, "ln.mean", "ln.rstd")
		wantExtras(b.g, att, 1, "attn.philox_seed", "attn.philox_offset", "attn.logsumexp")
	}
}

// TestResidentLast: a module's own parameters keep their place in
// model.parameters() (Graph.Params) and move after its submodules' in the
// order model.cuda() allocates (Graph.Resident).
func TestResidentLast(t *testing.T) {
	b := NewBuilder(Training{Mode: ModeTrain, BatchSize: 1})
	cls := b.Param("cls_token", []int64{8}, FP32)
	pos := b.Param("position_embeddings", []int64{4, 8}, FP32)
	w := b.Param("patch.weight", []int64{8, 8}, FP32)
	bias := b.Param("patch.bias", []int64{8}, FP32)
	b.ResidentLast(cls, pos)
	buf := b.Buffer("ids", []int64{4}, Int64)
	g := b.g
	if want := []TensorID{cls, pos, w, bias}; !slices.Equal(g.Params, want) {
		t.Errorf("params %v, want %v", g.Params, want)
	}
	if want := []TensorID{w, bias, cls, pos, buf}; !slices.Equal(g.Resident, want) {
		t.Errorf("resident %v, want %v", g.Resident, want)
	}
}

// TestLayerNormBlockedGrads: layer_norm's backward over more than 64 × 1024
// rows of few columns makes its weight's and bias's gradients through
// partial-sum buffers and a sum each (measured on BERT over 260 × 512
// tokens): the first gradients, two [1365, 768] buffers, then per
// parameter its gradient, the sum's staging and semaphores (freed at
// once) and the first gradient freed. At 65,536 rows, at 2,112 columns and
// in inference the kernels write the gradients directly.
func TestLayerNormBlockedGrads(t *testing.T) {
	var g *Graph
	ln := func(mode Mode, rows, cols int64) *Op {
		b := NewBuilder(Training{Mode: mode, BatchSize: 1})
		w, bias := b.Param("w", []int64{cols}, FP32), b.Param("b", []int64{cols}, FP32)
		x := b.Param("x", []int64{rows, cols}, FP32) // requires grad, as an activation would
		out := b.LayerNorm("ln", x, w, bias)
		g = b.g
		return &b.g.Ops[b.g.Tensors[out].Op]
	}
	op := ln(ModeTrain, 260*512, 768)
	var sizes []int64
	for _, id := range op.BackwardTemps {
		sizes = append(sizes, g.Tensors[id].Bytes)
	}
	if want := []int64{3072, 3072, 4193280, 4193280, 8650752, 24, 8650752, 24}; !slices.Equal(sizes, want) {
		t.Errorf("backward temps %v, want %v", sizes, want)
	}
	want := []BackwardStep{{StepMakeTemp, 0}, {StepMakeTemp, 1}, {StepMakeTemp, 2}, {StepMakeTemp, 3},
		{StepParamGrad, 0}, {StepMakeTemp, 4}, {StepMakeTemp, 5}, {StepFreeTemp, 5}, {StepFreeTemp, 4}, {StepFreeTemp, 0},
		{StepParamGrad, 1}, {StepMakeTemp, 6}, {StepMakeTemp, 7}, {StepFreeTemp, 7}, {StepFreeTemp, 6}, {StepFreeTemp, 1}}
	if got := g.Script(op); !slices.Equal(got, want) {
		t.Errorf("script %v, want %v", got, want)
	}
	for _, c := range []struct {
		mode       Mode
		rows, cols int64
	}{{ModeTrain, 64 * 1024, 768}, {ModeTrain, 260 * 512, 2112}, {ModeInference, 260 * 512, 768}} {
		if op := ln(c.mode, c.rows, c.cols); len(op.BackwardTemps) != 0 || g.Script(op) != nil {
			t.Errorf("%v over [%d, %d]: temps %v, script %v; want none", c.mode, c.rows, c.cols, op.BackwardTemps, g.Script(op))
		}
	}
}
