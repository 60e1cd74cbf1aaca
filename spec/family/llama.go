package family

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/memplan/memplan/spec"
)

// The Llama family of transformers 5.17: LlamaForCausalLM and the
// architectures that run the same modules — MistralForCausalLM (no biases,
// a sliding-window mask), Qwen2ForCausalLM (q/k/v biases, optional
// sliding-window layers), Qwen3ForCausalLM (Qwen2's layers with an
// RMSNorm over each query and key head, head_dim 128 by default) and
// Phi3ForCausalLM (fused qkv and gate/up projections, partial rotary
// embeddings, residual dropout) and GemmaForCausalLM (embeddings scaled by
// √hidden, RMSNorms that scale by 1 + weight in fp32, GELU-tanh MLP,
// head_dim 256 and tied embeddings by default), Gemma2ForCausalLM (Gemma's
// layers with a norm after attention and after the MLP too, alternating
// sliding windows, logit soft-capping) and Gemma3ForCausalLM (Gemma2's
// layers with Gemma norms over each query and key head, a rotary embedding
// per layer type, sliding windows in five of six layers). Op by op as modeling_llama.py,
// modeling_mistral.py, modeling_qwen2.py, modeling_qwen3.py and
// modeling_phi3.py, modeling_gemma.py, modeling_gemma2.py and
// modeling_gemma3.py execute them under PyTorch 2.11, checked against the H200
// allocator traces of tinyllama-bf16-adamw-b4 and the llama-small,
// mistral-small, qwen2-small, qwen3, phi3-small and gemma-small cases.

// llamaVariant is what differs between the three architectures.
type llamaVariant struct {
	arch     string
	class    string
	defaults func() map[string]any
	// qkvBias: Qwen2's q/k/v projections always have a bias; Llama's follow
	// attention_bias (o_proj too) and mlp_bias, Qwen3's attention_bias.
	qkvBias bool
	// qkNorm: Qwen3 normalises each query and key head (q_norm, k_norm:
	// RMSNorms over head_dim) before the rotary embedding.
	qkNorm bool
	// fused: Phi3's attention is one qkv_proj sliced into q, k and v, its
	// MLP one gate_up_proj chunked in two; o_proj is registered first.
	fused bool
	// gemma: Gemma's scaled embeddings and (1 + weight) norms.
	gemma bool
	// sandwich: Gemma2 and Gemma3 norm the attention's and the MLP's
	// outputs too (post_attention_layernorm, pre_ and
	// post_feedforward_layernorm), alternate sliding-window layers
	// (layer_types, or one full layer in two, Gemma3's in
	// sliding_window_pattern) and make both masks; Gemma3 also norms each
	// query and key head after the transpose (qkNorm) and makes one rotary
	// embedding per layer type.
	sandwich, gemma3 bool
	// strictHeads: the config class declares head_dim an int (Qwen3, the
	// Gemmas; theirs num_key_value_heads too), so null is refused.
	strictHeads bool
	// actKey is the config key of the MLP's activation.
	actKey string
	// layerTypes: Qwen2 and Qwen3 choose sliding-window layers through
	// use_sliding_window, max_window_layers and layer_types, and make the
	// full causal mask even when every layer slides.
	layerTypes bool
	// hfValidate: LlamaConfig.validate_architecture rejects hidden_size not
	// divisible by num_attention_heads even when head_dim is given.
	hfValidate bool
}

// llamaDefaults are LlamaConfig's defaults (transformers 5.17).
func llamaDefaults() map[string]any {
	return map[string]any{
		"vocab_size": int64(32000), "hidden_size": int64(4096), "intermediate_size": int64(11008), "num_hidden_layers": int64(32),
		"num_attention_heads": int64(32), "num_key_value_heads": nil, "hidden_act": "silu", "max_position_embeddings": int64(2048),
		"rms_norm_eps": 1e-6, "use_cache": true, "tie_word_embeddings": false, "attention_bias": false, "attention_dropout": 0.0,
		"mlp_bias": false, "head_dim": nil, "pretraining_tp": int64(1), "rope_parameters": nil,
	}
}

// mistralDefaults are MistralConfig's defaults (transformers 5.17).
func mistralDefaults() map[string]any {
	return map[string]any{
		"vocab_size": int64(32000), "hidden_size": int64(4096), "intermediate_size": int64(14336), "num_hidden_layers": int64(32),
		"num_attention_heads": int64(32), "num_key_value_heads": int64(8), "head_dim": nil, "hidden_act": "silu",
		"max_position_embeddings": int64(4096 * 32), "rms_norm_eps": 1e-6, "use_cache": true, "tie_word_embeddings": false,
		"rope_parameters": nil, "sliding_window": int64(4096), "attention_dropout": 0.0,
	}
}

// qwen2Defaults are Qwen2Config's defaults (transformers 5.17).
func qwen2Defaults() map[string]any {
	return map[string]any{
		"vocab_size": int64(151936), "hidden_size": int64(4096), "intermediate_size": int64(22016), "num_hidden_layers": int64(32),
		"num_attention_heads": int64(32), "num_key_value_heads": int64(32), "hidden_act": "silu", "max_position_embeddings": int64(32768),
		"rms_norm_eps": 1e-6, "use_cache": true, "tie_word_embeddings": false, "rope_parameters": nil, "use_sliding_window": false,
		"sliding_window": int64(4096), "max_window_layers": int64(28), "layer_types": nil, "attention_dropout": 0.0,
	}
}

// qwen3Defaults are Qwen3Config's defaults (transformers 5.17): unlike the
// others, head_dim is 128 whatever hidden_size and num_attention_heads are.
func qwen3Defaults() map[string]any {
	return map[string]any{
		"vocab_size": int64(151936), "hidden_size": int64(4096), "intermediate_size": int64(22016), "num_hidden_layers": int64(32),
		"num_attention_heads": int64(32), "num_key_value_heads": int64(32), "head_dim": int64(128), "hidden_act": "silu",
		"max_position_embeddings": int64(32768), "rms_norm_eps": 1e-6, "use_cache": true, "tie_word_embeddings": false,
		"rope_parameters": nil, "attention_bias": false, "use_sliding_window": false, "sliding_window": int64(4096),
		"max_window_layers": int64(28), "layer_types": nil, "attention_dropout": 0.0,
	}
}

// phi3Defaults are Phi3Config's defaults (transformers 5.17); embd_pdrop
// is read by no module of 5.17's Phi3Model.
func phi3Defaults() map[string]any {
	return map[string]any{
		"vocab_size": int64(32064), "hidden_size": int64(3072), "intermediate_size": int64(8192), "num_hidden_layers": int64(32),
		"num_attention_heads": int64(32), "num_key_value_heads": nil, "head_dim": nil, "resid_pdrop": 0.0, "embd_pdrop": 0.0,
		"attention_dropout": 0.0, "hidden_act": "silu", "max_position_embeddings": int64(4096),
		"original_max_position_embeddings": int64(4096), "rms_norm_eps": 1e-5, "use_cache": true, "tie_word_embeddings": false,
		"rope_parameters": nil, "partial_rotary_factor": 1.0, "sliding_window": nil,
	}
}

// gemmaDefaults are GemmaConfig's defaults (transformers 5.17, Gemma-7B).
func gemmaDefaults() map[string]any {
	return map[string]any{
		"vocab_size": int64(256000), "hidden_size": int64(3072), "intermediate_size": int64(24576), "num_hidden_layers": int64(28),
		"num_attention_heads": int64(16), "num_key_value_heads": int64(16), "head_dim": int64(256), "hidden_act": "gelu_pytorch_tanh",
		"max_position_embeddings": int64(8192), "rms_norm_eps": 1e-6, "use_cache": true, "tie_word_embeddings": true,
		"rope_parameters": nil, "attention_bias": false, "attention_dropout": 0.0, "use_bidirectional_attention": nil,
	}
}

// gemma2Defaults are Gemma2Config's defaults (transformers 5.17, Gemma-2-2B).
func gemma2Defaults() map[string]any {
	return map[string]any{
		"vocab_size": int64(256000), "hidden_size": int64(2304), "intermediate_size": int64(9216), "num_hidden_layers": int64(26),
		"num_attention_heads": int64(8), "num_key_value_heads": int64(4), "head_dim": int64(256), "hidden_activation": "gelu_pytorch_tanh",
		"max_position_embeddings": int64(8192), "rms_norm_eps": 1e-6, "use_cache": true, "tie_word_embeddings": true,
		"rope_parameters": nil, "attention_bias": false, "attention_dropout": 0.0, "query_pre_attn_scalar": int64(256),
		"sliding_window": int64(4096), "layer_types": nil, "final_logit_softcapping": 30.0, "attn_logit_softcapping": 50.0,
		"use_bidirectional_attention": nil,
	}
}

// gemma3Defaults are Gemma3TextConfig's defaults (transformers 5.17); the
// class reads sliding_window_pattern (6) from its keyword arguments.
func gemma3Defaults() map[string]any {
	return map[string]any{
		"vocab_size": int64(262208), "hidden_size": int64(2304), "intermediate_size": int64(9216), "num_hidden_layers": int64(26),
		"num_attention_heads": int64(8), "num_key_value_heads": int64(4), "head_dim": int64(256), "hidden_activation": "gelu_pytorch_tanh",
		"max_position_embeddings": int64(131072), "rms_norm_eps": 1e-6, "use_cache": true, "tie_word_embeddings": true,
		"rope_parameters": nil, "attention_bias": false, "attention_dropout": 0.0, "query_pre_attn_scalar": int64(256),
		"sliding_window": int64(4096), "layer_types": nil, "final_logit_softcapping": nil, "attn_logit_softcapping": nil,
		"use_bidirectional_attention": false, "sliding_window_pattern": int64(6),
	}
}

func registerLlama(f map[string]expander) {
	for _, v := range []llamaVariant{
		{arch: "LlamaForCausalLM", class: "LlamaConfig", defaults: llamaDefaults, hfValidate: true},
		{arch: "MistralForCausalLM", class: "MistralConfig", defaults: mistralDefaults},
		{arch: "Qwen2ForCausalLM", class: "Qwen2Config", defaults: qwen2Defaults, qkvBias: true, layerTypes: true},
		{arch: "Qwen3ForCausalLM", class: "Qwen3Config", defaults: qwen3Defaults, qkNorm: true, layerTypes: true, strictHeads: true},
		{arch: "Phi3ForCausalLM", class: "Phi3Config", defaults: phi3Defaults, fused: true},
		{arch: "GemmaForCausalLM", class: "GemmaConfig", defaults: gemmaDefaults, gemma: true, strictHeads: true},
		{arch: "Gemma2ForCausalLM", class: "Gemma2Config", defaults: gemma2Defaults, gemma: true, sandwich: true, actKey: "hidden_activation", hfValidate: true, strictHeads: true},
		{arch: "Gemma3ForCausalLM", class: "Gemma3TextConfig", defaults: gemma3Defaults, gemma: true, sandwich: true, gemma3: true, qkNorm: true, actKey: "hidden_activation", hfValidate: true, strictHeads: true},
	} {
		v := v
		f[v.arch] = func(m *spec.Model, o options) (*spec.Graph, error) { return expandLlama(m, v, o) }
	}
}

// llama holds one expansion in progress of the variant it embeds.
type llama struct {
	llamaVariant
	b                              *spec.Builder
	d, heads, kvHeads, headDim     int64
	inner, vocab, layers           int64
	batch, seq                     int64
	pdt                            spec.DType
	attnBias, oBias, mlpBias, tied bool
	useCache, eager                bool
	// logitCap and scoreCap are Gemma2's final and attention logit
	// soft-capping (0: none).
	logitCap, scoreCap  float64
	act                 string
	attnDrop, residDrop float64
	// rotary is how many of each head's dimensions the rotary embedding
	// turns (Phi3's partial_rotary_factor; headDim elsewhere).
	rotary int64
	// window is the sliding window of each layer (0: full causal attention).
	window []int64
	// maskWindows are the windows LlamaModel.forward makes a mask for, in
	// order (0: the full causal mask); Qwen2 makes the full one even when
	// every layer slides.
	maskWindows []int64
}

// absentLayer is a layer with none of its parameters made yet.
func absentLayer(window int64) llamaLayer {
	no := spec.NoTensor
	return llamaLayer{inNorm: no, q: no, qb: no, k: no, kb: no, v: no, vb: no, o: no, ob: no, postNorm: no,
		gate: no, gateB: no, up: no, upB: no, down: no, downB: no, preFF: no, postFF: no,
		qNorm: no, kNorm: no, qkv: no, gateUp: no, window: window}
}

// llamaLayer holds one decoder layer's parameters and its sliding window
// (0: full causal attention).
type llamaLayer struct {
	inNorm, q, qb, k, kb, v, vb, o, ob, postNorm, gate, gateB, up, upB, down, downB spec.TensorID
	// preFF and postFF are Gemma2's and Gemma3's norms around the MLP.
	preFF, postFF spec.TensorID
	// qNorm and kNorm are Qwen3's per-head norms, qkv and gateUp Phi3's
	// fused projections (spec.NoTensor elsewhere).
	qNorm, kNorm, qkv, gateUp spec.TensorID
	window                    int64
}

func expandLlama(m *spec.Model, v llamaVariant, o options) (*spec.Graph, error) {
	c := newConfig(m, v.class, v.defaults())
	l := &llama{llamaVariant: v, vocab: c.Int("vocab_size"), d: c.Int("hidden_size"), inner: c.Int("intermediate_size"), layers: c.Layers("num_hidden_layers"),
		heads: c.Int("num_attention_heads"), act: c.Str(cmp.Or(v.actKey, "hidden_act"), "silu", "swish", "gelu", "gelu_pytorch_tanh", "relu")}
	// Qwen3's and the Gemmas' config classes declare head_dim (and the
	// Gemmas num_key_value_heads) as int: transformers refuses None there.
	if v.strictHeads && c.null("head_dim") {
		c.failNull("head_dim", "a positive integer")
	}
	if v.gemma && c.null("num_key_value_heads") {
		c.failNull("num_key_value_heads", "a positive integer")
	}
	l.kvHeads = c.OptInt("num_key_value_heads", l.heads)
	l.headDim = c.OptInt("head_dim", 0)
	if l.headDim == 0 || v.hfValidate {
		c.Divides("hidden_size", l.d, "num_attention_heads", l.heads)
	}
	if l.headDim == 0 {
		l.headDim = l.d / l.heads
	}
	c.Divides("num_attention_heads", l.heads, "num_key_value_heads", l.kvHeads)
	// An error about the head dimension points at head_dim when it is given,
	// else at hidden_size, which it then follows from.
	headDimKey := "head_dim"
	if hd, given := m.Config[headDimKey]; !given || hd.V == nil {
		headDimKey = "hidden_size"
	}
	if c.err == nil && l.headDim > 256 && m.Training.Attention == spec.AttentionSDPA {
		// transformers repeats k and v for SDPA past 256 (use_gqa_in_sdpa),
		// and which SDPA kernel PyTorch picks there was not measured.
		c.fail(headDimKey, "a head dimension of %d is not modelled with SDPA (allowed: up to 256, or training.attention: eager)", l.headDim)
	}
	c.Int("max_position_embeddings")
	c.Float("rms_norm_eps", 0, 1)
	l.attnDrop = c.Float("attention_dropout", 0, 1)
	l.tied = c.Bool("tie_word_embeddings")
	switch {
	case v.qkvBias:
		l.attnBias = true
	case v.class == "LlamaConfig":
		l.attnBias = c.Bool("attention_bias")
		l.oBias = l.attnBias
		l.mlpBias = c.Bool("mlp_bias")
	case v.class == "Qwen3Config" || v.gemma:
		l.attnBias = c.Bool("attention_bias")
		l.oBias = l.attnBias
	}
	if v.gemma {
		if v.sandwich {
			c.Int("query_pre_attn_scalar")
			l.logitCap = c.optFloat("final_logit_softcapping")
			// Gemma3's attention never passes attn_logit_softcapping on;
			// Gemma2's SDPA ignores it (eager applies it).
			l.scoreCap = c.optFloat("attn_logit_softcapping")
			if v.gemma3 || m.Training.Attention != spec.AttentionEager {
				l.scoreCap = 0
			}
		}
		if bi, ok := m.Config["use_bidirectional_attention"]; ok && truthy(bi.V) {
			c.fail("use_bidirectional_attention", "%s makes every layer attend both ways, which is not modelled (allowed: false or null)", spec.DescribeValue(bi.V))
		}
	}
	l.rotary = l.headDim
	if v.fused {
		l.residDrop = c.Float("resid_pdrop", 0, 1)
		c.Float("embd_pdrop", 0, 1)
		c.Int("original_max_position_embeddings")
		l.rotary = c.rotaryDims(l.headDim, headDimKey)
	}
	// (Mistral's projections have no bias whatever attention_bias and
	// mlp_bias say: modeling_mistral.py builds them with bias=False.)
	t := m.Training
	train := t.Mode == spec.ModeTrain
	// HF turns the cache off when training with gradient checkpointing.
	l.useCache = c.Bool("use_cache") && !(train && t.ActivationCheckpointing)
	l.window = c.slidingWindows(v, l.layers)
	if v.sandwich {
		// Gemma2/3 make the full and the sliding mask whatever the layers are.
		l.maskWindows = []int64{0, c.OptInt("sliding_window", 0)}
	} else {
		for _, w := range l.window {
			if !slices.Contains(l.maskWindows, w) {
				l.maskWindows = append(l.maskWindows, w)
			}
		}
		if v.layerTypes && !slices.Contains(l.maskWindows, 0) {
			l.maskWindows = append([]int64{0}, l.maskWindows...)
		}
	}
	if c.err == nil && !v.fused && l.headDim%2 != 0 {
		c.fail(headDimKey, "head dimension %d is odd (allowed: an even head_dim; rotary embeddings rotate halves)", l.headDim)
	}
	// Megatron-style tensor parallelism: q/k/v and gate/up are column
	// parallel (each rank holds its share of heads, kv heads and MLP width),
	// o_proj and down_proj row parallel (their outputs are all-reduced in
	// place); embeddings, norms and lm_head stay replicated.
	tp := m.Training.Parallel.TensorRanks()
	c.Divides("num_attention_heads", l.heads, "training.parallel.tensor", tp)
	c.Divides("num_key_value_heads", l.kvHeads, "training.parallel.tensor", tp)
	c.Divides("intermediate_size", l.inner, "training.parallel.tensor", tp)
	if c.err != nil {
		return nil, c.err
	}
	l.heads, l.kvHeads, l.inner = l.heads/tp, l.kvHeads/tp, l.inner/tp
	seq, err := needSeq(m)
	if err != nil {
		return nil, err
	}
	l.batch, l.seq = t.BatchSize, seq
	l.pdt = t.Precision.ParamDType()
	l.eager = t.Attention == spec.AttentionEager
	b := c.newBuilder(o, t)
	// Room for the layers Repeat builds; it sizes the lists for the rest.
	b.Grow(int(min(l.layers, 6))*64, int(min(l.layers, 6))*160)
	l.b = b
	ids, labels := textBatch(b, l.batch, seq, train)

	// Parameters in model.parameters() order.
	var embed, norm, lmHead, embedScale spec.TensorID
	layers := make([]llamaLayer, l.layers)
	bias := func(on bool, name string, n int64) spec.TensorID {
		if !on {
			return spec.NoTensor
		}
		return b.Param(name, []int64{n}, l.pdt)
	}
	qDim, kvDim := l.heads*l.headDim, l.kvHeads*l.headDim
	b.Scoped("model", func() {
		embed = b.Param("embed_tokens.weight", []int64{l.vocab, l.d}, l.pdt)
		if l.gemma {
			// GemmaTextScaledWordEmbedding's embed_scale, a 0-d buffer.
			embedScale = b.Buffer("embed_tokens.embed_scale", nil, l.pdt)
		}
		for i := range layers {
			b.Scoped(fmt.Sprintf("layers.%d", i), func() {
				p := &layers[i]
				*p = absentLayer(l.window[i])
				if l.fused {
					// Phi3Attention registers o_proj before qkv_proj.
					p.o = b.Param("self_attn.o_proj.weight", []int64{l.d, qDim}, l.pdt)
					p.qkv = b.Param("self_attn.qkv_proj.weight", []int64{qDim + 2*kvDim, l.d}, l.pdt)
					p.gateUp = b.Param("mlp.gate_up_proj.weight", []int64{2 * l.inner, l.d}, l.pdt)
				} else {
					p.q, p.qb = b.Param("self_attn.q_proj.weight", []int64{qDim, l.d}, l.pdt), bias(l.attnBias, "self_attn.q_proj.bias", qDim)
					p.k, p.kb = b.Param("self_attn.k_proj.weight", []int64{kvDim, l.d}, l.pdt), bias(l.attnBias, "self_attn.k_proj.bias", kvDim)
					p.v, p.vb = b.Param("self_attn.v_proj.weight", []int64{kvDim, l.d}, l.pdt), bias(l.attnBias, "self_attn.v_proj.bias", kvDim)
					p.o, p.ob = b.Param("self_attn.o_proj.weight", []int64{l.d, qDim}, l.pdt), bias(l.oBias, "self_attn.o_proj.bias", l.d)
					if l.qkNorm {
						p.qNorm = b.Param("self_attn.q_norm.weight", []int64{l.headDim}, l.pdt)
						p.kNorm = b.Param("self_attn.k_norm.weight", []int64{l.headDim}, l.pdt)
					}
					p.gate, p.gateB = b.Param("mlp.gate_proj.weight", []int64{l.inner, l.d}, l.pdt), bias(l.mlpBias, "mlp.gate_proj.bias", l.inner)
					p.up, p.upB = b.Param("mlp.up_proj.weight", []int64{l.inner, l.d}, l.pdt), bias(l.mlpBias, "mlp.up_proj.bias", l.inner)
				}
				p.down, p.downB = b.Param("mlp.down_proj.weight", []int64{l.d, l.inner}, l.pdt), bias(l.mlpBias, "mlp.down_proj.bias", l.d)
				p.inNorm = b.Param("input_layernorm.weight", []int64{l.d}, l.pdt)
				p.postNorm = b.Param("post_attention_layernorm.weight", []int64{l.d}, l.pdt)
				if l.sandwich {
					p.preFF = b.Param("pre_feedforward_layernorm.weight", []int64{l.d}, l.pdt)
					p.postFF = b.Param("post_feedforward_layernorm.weight", []int64{l.d}, l.pdt)
				}
			})
		}
		norm = b.Param("norm.weight", []int64{l.d}, l.pdt)
		// rotary_emb.inv_freq and original_inv_freq, [head_dim/2] each, cast
		// with the model by model.to(dtype).
		for _, t := range l.rotaryTypes() {
			prefix := "rotary_emb."
			if t != "" {
				prefix += t + "_"
			}
			b.Buffer(prefix+"inv_freq", []int64{l.rotary / 2}, l.pdt)
			b.Buffer(prefix+"original_inv_freq", []int64{l.rotary / 2}, l.pdt)
		}
	})
	if l.tied {
		lmHead = embed
	} else {
		lmHead = b.Param("lm_head.weight", []int64{l.vocab, l.d}, l.pdt)
	}

	var h spec.TensorID
	b.Scoped("model", func() {
		b.SetLayer("model.embed_tokens")
		emb := b.Embedding("embed_tokens", ids, embed)
		if l.gemma {
			// super().forward(input_ids) * self.embed_scale.to(weight.dtype)
			emb = b.MulOperands("embed_tokens.scale", emb, embedScale)
		}
		pos := positionIDs(b, seq)
		b.SetLayer("model.rotary_emb")
		masks := l.masks(emb)
		// Gemma3 computes one cos/sin pair per layer type (in the order
		// of a Python set: taken here as sorted).
		cosSin := map[string][2]spec.TensorID{}
		for _, t := range l.rotaryTypes() {
			name := "rotary_emb"
			if t != "" {
				name += "." + t
			}
			c, s := b.RotaryCosSin(name, seq, l.rotary, b.DType(emb))
			cosSin[t] = [2]spec.TensorID{c, s}
		}
		// The decoder layers differ only by their sliding window, if any.
		alike := func(i, j int) bool { return l.window[i] == l.window[j] }
		prefix := func(i int) string { return b.Path(fmt.Sprintf("layers.%d", i)) }
		h = b.Repeat(len(layers), emb, alike, prefix, func(i int, in spec.TensorID) spec.TensorID {
			name := fmt.Sprintf("layers.%d", i)
			b.SetLayer("model." + name)
			var out spec.TensorID
			b.BeginBlock()
			b.Scoped(name, func() {
				if train && t.ActivationCheckpointing {
					// The layer is called with position_ids, which it does
					// not read: a checkpoint keeps its arguments for the
					// recompute all the same (measured: position_ids goes
					// with cos and sin in the first layer's recompute).
					b.Emit(spec.OpSpec{Kind: "checkpoint_args", Name: "args", Inputs: []spec.TensorID{pos}, NoGrad: true})
				}
				cs := cosSin[l.rotaryType(i)]
				out = l.decoderLayer(in, layers[i], cs[0], cs[1], masks[l.window[i]])
			})
			b.EndBlock()
			// The caller's hidden_states holds the layer input until the layer
			// returns (under checkpointing the checkpoint keeps it anyway).
			b.HoldUntilLastOp(in)
			return out
		})
		b.SetLayer("model.norm")
		last := h
		h = l.rmsNorm("norm", h, norm)
		// Locals of LlamaModel.forward: inputs_embeds, position_ids, the
		// masks, position_embeddings and the last layer's output, which the
		// final norm's caller holds until the norm returns (measured).
		held := []spec.TensorID{emb, pos, last}
		for _, t := range l.rotaryTypes() {
			held = append(held, cosSin[t][0], cosSin[t][1])
		}
		for _, mk := range masks {
			held = append(held, mk)
		}
		b.HoldUntilLastOp(held...)
	})
	b.SetLayer("lm_head")
	logits := b.Linear("lm_head", h, lmHead, spec.NoTensor)
	if l.logitCap > 0 {
		b.SetLayer("final_logit_softcapping")
		logits = softcap(b, logits)
	}
	if !train {
		// hidden_states lives until LlamaForCausalLM.forward returns: under
		// autocast, past lm_head's cast of it (measured, amp-fp16 inference).
		b.HoldUntilLastOp(h)
		return b.Finish(spec.NoTensor, logits)
	}
	loss := causalLMLoss(b, logits, labels)
	// LlamaForCausalLM.forward's hidden_states (the final norm's output) lives
	// until it returns: under autocast lm_head saves a bf16 cast instead, so
	// the fp32 output is held through the loss.
	b.HoldUntilLastOp(h)
	return b.Finish(loss)
}

// masks builds the attention masks LlamaModel.forward passes to its layers,
// keyed by sliding window (0: full causal). SDPA without padding gets None
// for full attention and for windows longer than the sequence (is_causal);
// a window ≤ seq_len materialises a bool [1, 1, S, S] mask (expanded to the
// batch without a copy). Eager attention always gets an additive
// [B, 1, S, S] mask in the embeddings' dtype. Each mask's creation runs
// find_packed_sequence_indices first when no cache is passed (transient
// int64 [B, S] buffers; measured twice in Qwen2 with full and sliding
// layers).
func (l *llama) masks(emb spec.TensorID) map[int64]spec.TensorID {
	b := l.b
	out := map[int64]spec.TensorID{}
	for _, w := range l.maskWindows {
		if !l.useCache {
			findPackedSequenceIndices(b, l.batch, l.seq)
		}
		switch {
		case l.eager:
			out[w] = eagerCausalMask(b, fmt.Sprintf("causal_mask_w%d", w), b.DType(emb), l.batch, l.seq, w)
		case w > 0 && l.seq >= w:
			// SDPA skips the mask while the window covers the sequence.
			b.Scoped(fmt.Sprintf("sliding_window_mask_w%d", w), func() {
				out[w] = slidingWindowGrid(b, l.batch, l.seq)
			})
		default:
			out[w] = spec.NoTensor
		}
	}
	return out
}

// decoderLayer is LlamaDecoderLayer.forward: pre-norm attention and MLP,
// each joined to the residual stream.
func (l *llama) decoderLayer(x spec.TensorID, p llamaLayer, cos, sin, mask spec.TensorID) spec.TensorID {
	b := l.b
	if l.sandwich {
		return l.sandwichLayer(x, p, cos, sin, mask)
	}
	n := l.rmsNorm("input_layernorm", x, p.inNorm)
	attn, weights := l.attention(n, p, cos, sin, mask)
	// hidden_states (the norm output) is rebound when self_attn returns.
	b.HoldUntilLastOp(n)
	// `hidden_states = residual + self.resid_attn_dropout(hidden_states)`:
	// the dropout's input is rebound only when the sum is made (Phi3).
	h := b.AddMixed("add_attn", x, b.Dropout("resid_attn_dropout", attn, l.residDrop))
	b.HoldUntilLastOp(attn)
	n2 := l.rmsNorm("post_attention_layernorm", h, p.postNorm)
	y := l.mlp(n2, p)
	b.HoldUntilLastOp(n2)
	out := b.AddMixed("add_mlp", h, b.Dropout("resid_mlp_dropout", y, l.residDrop))
	b.HoldUntilLastOp(y)
	// `hidden_states, _ = self.self_attn(...)`: the attention weights eager
	// attention returns stay in `_` until the layer returns (measured: a
	// [B, H, S, S] softmax freed after add_mlp in fp32 inference).
	b.HoldUntilLastOp(weights)
	return out
}

// sandwichLayer is Gemma2's and Gemma3's decoder layer: a norm before and
// after attention and the MLP, each output rebound when its norm returns.
func (l *llama) sandwichLayer(x spec.TensorID, p llamaLayer, cos, sin, mask spec.TensorID) spec.TensorID {
	b := l.b
	n := l.rmsNorm("input_layernorm", x, p.inNorm)
	attn, weights := l.attention(n, p, cos, sin, mask)
	b.HoldUntilLastOp(n)
	a := l.rmsNorm("post_attention_layernorm", attn, p.postNorm)
	b.HoldUntilLastOp(attn)
	h := b.AddMixed("add_attn", x, a)
	n2 := l.rmsNorm("pre_feedforward_layernorm", h, p.preFF)
	y := l.mlp(n2, p)
	b.HoldUntilLastOp(n2)
	y2 := l.rmsNorm("post_feedforward_layernorm", y, p.postFF)
	b.HoldUntilLastOp(y)
	out := b.AddMixed("add_mlp", h, y2)
	b.HoldUntilLastOp(weights)
	return out
}

// softcap is Gemma2's logit soft-capping, x / cap, tanh, · cap: new
// tensors, tanh saving its output.
func softcap(b *spec.Builder, x spec.TensorID) spec.TensorID {
	return b.Scale("softcap_mul", b.Tanh("softcap_tanh", b.Scale("softcap_div", x)))
}

// mlp is the layer's MLP: down_proj(act_fn(gate_proj(x)) * up_proj(x)),
// or Phi3MLP's gate, up_states = gate_up_proj(x).chunk(2, -1);
// down_proj(up_states * activation_fn(gate)).
func (l *llama) mlp(x spec.TensorID, p llamaLayer) spec.TensorID {
	b := l.b
	var y spec.TensorID
	b.Scoped("mlp", func() {
		if l.fused {
			gu := b.Linear("gate_up_proj", x, p.gateUp, spec.NoTensor)
			halves := b.Split("chunk", gu, 2, []int64{l.batch, l.seq, l.inner})
			a := l.activation("activation_fn", halves[0])
			y = b.Linear("down_proj", b.MulOperands("mul", halves[1], a), p.down, p.downB)
			// gate, a view of the projection, is a local until forward
			// returns (measured in inference).
			b.HoldUntilLastOp(gu)
			return
		}
		g := b.Linear("gate_proj", x, p.gate, p.gateB)
		a := l.activation("act_fn", g)
		u := b.Linear("up_proj", x, p.up, p.upB)
		y = b.Linear("down_proj", b.MulOperands("mul", a, u), p.down, p.downB)
	})
	return y
}

// rotaryType is the rotary embedding layer i takes: Gemma3 makes one per
// layer type, the others one ("").
func (l *llama) rotaryType(i int) string {
	switch {
	case !l.gemma3:
		return ""
	case l.window[i] > 0:
		return "sliding_attention"
	}
	return "full_attention"
}

// rotaryTypes lists the rotary embeddings the layers take, sorted.
func (l *llama) rotaryTypes() []string {
	var t []string
	for i := range l.window {
		if rt := l.rotaryType(i); !slices.Contains(t, rt) {
			t = append(t, rt)
		}
	}
	slices.Sort(t)
	return t
}

// rmsNorm is the family's RMSNorm: Gemma's or Llama's.
func (l *llama) rmsNorm(name string, x, w spec.TensorID) spec.TensorID {
	if l.gemma {
		return l.b.GemmaRMSNorm(name, x, w)
	}
	return l.b.LlamaRMSNorm(name, x, w)
}

func (l *llama) activation(name string, x spec.TensorID) spec.TensorID {
	b := l.b
	switch l.act {
	case "gelu":
		return b.GELU(name, x, false)
	case "gelu_pytorch_tanh":
		return b.GELU(name, x, true)
	case "relu":
		return b.ReLU(name, x, false)
	}
	return b.SiLU(name, x)
}

// attention is LlamaAttention.forward (Mistral's and Qwen2's are the same
// ops): projections, rotary embeddings, the KV-cache copies when use_cache,
// SDPA (or eager attention) and o_proj. query/key/value_states are locals
// that live until the module returns. It also returns eager attention's
// weights (spec.NoTensor for SDPA), which the module returns too.
func (l *llama) attention(x spec.TensorID, p llamaLayer, cos, sin, mask spec.TensorID) (out, weights spec.TensorID) {
	b := l.b
	weights = spec.NoTensor
	b.Scoped("self_attn", func() {
		bsz, s, d := l.batch, l.seq, l.headDim
		// cuDNN's dv comes back laid out like v_proj's output ([B, S, Hkv, D]):
		// it flows back through the view as is. A cache copy, the math kernel
		// (fp32 GQA), eager attention and repeat_kv give a [B, Hkv, S, D]
		// gradient that the view's backward must copy.
		gqa := l.kvHeads != l.heads
		fp32 := b.Training().Precision.ComputeDType() == spec.FP32
		copyV := l.useCache || l.eager || (fp32 && gqa && mask == spec.NoTensor) || (mask != spec.NoTensor && gqa)
		var q, k, v, qkv spec.TensorID
		if l.fused {
			q, k, v, qkv = l.fusedQKV(x, p, copyV)
		} else {
			// Qwen3 norms each query and key head as it projects it (in
			// heads4); Gemma3 projects q, k and v first, then norms the
			// transposed heads.
			qNorm, kNorm := p.qNorm, p.kNorm
			if l.gemma3 {
				qNorm, kNorm = spec.NoTensor, spec.NoTensor
			}
			qp := b.Linear("q_proj", x, p.q, p.qb)
			q = l.heads4(qp, "q", qNorm, l.heads)
			kp := b.Linear("k_proj", x, p.k, p.kb)
			k = l.heads4(kp, "k", kNorm, l.kvHeads)
			vp := b.Linear("v_proj", x, p.v, p.vb)
			v = b.HeadsView("v_view", vp, copyV, bsz, l.kvHeads, s, d)
			if l.gemma3 {
				q = l.rmsNorm("q_norm", q, p.qNorm)
				b.HoldUntilLastOp(qp)
				k = l.rmsNorm("k_norm", k, p.kNorm)
				b.HoldUntilLastOp(kp)
			}
		}
		qIn, kIn := q, k
		if l.fused {
			q, k = l.phi3Rotary(q, k, cos, sin)
		} else {
			q = b.ApplyRotary("rotary_q", q, cos, sin)
			k = b.ApplyRotary("rotary_k", k, cos, sin)
		}
		// apply_rotary_pos_emb's arguments (the projections, or Qwen3's
		// normalised heads) are dropped when it returns.
		b.HoldUntilLastOp(qIn, kIn)
		if l.useCache {
			// DynamicCache.update: torch.cat copies, held by the cache until the
			// model output is dropped.
			// key_states and value_states are rebound once update returns
			// both copies (measured: the rotated key goes after the
			// value's copy).
			k0, v0 := k, v
			if p.window > 0 {
				// A sliding-window cache layer keeps its window as a 0-d
				// int64 tensor, made at its first update (measured).
				win := b.Emit(spec.OpSpec{Kind: "tensor", Name: "cache_sliding_window", NoGrad: true,
					Outputs: []spec.TensorSpec{spec.TS("out", spec.Int64)}})[0]
				b.T(win).Cached = true
			}
			// The layer's empty cache takes the key's dtype: under
			// autocast the rotary embedding leaves the key fp32 (bf16
			// projection × fp32 cos), and the value's copy is fp32 too.
			cacheDType := b.DType(k)
			k = b.CacheCopy("cache_keys", k, cacheDType, false)
			v = b.CacheCopy("cache_values", v, cacheDType, false)
			b.HoldUntilLastOp(k0, v0)
		}
		var o spec.TensorID
		switch {
		case l.eager:
			o, weights = l.eagerAttention(q, k, v, mask)
		case mask != spec.NoTensor:
			o = l.maskedSDPA(q, k, v, mask)
		default:
			o = b.SDPACausal("sdpa", q, k, v)
			if b.DType(o) == spec.FP32 && gqa {
				// The math kernel's output is laid out [B, H, S, D]: the
				// transpose(1, 2).contiguous() copies it.
				o = b.MathOutputCopy("transpose_contiguous", o, bsz, s, l.heads, d)
			}
		}
		if l.fused && !l.eager && b.DType(o) != spec.FP32 {
			// cuDNN lays its output out like q, which Phi3's rotary cat made
			// contiguous [B, H, S, D]: transpose(1, 2).contiguous() copies,
			// and the gradient goes back to cuDNN as the transposed view it
			// is (measured: no copy in the backward).
			o = b.Contiguous("transpose_contiguous", o, bsz, s, l.heads, d)
		}
		merged := b.View("reshape", o, bsz, s, l.heads*d)
		out = b.Linear("o_proj", merged, p.o, p.ob)
		b.HoldUntilLastOp(q, k, v)
		if qkv != spec.NoTensor {
			b.HoldUntilLastOp(qkv)
		}
	})
	return out, weights
}

// fusedQKV is Phi3's qkv_proj and its slicing into query, key and value
// views [B, H, S, D]: each slice's backward makes a zero-filled gradient of
// the whole projection. It also returns the projection, a local of the
// module until it returns.
func (l *llama) fusedQKV(x spec.TensorID, p llamaLayer, copyV bool) (q, k, v, qkv spec.TensorID) {
	b := l.b
	bsz, s, d := l.batch, l.seq, l.headDim
	qkv = b.Linear("qkv_proj", x, p.qkv, spec.NoTensor)
	qs, ks, vs := b.SliceLast("q_slice", qkv, l.heads*d), b.SliceLast("k_slice", qkv, l.kvHeads*d), b.SliceLast("v_slice", qkv, l.kvHeads*d)
	q = b.HeadsView("q_view", qs, true, bsz, l.heads, s, d)
	k = b.HeadsView("k_view", ks, true, bsz, l.kvHeads, s, d)
	v = b.HeadsView("v_view", vs, copyV, bsz, l.kvHeads, s, d)
	return q, k, v, qkv
}

// phi3Rotary is Phi3's apply_rotary_pos_emb: q and k split into the
// dimensions the embedding turns and the rest (slices; the first is q
// itself when it turns them all), the turned part rotated as Llama's, then
// cat([rotated, rest]) — a new contiguous [B, H, S, D] tensor even when the
// rest is empty.
func (l *llama) phi3Rotary(q, k, cos, sin spec.TensorID) (qOut, kOut spec.TensorID) {
	b := l.b
	split := func(name string, x spec.TensorID) (rot, pass spec.TensorID) {
		rot = x
		if l.rotary < l.headDim {
			rot = b.SliceLast(name+"_rot", x, l.rotary)
		}
		return rot, b.SliceLast(name+"_pass", x, l.headDim-l.rotary)
	}
	qRot, qPass := split("q", q)
	kRot, kPass := split("k", k)
	embed := func(name string, x, rot, pass spec.TensorID) spec.TensorID {
		r := b.ApplyRotary(name, rot, cos, sin)
		return b.Cat(name+".cat_pass", []spec.TensorID{r, pass}, b.Shape(x))
	}
	return embed("rotary_q", q, qRot, qPass), embed("rotary_k", k, kRot, kPass)
}

// heads4 is proj.view(B, S, -1, D).transpose(1, 2) of a query or key
// projection (n heads). With Qwen3's norm (w) it is
// norm(proj.view(B, S, -1, D)).transpose(1, 2): the projection goes when the
// norm returns (its caller's expression held it), and the gradient, which
// reaches the norm laid out [B, H, S, D], keeps that layout through the
// norm's elementwise backward until the view's reshape copies it.
func (l *llama) heads4(proj spec.TensorID, name string, w spec.TensorID, n int64) spec.TensorID {
	b := l.b
	bsz, s, d := l.batch, l.seq, l.headDim
	if w == spec.NoTensor {
		return b.HeadsView(name+"_view", proj, true, bsz, n, s, d)
	}
	v := b.HeadsView(name+"_view", proj, true, bsz, s, n, d)
	normed := b.LlamaRMSNorm(name+"_norm", v, w)
	b.HoldUntilLastOp(proj)
	return b.View(name+"_transpose", normed, bsz, n, s, d)
}

// maskedSDPA is SDPA with an explicit (sliding-window) bool mask: transformers
// then repeats k and v to all heads (repeat_kv: new [B, H, S, D] copies) and
// passes the mask; bf16 runs cuDNN with the mask as a bias, fp32 the
// memory-efficient kernel. The repeated key and value are
// sdpa_attention_forward's locals until it returns: under autocast the
// kernel saves its fp16 casts, and the fp32 repeated key (rotary output)
// goes only when the function returns (measured: amp-fp16 Mistral with a
// 256-token window, freed after the kernel's outputs).
//
// With one key/value head the reshape of the expanded head dimension is a
// view (a size-1 dimension merges with any stride): nothing is copied and
// the kernel reads the stride-0 heads (measured: Gemma3 with MQA and a
// 512-token window).
func (l *llama) maskedSDPA(q, k, v, mask spec.TensorID) spec.TensorID {
	b := l.b
	if l.kvHeads != l.heads {
		rep := l.repeatKV
		if l.kvHeads == 1 {
			rep = l.expandKV
		}
		k = rep("repeat_k", k)
		v = rep("repeat_v", v)
	}
	o := b.SDPA("sdpa", q, k, v, mask, false)
	b.HoldUntilLastOp(k, v)
	return o
}

// repeatKV is repeat_kv: expand + reshape into a new [B, H, S, D] tensor; its
// backward sums the repeats into a new [B, Hkv, S, D] gradient.
func (l *llama) repeatKV(name string, x spec.TensorID) spec.TensorID {
	b := l.b
	return b.Emit(spec.OpSpec{Kind: "repeat_kv", Name: name, Inputs: []spec.TensorID{x}, Outputs: []spec.TensorSpec{spec.TS("out", b.DType(x), l.batch, l.heads, l.seq, l.headDim)}})[0]
}

// expandKV is repeat_kv of a single key/value head: expand and reshape
// make a view; its backward sums the expanded gradient into a new
// [B, 1, S, D] one.
func (l *llama) expandKV(name string, x spec.TensorID) spec.TensorID {
	b := l.b
	return b.Emit(spec.OpSpec{Kind: "expand_kv", Name: name, Inputs: []spec.TensorID{x}, AliasOut: []int{0},
		Outputs: []spec.TensorSpec{spec.TS("out", b.DType(x), l.batch, l.heads, l.seq, l.headDim)}})[0]
}

// eagerAttention is eager_attention_forward: repeat_kv copies, q·kᵀ,
// scaling, the additive mask, an fp32 softmax cast back to q's dtype,
// dropout, ·v and the transpose(1, 2).contiguous() copy. Returns that
// [B, S, H, D] copy and the attention weights (dropout's output), which the
// function returns too. The repeated key and value are its locals until it
// returns (measured in fp32 inference: freed after the copy).
func (l *llama) eagerAttention(q, k, v, mask spec.TensorID) (out, weights spec.TensorID) {
	b := l.b
	b.Scoped("eager", func() {
		// repeat_kv's reshape copies several key/value heads; one head
		// stays a view, its repeats a stride-0 dimension (measured: no copy
		// at repeat_kv), which matmul's fold then copies in a batch of more
		// than one — k at q·kᵀ after q's fold, v at ·v — unless autocast's
		// cast has already made it a new contiguous tensor (measured:
		// amp-fp16 Gemma with one head, batch 8; bf16, batch 2).
		expanded := l.kvHeads == 1 && l.kvHeads != l.heads
		if l.kvHeads != l.heads {
			rep := l.repeatKV
			if expanded {
				rep = l.expandKV
			}
			k = rep("repeat_k", k)
			v = rep("repeat_v", v)
		}
		foldKV := expanded && l.batch > 1
		scores := []int64{l.batch, l.heads, l.seq, l.seq}
		// matmul folds q — the rotary output, laid out [B, S, H, d] like the
		// projection — to [B·H, S, d]: a copy (measured), saved by the
		// product; its gradient flows back into the rotary embedding's
		// elementwise backward as it is. Under autocast the fp32 operands
		// are cast first, right to left (key, then query), the fold copies
		// the cast query, and the cast itself goes when matmul returns
		// (measured: amp-bf16, 6 × 700 tokens). In a batch of one the fold
		// is a view (the heads keep their stride), and Phi3's rotary cat
		// made q contiguous.
		queryDType := b.DType(q) // `query`, for .to(query.dtype) below
		kc := b.AutocastMatmulIn(k, "qk.y_cast")
		qc := b.AutocastMatmulIn(q, "qk.x_cast")
		qf := qc
		if !l.fused && l.batch > 1 {
			qf = b.Contiguous("q_fold", qc, b.Shape(qc)...)
		}
		// k is laid out like its projection too when no repeat_kv or cache
		// copy made it [B, H, S, D] (the rotary embedding keeps its input's
		// strides; Phi3's cat does not): then its fold copies as well, after
		// q's (measured: Llama and Mistral with a key/value head per query
		// head, batches 2 and 4).
		viewKV := l.kvHeads == l.heads && !l.useCache && l.batch > 1
		kf := kc
		if (foldKV && kc == k) || (viewKV && !l.fused) {
			kf = b.Contiguous("k_fold", kc, b.Shape(kc)...)
		}
		w := b.Matmul("qk", qf, kf, scores)
		if qc != q {
			b.HoldUntilLastOp(qc)
		}
		if kc != k && kf != kc {
			// a folded cast goes when matmul returns, as q's does
			b.HoldUntilLastOp(kc)
		}
		w = b.Scale("scale", w)
		if l.scoreCap > 0 {
			w = softcap(b, w) // Gemma2's attn_logit_softcapping
		}
		if mask != spec.NoTensor {
			// Under autocast the bf16 scores plus the fp32 mask are fp32.
			w = b.AddMixed("add_mask", w, mask)
		}
		// softmax(dtype=float32) converts its input first, but for an fp16
		// input on CUDA, which ATen runs through one half-to-float kernel
		// (measured: pure fp16 Phi3 inference, no input copy).
		masked := w
		if b.DType(w) != spec.FP16 {
			w = b.Cast("softmax_input", w, spec.FP32)
		}
		w = b.Emit(spec.OpSpec{Kind: "softmax", Name: "softmax", Inputs: []spec.TensorID{w}, Outputs: []spec.TensorSpec{spec.TS("out", spec.FP32, scores...)}, SaveOut: []int{0},
			BackwardTemps: []spec.TensorSpec{spec.TS("softmax_backward_tmp", spec.FP32, scores...)}})[0]
		if queryDType != spec.FP32 {
			w = b.Cast("to_query_dtype", w, queryDType)
		}
		// `attn_weights = softmax(attn_weights, dtype=float32).to(query.dtype)`
		// rebinds attn_weights when the statement ends: the masked scores
		// outlive the softmax and the cast (measured in bf16 inference).
		b.HoldUntilLastOp(masked)
		weights = b.Dropout("dropout", w, l.attnDrop)
		heads := []int64{l.batch, l.heads, l.seq, l.headDim}
		// matmul folds v to [B·H, S, D] after autocast's casts (value,
		// then weights). Without repeat_kv's or the cache's copy, v is
		// the projection's view laid out [B, S, H, D], so in a batch of
		// more than one the fold copies it, and the product saves the
		// copy, not the view (measured: Phi3 eager under amp-fp16 and
		// amp-bf16, the projection freed when attention returns).
		vc := b.AutocastMatmulIn(v, "pv.y_cast")
		wc := b.AutocastMatmulIn(weights, "pv.x_cast")
		if viewKV || (foldKV && vc == v) {
			vc = b.Contiguous("v_fold", vc, heads...)
		}
		o := b.Matmul("pv", wc, vc, heads)
		out = b.MathOutputCopy("transpose_contiguous", o, l.batch, l.seq, l.heads, l.headDim)
		b.HoldUntilLastOp(k, v)
	})
	return out, weights
}

// slidingWindows returns each layer's sliding window (0 for full causal
// attention). Llama has none; Mistral applies sliding_window (when set) to
// every layer; Qwen2 and Qwen3 to the layers layer_types marks "sliding_attention"
// (by default, with use_sliding_window, those from max_window_layers on).
func (c *hfConfig) slidingWindows(v llamaVariant, layers int64) []int64 {
	w := make([]int64, layers)
	switch {
	case v.class == "MistralConfig" || v.class == "Phi3Config":
		win := c.OptInt("sliding_window", 0)
		for i := range w {
			w[i] = win
		}
	case v.sandwich:
		win := c.OptInt("sliding_window", 0)
		if win == 0 && c.err == nil {
			// Gemma2/3 build the sliding mask whatever the layers are, and
			// create_sliding_window_causal_mask raises without a window.
			c.fail("sliding_window", "is null, but Gemma2 and Gemma3 build a sliding-window mask in every forward, which transformers cannot do without one (allowed: a positive window)")
		}
		pattern := int64(2) // Gemma2: sliding, full, sliding, …
		if v.gemma3 {
			pattern = c.Int("sliding_window_pattern")
		}
		types := c.strList("layer_types", layers, "full_attention", "sliding_attention")
		for i := range w {
			sliding := pattern > 0 && (int64(i)+1)%pattern != 0
			if types != nil {
				sliding = types[i] == "sliding_attention"
			}
			if sliding {
				w[i] = win
			}
		}
	case v.layerTypes:
		use := c.Bool("use_sliding_window")
		win := c.OptInt("sliding_window", 0)
		maxWin := c.nonNegInt("max_window_layers")
		types := c.strList("layer_types", layers, "full_attention", "sliding_attention")
		if slices.Contains(types, "sliding_attention") && !(use && win > 0) {
			// Qwen2Config (and Qwen3Config) null sliding_window unless use_sliding_window, and
			// create_sliding_window_causal_mask then raises.
			c.fail("layer_types", "lists sliding_attention layers but the sliding window is off (use_sliding_window false or no sliding_window), which transformers refuses (allowed: full_attention only, or use_sliding_window: true with a sliding_window)")
		}
		for i := range w {
			sliding := use && win > 0 && int64(i) >= maxWin
			if types != nil {
				sliding = types[i] == "sliding_attention" && use && win > 0
			}
			if sliding {
				w[i] = win
			}
		}
	}
	return w
}

// nonNegInt reads an integer key that may be zero.
func (c *hfConfig) nonNegInt(key string) int64 {
	v, ok := c.raw(key)
	if !ok {
		if c.null(key) {
			c.failNull(key, "a non-negative integer")
		}
		return 0
	}
	n, isInt := v.(int64)
	if i, ok := v.(int); ok {
		n, isInt = int64(i), true
	}
	if !isInt || n < 0 {
		c.fail(key, "want a non-negative integer, got %s", spec.DescribeValue(v))
		return 0
	}
	return n
}

// strList reads an optional list of n strings, each one of allowed.
func (c *hfConfig) strList(key string, n int64, allowed ...string) []string {
	v, ok := c.raw(key)
	if !ok {
		return nil
	}
	list, isList := v.([]spec.Value)
	if !isList {
		c.fail(key, "want a list of strings, got %v", v)
		return nil
	}
	if int64(len(list)) != n {
		c.fail(key, "has %d entries (allowed: one per layer, %d)", len(list), n)
		return nil
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, isStr := e.V.(string)
		okName := false
		for _, a := range allowed {
			okName = okName || a == s
		}
		if !isStr || !okName {
			c.fail(key, "entry %d is %v (allowed: %v)", i, e.V, allowed)
			return nil
		}
		out[i] = s
	}
	return out
}

// rotaryDims is Phi3's int(head_dim · partial_rotary_factor), the factor
// taken from rope_parameters when it names one, else from the top-level key
// (which Phi3Config copies into rope_parameters when that lacks it).
func (c *hfConfig) rotaryDims(headDim int64, headDimKey string) int64 {
	key, f := "partial_rotary_factor", c.Float("partial_rotary_factor", 0, 1)
	if rp, ok := c.m.Config["rope_parameters"]; ok {
		if params, isMap := rp.V.(map[string]spec.Value); isMap {
			if pf, given := params["partial_rotary_factor"]; given {
				key = "rope_parameters"
				switch x := pf.V.(type) {
				case float64:
					f = x
				case int64:
					f = float64(x)
				default:
					c.fail(key, "partial_rotary_factor %v is not a number (allowed: a number from 0 to 1)", spec.DescribeValue(pf.V))
				}
			}
		}
	}
	n := int64(float64(headDim) * f)
	if c.err == nil && (n < 2 || n%2 != 0 || n > headDim) {
		if key == "partial_rotary_factor" && f == 1 {
			key = headDimKey
		}
		c.fail(key, "a partial rotary factor of %g turns %d of a head's %d dimensions (allowed: a factor that turns an even number of them, at least 2)", f, n, headDim)
	}
	return n
}
