package estimate_test

import (
	"strings"
	"testing"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/estimate"
)

// Orders measured on an H200 (the first-iteration allocator trace of
// llama-small-bf16-ddp-ckpt-w2, probe --trace-run): a GEMM's output comes
// before the cuBLAS workspace its first call makes — in the forward the
// rotary embedding's inv_freq @ positions, in the backward the lm_head
// weight's gradient, then the autograd thread's workspace — and a
// checkpointed Llama layer's recompute stops before down_proj, which saves
// only its input, so down_proj's output is not made again.
func TestMeasuredOrders(t *testing.T) {
	r := timelineOf(t, "../examples/measured/llama-small-bf16-adamw-ckpt-b4.yaml")
	workspace := -1
	for i, e := range r.Timeline {
		if e.Iteration == 1 && e.Phase == estimate.PhaseForward && e.Tensor == "cublas workspace (main thread)" {
			if prev := r.Timeline[i-1]; prev.Tensor != "model.rotary_emb.freqs.out" {
				t.Errorf("the main thread's workspace follows %q (want model.rotary_emb.freqs.out: the rotary bmm is the first GEMM)", prev.Tensor)
			}
		}
		if e.Iteration != 1 || e.Phase != estimate.PhaseBackward || e.Action != estimate.ActionAlloc {
			continue
		}
		if e.Tensor == "cublas workspace (autograd thread)" {
			workspace = i
			if prev := r.Timeline[i-1]; prev.Tensor != "lm_head.weight.grad" {
				t.Errorf("the autograd workspace follows %q (want lm_head.weight.grad)", prev.Tensor)
			}
		}
		if strings.HasSuffix(e.Tensor, "mlp.down_proj.out") {
			t.Errorf("the recompute made %s again", e.Tensor)
		}
	}
	if workspace < 0 {
		t.Error("no autograd workspace in the first backward")
	}
}

// A checkpointed op's recomputed saved tensors die with its backward
// function's locals, before the autograd engine reduces a broadcast
// gradient; other saved tensors go after that reduction, with the node's
// variables. Measured (the steady trace of holdout3's
// vit-fp32-sgd-ckpt-b32): a ViT fc2's recomputed input, the GELU output,
// is freed between its weight's gradient and its bias's staging buffer.
func TestRecomputedSavedDieBeforeReduction(t *testing.T) {
	for _, c := range []struct {
		file    string
		freedAt func(staging, freed int) bool
	}{
		{"../examples/holdout3/vit-fp32-sgd-ckpt-b32.yaml", func(staging, freed int) bool { return freed < staging }},
		{"../examples/measured/vit-fp32-adamw-b32.yaml", func(staging, freed int) bool { return freed > staging }},
	} {
		r := timelineOf(t, c.file)
		staging, freed := -1, -1
		for i, e := range r.Timeline {
			if e.Iteration != 2 || e.Phase != estimate.PhaseBackward {
				continue
			}
			switch {
			case e.Action == estimate.ActionAlloc && e.Tensor == "vit.layers.0.mlp.fc2.reduce_staging":
				staging = i
			case e.Action == estimate.ActionFree && e.Tensor == "vit.layers.0.mlp.activation_fn.out":
				freed = i
			}
		}
		if staging < 0 || freed < 0 {
			t.Fatalf("%s: staging buffer at %d, fc2 input freed at %d", c.file, staging, freed)
		}
		if !c.freedAt(staging, freed) {
			t.Errorf("%s: fc2's saved input freed at event %d, its bias's staging buffer made at %d", c.file, freed, staging)
		}
	}
}

// Eager attention's Python locals, as measured in fp32 inference
// (holdout3's llama-small-eager-fp32-infer-b8-s1024): the repeated key
// lives until eager_attention_forward returns, after the output's
// contiguous copy; the attention weights it returns stay in the decoder
// layer's `_` until the layer returns, after add_mlp.
func TestEagerAttentionLocals(t *testing.T) {
	at := firstEvents(timelineOf(t, "../examples/holdout3/llama-small-eager-fp32-infer-b8-s1024.yaml"), 2, estimate.PhaseForward)
	before := func(a, b string) { t.Helper(); assertBefore(t, at, a, b) }
	const l = "model.layers.1."
	before("alloc "+l+"self_attn.eager.transpose_contiguous.out", "free "+l+"self_attn.eager.repeat_k.out")
	before("alloc "+l+"add_mlp.out", "free "+l+"self_attn.eager.softmax.out")
}

// GPT-2's Conv1D is torch.addmm(bias, x, w): the engine reduces the bias's
// gradient over the rows with a staging buffer, like a Linear's (measured
// in holdout3's gpt2-fp32-adamw-b8-maxsplit128 trace: 50331648 B after the
// MLP c_proj's input gradient; with max_split_size_mb it needs a segment
// of its own).
func TestConv1DBiasGradStaging(t *testing.T) {
	r := timelineOf(t, "../examples/holdout3/gpt2-fp32-adamw-b8-maxsplit128.yaml")
	for _, e := range r.Timeline {
		if e.Iteration == 1 && e.Action == estimate.ActionAlloc && e.Tensor == "transformer.h.11.mlp.c_proj.reduce_staging" {
			if e.Bytes != 50331648 {
				t.Errorf("c_proj's bias staging: %d B, want 50331648", e.Bytes)
			}
			return
		}
	}
	t.Error("no staging buffer for the MLP c_proj's bias gradient")
}

// A Linear over a [B, S, K] input hands its input's gradient back as a
// view (F.linear folds the input to 2-D and unfolds the gradient), so
// autograd's InputBuffer cannot add the next gradient into it in place (its
// storage is shared with the view's base) and sums out of place into a new
// buffer: the MLP input of a Llama layer, reached by up_proj and gate_proj,
// has three gradient buffers in the backward, not two.
func TestViewGradientsAddOutOfPlace(t *testing.T) {
	r := timelineOf(t, "../examples/measured/llama-small-bf16-adamw-ckpt-b4.yaml")
	const grad = "grad(model.layers.1.post_attention_layernorm.mul_weight.out)"
	allocs := 0
	for _, e := range r.Timeline {
		if e.Iteration == 2 && e.Phase == estimate.PhaseBackward && e.Action == estimate.ActionAlloc && e.Tensor == grad {
			allocs++
		}
	}
	if allocs != 3 {
		t.Errorf("%s: %d buffers in the backward, want 3 (up_proj's, gate_proj's, their sum)", grad, allocs)
	}
}

// Measured in the steady trace of holdout4's
// qwen2-small-fp32-adamw-ckpt-b2-s1024 (fp32 with grouped KV heads: SDPA's
// math kernel): the engine runs the newest nodes first, and the math kernel
// scales q before it repeats k and v, then folds the scaled q into a copy
// for the matmul — so q's scale is the last of the attention's backward
// nodes. And a backward function's incoming gradient is released as it
// returns, before the engine sums the tied embedding's two gradients: the
// embedding's incoming gradient is freed before the sum is made.
func TestEngineOrderAtFunctionReturn(t *testing.T) {
	at := firstEvents(timelineOf(t, "../examples/holdout4/qwen2-small-fp32-adamw-ckpt-b2-s1024.yaml"), 2, estimate.PhaseBackward)
	before := func(a, b string) { t.Helper(); assertBefore(t, at, a, b) }
	const l = "model.layers.7.self_attn."
	before("alloc grad("+l+"rotary_k.add.out)", "alloc grad("+l+"rotary_q.add.out)")
	before("alloc grad("+l+"v_view.out)", "alloc grad("+l+"rotary_q.add.out)")
	before("free grad(model.layers.7.add_mlp.out)", "alloc model.embed_tokens.weight.grad (sum)")
}

// Backward buffers measured in steady traces (the allocator's requests
// line up one for one with the estimate's): the fp32 memory-efficient
// attention frees its delta product before it makes its dq workspace (GPT-2,
// 25,165,824 and 25,190,400 B); BERT's 2-row token-type table takes the
// fused embedding backward (a partial-to-segment map, no per-segment sums);
// a tied weight's second gradient is summed out of place in fp32 (the
// lm_head's gradient is a view) and in place under autocast.
func TestMeasuredBackwardBuffers(t *testing.T) {
	type event struct {
		action estimate.Action
		tensor string
	}
	find := func(r *estimate.Result, want event) (int, int64) {
		for i, e := range r.Timeline {
			if e.Iteration == 2 && e.Phase == estimate.PhaseBackward && e.Action == want.action && e.Tensor == want.tensor {
				return i, e.Requested
			}
		}
		return -1, 0
	}
	gpt2 := timelineOf(t, "../examples/measured/gpt2-fp32-adamw-b8.yaml")
	const sdpa = "transformer.h.11.attn.sdpa."
	freed, _ := find(gpt2, event{estimate.ActionFree, sdpa + "delta_product"})
	made, ws := find(gpt2, event{estimate.ActionAlloc, sdpa + "workspace"})
	if _, product := find(gpt2, event{estimate.ActionAlloc, sdpa + "delta_product"}); product != 25165824 || ws != 25190400 || freed < 0 || freed > made {
		t.Errorf("GPT-2 attention backward: delta product %d B freed at %d, workspace %d B made at %d", product, freed, ws, made)
	}
	if i, _ := find(gpt2, event{estimate.ActionAlloc, "transformer.wte.weight.grad (sum)"}); i < 0 {
		t.Error("GPT-2 fp32: the tied wte's gradients are not summed out of place")
	}
	bert := timelineOf(t, "../examples/measured/bert-fp32-adamw-b8.yaml")
	if i, _ := find(bert, event{estimate.ActionAlloc, "bert.embeddings.token_type_embeddings.grad_weight_per_segment"}); i >= 0 {
		t.Error("BERT's token-type backward keeps per-segment sums (want the fused kernel)")
	}
	if _, n := find(bert, event{estimate.ActionAlloc, "bert.embeddings.token_type_embeddings.partial_to_segment"}); n != 3288 {
		t.Errorf("BERT's token-type partial-to-segment map: %d B, want 3288 (411 int64)", n)
	}
	amp := timelineOf(t, "../examples/measured/bert-amp-bf16-adamw-b8.yaml")
	if i, _ := find(amp, event{estimate.ActionAlloc, "bert.embeddings.word_embeddings.weight.grad (sum)"}); i >= 0 {
		t.Error("BERT under autocast: the tied word embedding's gradients are summed out of place")
	}
}

// Python locals of GPT-2's modules, measured in no-grad forwards (the
// steady traces of gpt2-fp32-infer-b8 and gpt2-fp32-adamw-ckpt-b8): the
// block's hidden_states (ln_1's output) lives until the residual add
// rebinds it, c_attn's output until the attention module returns, and a
// checkpoint's recompute, which stops at the block's last saver (the MLP's
// dropout), lets the block's locals go there — attn_output among them.
func TestGPT2Locals(t *testing.T) {
	before := func(at map[string]int, a, b string) { t.Helper(); assertBefore(t, at, a, b) }
	infer := firstEvents(timelineOf(t, "../examples/measured/gpt2-fp32-infer-b8.yaml"), 2, estimate.PhaseForward)
	const l = "transformer.h.3."
	before(infer, "alloc "+l+"add_attn.out", "free "+l+"ln_1.out")
	before(infer, "alloc "+l+"attn.c_proj.out", "free "+l+"attn.c_attn.out")
	before(infer, "alloc "+l+"mlp.act.mul.out", "free "+l+"mlp.c_fc.out")
	ckpt := firstEvents(timelineOf(t, "../examples/measured/gpt2-fp32-adamw-ckpt-b8.yaml"), 2, estimate.PhaseBackward)
	before(ckpt, "alloc "+l+"mlp.dropout.out", "free "+l+"attn.resid_dropout.out")
}

// firstEvents maps "alloc|free tensor" to the index of its first event in
// a phase of an iteration.
func firstEvents(r *estimate.Result, iteration int, phase estimate.Phase) map[string]int {
	at := map[string]int{}
	for i, e := range r.Timeline {
		if e.Iteration == iteration && e.Phase == phase {
			if key := e.Action.String() + " " + e.Tensor; !has(at, key) {
				at[key] = i
			}
		}
	}
	return at
}

func has(m map[string]int, k string) bool { _, ok := m[k]; return ok }

// assertBefore fails unless event a comes before event b.
func assertBefore(t *testing.T, at map[string]int, a, b string) {
	t.Helper()
	ia, oka := at[a]
	ib, okb := at[b]
	if !oka || !okb || ia >= ib {
		t.Errorf("%q (event %d, found %v) should come before %q (event %d, found %v)", a, ia, oka, b, ib, okb)
	}
}

// timelineOf estimates a bundled description on the H200 profile, keeping
// every allocator event.
func timelineOf(t *testing.T, file string) *estimate.Result {
	t.Helper()
	p, _ := calibrate.Builtin("h200")
	m, g := expanded(t, file)
	r, err := estimate.Run(m, g, p, estimate.Options{Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
