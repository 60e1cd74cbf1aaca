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
