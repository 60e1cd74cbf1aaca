package family

import (
	"fmt"

	"github.com/memplan/memplan/spec"
)

// gpt2Defaults are GPT2Config's defaults (transformers 5.x).
func gpt2Defaults() map[string]any {
	return map[string]any{
		"vocab_size": int64(50257), "n_positions": int64(1024), "n_embd": int64(768), "n_layer": int64(12), "n_head": int64(12),
		"n_inner": nil, "activation_function": "gelu_new", "resid_pdrop": 0.1, "embd_pdrop": 0.1, "attn_pdrop": 0.1,
		"layer_norm_epsilon": 1e-5, "tie_word_embeddings": true, "scale_attn_weights": true, "use_cache": true,
	}
}

func registerGPT2(f map[string]expander) { f["GPT2LMHeadModel"] = expandGPT2 }

// gpt2 holds a GPT-2 expansion in progress.
type gpt2 struct {
	b                      *spec.Builder
	d, heads, inner, vocab int64
	resid, embd, attnDrop  float64
	act                    string
	pdt                    spec.DType
	eager                  bool
	useCache               bool
	// mask is eager attention's additive causal mask (spec.NoTensor otherwise).
	mask       spec.TensorID
	batch, seq int64
	// hd is the head dim; ld and li are this rank's attention and MLP widths
	// (d and inner divided by training.parallel.tensor: Megatron column
	// parallel c_attn/c_fc, row parallel c_proj; heads is the local count).
	hd, ld, li int64
}

func expandGPT2(m *spec.Model, o options) (*spec.Graph, error) {
	c := newConfig(m, "GPT2Config", gpt2Defaults())
	g := &gpt2{d: c.Int("n_embd"), heads: c.Int("n_head"), vocab: c.Int("vocab_size"),
		resid: c.Float("resid_pdrop", 0, 1), embd: c.Float("embd_pdrop", 0, 1), attnDrop: c.Float("attn_pdrop", 0, 1),
		act: c.Str("activation_function", "gelu_new", "gelu", "gelu_pytorch_tanh", "relu", "gelu_fast"), mask: spec.NoTensor}
	layers := c.Layers("n_layer")
	positions := c.Int("n_positions")
	g.inner = c.OptInt("n_inner", 4*g.d)
	c.Divides("n_embd", g.d, "n_head", g.heads)
	tp := m.Training.Parallel.TensorRanks()
	c.Divides("n_head", g.heads, "training.parallel.tensor", tp)
	c.Divides("n_inner", g.inner, "training.parallel.tensor", tp)
	c.refuse("add_cross_attention", false, "GPT-2's cross-attention blocks and their layer norms in every layer")
	if m.Training.Attention == spec.AttentionEager {
		c.refuse("reorder_and_upcast_attn", false, "with eager attention GPT-2 then computes the scores in an fp32 buffer from fp32 copies of q and k")
	}
	tied := c.Bool("tie_word_embeddings")
	// HF turns the cache off when training with gradient checkpointing.
	g.useCache = c.Bool("use_cache") && !(m.Training.Mode == spec.ModeTrain && m.Training.ActivationCheckpointing)
	if c.err != nil {
		return nil, c.err
	}
	g.hd = g.d / g.heads
	g.heads /= tp
	g.ld, g.li = g.heads*g.hd, g.inner/tp
	seq, err := needSeq(m)
	if err != nil {
		return nil, err
	}
	if seq > positions {
		return nil, m.Training.KeyPos("seq_len", m.At("training")).Errorf("training.seq_len %d exceeds n_positions %d (allowed: at most n_positions)", seq, positions)
	}
	t := m.Training
	g.batch, g.seq = t.BatchSize, seq
	g.pdt = t.Precision.ParamDType()
	g.eager = t.Attention == spec.AttentionEager
	b := c.newBuilder(o, t)
	// Room for the layers Repeat builds; it sizes the lists for the rest.
	b.Grow(int(min(layers, 6))*40, int(min(layers, 6))*100)
	g.b = b
	ids, labels := textBatch(b, g.batch, seq, t.Mode == spec.ModeTrain)

	// Parameters in model.parameters() order.
	var wte, wpe spec.TensorID
	type block struct{ ln1w, ln1b, attnW, attnB, projW, projB, ln2w, ln2b, fcW, fcB, mprojW, mprojB spec.TensorID }
	blocks := make([]block, layers)
	var lnfW, lnfB, lmHead spec.TensorID
	b.Scoped("transformer", func() {
		wte = b.Param("wte.weight", []int64{g.vocab, g.d}, g.pdt)
		wpe = b.Param("wpe.weight", []int64{positions, g.d}, g.pdt)
		for i := range blocks {
			b.Scoped(fmt.Sprintf("h.%d", i), func() {
				bl := &blocks[i]
				bl.ln1w, bl.ln1b = b.Param("ln_1.weight", []int64{g.d}, g.pdt), b.Param("ln_1.bias", []int64{g.d}, g.pdt)
				bl.attnW, bl.attnB = b.Param("attn.c_attn.weight", []int64{g.d, 3 * g.ld}, g.pdt), b.Param("attn.c_attn.bias", []int64{3 * g.ld}, g.pdt)
				bl.projW, bl.projB = b.Param("attn.c_proj.weight", []int64{g.ld, g.d}, g.pdt), b.Param("attn.c_proj.bias", []int64{g.d}, g.pdt)
				bl.ln2w, bl.ln2b = b.Param("ln_2.weight", []int64{g.d}, g.pdt), b.Param("ln_2.bias", []int64{g.d}, g.pdt)
				bl.fcW, bl.fcB = b.Param("mlp.c_fc.weight", []int64{g.d, g.li}, g.pdt), b.Param("mlp.c_fc.bias", []int64{g.li}, g.pdt)
				bl.mprojW, bl.mprojB = b.Param("mlp.c_proj.weight", []int64{g.li, g.d}, g.pdt), b.Param("mlp.c_proj.bias", []int64{g.d}, g.pdt)
			})
		}
		lnfW, lnfB = b.Param("ln_f.weight", []int64{g.d}, g.pdt), b.Param("ln_f.bias", []int64{g.d}, g.pdt)
	})
	if tied {
		lmHead = wte
	} else {
		lmHead = b.Param("lm_head.weight", []int64{g.vocab, g.d}, g.pdt)
	}

	var h spec.TensorID
	b.Scoped("transformer", func() {
		b.SetLayer("transformer.embeddings")
		emb := b.Embedding("wte", ids, wte)
		pos := positionIDs(b, seq)
		pemb := b.Embedding("wpe", pos, wpe)
		h = b.Add("add_positions", emb, pemb)
		// create_causal_mask, after the embeddings are summed, checks for
		// packed sequences when no cache is passed (_preprocess_mask_arguments;
		// measured: GPT-2 with checkpointing, which turns the cache off,
		// does; with its cache, SDPA or eager, it does not).
		if !g.useCache {
			findPackedSequenceIndices(b, g.batch, g.seq)
		}
		if g.eager {
			// The additive mask, made before the embedding dropout, a local
			// of GPT2Model.forward (measured).
			g.mask = eagerCausalMask(b, "causal_mask", b.DType(h), g.batch, g.seq, 0)
		}
		h = b.Dropout("drop", h, g.embd)
		// The layers are alike: Repeat writes the copies after the first four.
		prefix := func(i int) string { return b.Path(fmt.Sprintf("h.%d", i)) }
		h = b.Repeat(len(blocks), h, func(int, int) bool { return true }, prefix, func(i int, h spec.TensorID) spec.TensorID {
			bl := blocks[i]
			name := fmt.Sprintf("h.%d", i)
			b.SetLayer("transformer." + name)
			b.BeginBlock()
			b.Scoped(name, func() {
				h = g.block(h, bl.ln1w, bl.ln1b, bl.attnW, bl.attnB, bl.projW, bl.projB, bl.ln2w, bl.ln2b, bl.fcW, bl.fcB, bl.mprojW, bl.mprojB)
			})
			b.EndBlock()
			return h
		})
		b.SetLayer("transformer.ln_f")
		h = b.LayerNorm("ln_f", h, lnfW, lnfB)
		// inputs_embeds, position_ids, position_embeds and the mask are
		// locals of GPT2Model.forward (position_ids shows in inference; in
		// training wpe's backward holds it longer).
		b.HoldUntilLastOp(emb, pos, pemb, g.mask)
	})
	b.SetLayer("lm_head")
	logits := b.Linear("lm_head", h, lmHead, spec.NoTensor)
	if t.Mode == spec.ModeInference {
		// hidden_states lives until GPT2LMHeadModel.forward returns: under
		// autocast, past lm_head's cast of it (as in Llama's measured run).
		b.HoldUntilLastOp(h)
		return b.Finish(spec.NoTensor, logits)
	}
	loss := causalLMLoss(b, logits, labels)
	// GPT2LMHeadModel.forward's hidden_states (ln_f's output) lives until it
	// returns (measured under autocast, where lm_head saves its cast).
	b.HoldUntilLastOp(h)
	return b.Finish(loss)
}

// conv1D is GPT-2's Conv1D: addmm(bias, x.view(-1, nx), weight) — a
// cuBLASLt GEMM with the bias fused — viewed back to [..., nf].
func (g *gpt2) conv1D(name string, x, w, bias spec.TensorID) spec.TensorID {
	b := g.b
	s := b.Shape(x)
	flat := b.View(name+".view_in", x, g.batch*g.seq, s[len(s)-1])
	// Conv1D's weight is [nx, nf]; the GEMM is x @ w.
	out := b.Addmm(name, flat, w, bias)
	out = b.View(name+".view_out", out, g.batch, g.seq, b.Shape(w)[1])
	// The caller's variable holds x until the module returns (measured under
	// autocast: the activation's fp32 output, whose last read is its cast,
	// is freed after c_proj's output is made).
	b.HoldUntilLastOp(x)
	return out
}

func (g *gpt2) block(h, ln1w, ln1b, attnW, attnB, projW, projB, ln2w, ln2b, fcW, fcB, mprojW, mprojB spec.TensorID) spec.TensorID {
	b := g.b
	in, residual := h, h
	x := b.LayerNorm("ln_1", h, ln1w, ln1b)
	attnOut, weights := spec.NoTensor, spec.NoTensor
	b.Scoped("attn", func() {
		qkv := g.conv1D("c_attn", x, attnW, attnB)
		parts := b.Split("split_heads", qkv, 3, []int64{g.batch, g.heads, g.seq, g.hd})
		var o spec.TensorID
		q, k, v := parts[0], parts[1], parts[2] // parts is the op's own output list: not written
		// In a batch of one no fold copies q, and its gradient (a bmm
		// output laid out [B, H, S, d]) is copied back to the projection's
		// layout by its view's backward, which runs after q·kᵀ's; without
		// the cache's copy so is v's, in any batch (measured).
		if g.eager && g.batch == 1 {
			q = b.HeadsView("q_heads", q, true, g.batch, g.heads, g.seq, g.hd)
		}
		if g.eager && !g.useCache {
			v = b.HeadsView("v_heads", v, true, g.batch, g.heads, g.seq, g.hd)
		}
		if g.eager {
			if g.useCache {
				// In the backward, v's gradient (a bmm output, [B, H, S, d])
				// is copied back to the projection's layout; k's (the
				// transposed operand's) is not (measured).
				k = b.CacheCopy("cache_keys", k, b.DType(k), false)
				v = b.CacheCopy("cache_values", v, b.DType(k), true)
			}
			o, weights = g.eagerAttention(q, k, v)
		} else {
			if g.useCache {
				// use_cache (the config default): DynamicCache.update copies
				// k and v (torch.cat) and holds them until the output is dropped.
				// Under cuDNN its dk and dv come back laid out like the
				// copies ([B, H, S, d]), and the view back to the projection's
				// [B, S, H·d] copies them (measured in bf16: one [B, S, H·d]
				// buffer each before dv's and dk's are freed); the
				// memory-efficient kernel's come back laid out [B, S, H, d].
				relayout := spec.PickSDPA(b.DType(k), false) == spec.SDPACuDNN
				k = b.CacheCopy("cache_keys", k, b.DType(k), relayout)
				v = b.CacheCopy("cache_values", v, b.DType(k), relayout)
			}
			o = b.SDPA("sdpa", q, k, v, spec.NoTensor, true)
		}
		merged := b.View("merge_heads", o, g.batch, g.seq, g.ld)
		attnOut = g.conv1D("c_proj", merged, projW, projB)
		attnOut = b.Dropout("resid_dropout", attnOut, g.resid)
		// query, key and value, views of c_attn's output, are locals of
		// GPT2Attention.forward until it returns.
		b.HoldUntilLastOp(qkv)
	})
	h = b.Add("add_attn", attnOut, residual)
	// GPT2Block.forward's hidden_states (ln_1's output) is rebound by the
	// residual add (measured in no-grad forwards: freed after add_attn).
	b.HoldUntilLastOp(x)
	residual = h
	x = b.LayerNorm("ln_2", h, ln2w, ln2b)
	var mlpOut spec.TensorID
	b.Scoped("mlp", func() {
		fc := g.conv1D("c_fc", x, fcW, fcB)
		y := g.activation("act", fc)
		// GPT2MLP.forward rebinds hidden_states (c_fc's output) once the
		// activation returns.
		b.HoldUntilLastOp(fc)
		y = g.conv1D("c_proj", y, mprojW, mprojB)
		mlpOut = b.Dropout("dropout", y, g.resid)
	})
	h = b.Add("add_mlp", residual, mlpOut)
	// attn_output, self_attn_weights (eager attention's weights),
	// feed_forward_hidden_states and hidden_states (ln_2's output) are
	// locals of GPT2Block.forward; the caller holds the block's input until
	// it returns.
	b.HoldUntilLastOp(attnOut, weights, mlpOut, x, in)
	return h
}

// activation is GPT-2's activation_function; gelu_new (the default) is
// NewGELUActivation, a composite whose muls, pow and tanh each save tensors:
// 0.5*x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * pow(x, 3)))); gelu_fast is
// FastGELUActivation, another: 0.5*x * (1 + tanh(x * 0.7978845608 *
// (1 + 0.044715 * x * x))), evaluated left to right.
func (g *gpt2) activation(name string, x spec.TensorID) spec.TensorID {
	b := g.b
	switch g.act {
	case "gelu":
		return b.GELU(name, x, false)
	case "gelu_pytorch_tanh":
		return b.GELU(name, x, true)
	case "relu":
		return b.ReLU(name, x, false)
	}
	var out spec.TensorID
	if g.act == "gelu_fast" {
		b.Scoped(name, func() {
			half := b.Scale("half_x", x)
			scaled := b.Scale("scale_x", x)
			sq := b.Mul("mul_x", b.Scale("scale_x_sq", x), x)
			inner := b.Mul("mul_inner", scaled, b.AddScalar("one_plus_sq", sq))
			t := b.Tanh("tanh", inner)
			out = b.Mul("mul", half, b.AddScalar("one_plus", t))
		})
		return out
	}
	b.Scoped(name, func() {
		half := b.Scale("half_x", x)
		cube := b.PowAutocast("pow", x)
		c := b.Scale("scale_cube", cube)
		s := b.Add("add", x, c)
		m := b.Scale("scale_sqrt_2_over_pi", s)
		t := b.Tanh("tanh", m)
		u := b.AddScalar("one_plus", t)
		out = b.Mul("mul", half, u)
	})
	return out
}

// eagerAttention is GPT-2's eager_attention_forward: q·kᵀ, scaling, the
// causal mask, softmax, dropout and ·v, each materialising [B, H, S, S].
// Returns the output's contiguous copy and the weights (dropout's output),
// which GPT2Attention returns with it.
func (g *gpt2) eagerAttention(q, k, v spec.TensorID) (out, weights spec.TensorID) {
	b := g.b
	b.Scoped("eager", func() {
		// matmul folds q — a view of c_attn's output laid out [B, S, H, d] —
		// to [B·H, S, d]: a copy, which the product saves; in the backward
		// q's gradient is copied back to the projection's layout (measured).
		// In a batch of one the fold is a view. Without the cache's copies
		// k and v are such views too: kᵀ's fold copies after q's (its
		// gradient needs no copy back), v's below (measured: GPT-2 eager
		// without its cache, batches 2 to 8).
		folds := g.batch > 1
		qf := q
		if folds {
			qf = b.MathOutputCopy("q_fold", q, b.Shape(q)...)
		}
		if folds && !g.useCache {
			k = b.Contiguous("k_fold", k, b.Shape(k)...)
		}
		scores := b.Matmul("qk", qf, k, []int64{g.batch, g.heads, g.seq, g.seq})
		scores = b.Scale("scale", scores)
		scores = b.Add("add_mask", scores, g.mask)
		p := b.Softmax("softmax", scores)
		p = b.Cast("type_as_value", p, b.DType(v))
		weights = b.Dropout("attn_dropout", p, g.attnDrop)
		if folds && !g.useCache {
			// the product saves the copy, not the view
			v = b.Contiguous("v_fold", v, b.Shape(v)...)
		}
		o := b.Matmul("pv", weights, v, b.Shape(q))
		out = b.MathOutputCopy("transpose_contiguous", o, b.Shape(q)...)
	})
	return out, weights
}
