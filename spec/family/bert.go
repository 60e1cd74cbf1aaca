package family

import (
	"fmt"

	"github.com/memplan/memplan/spec"
)

// bertDefaults are BertConfig's defaults (transformers 5.17).
func bertDefaults() map[string]any {
	return map[string]any{
		"vocab_size": int64(30522), "hidden_size": int64(768), "num_hidden_layers": int64(12), "num_attention_heads": int64(12),
		"intermediate_size": int64(3072), "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
		"max_position_embeddings": int64(512), "type_vocab_size": int64(2), "layer_norm_eps": 1e-12, "pad_token_id": int64(0),
		"is_decoder": false, "add_cross_attention": false, "tie_word_embeddings": true, "use_cache": true,
		"chunk_size_feed_forward": int64(0), "initializer_range": 0.02, "classifier_dropout": nil,
	}
}

func registerBERT(f map[string]expander) { f["BertForMaskedLM"] = expandBERT }

// encoderAct is an HF ACT2FN activation of the encoder families (BERT, ViT):
// exact GELU (GELUActivation → F.gelu), tanh GELU, ReLU or SiLU.
func encoderAct(b *spec.Builder, name, act string, x spec.TensorID) spec.TensorID {
	switch act {
	case "gelu_pytorch_tanh":
		return b.GELU(name, x, true)
	case "relu":
		return b.ReLU(name, x, false)
	case "silu", "swish":
		return b.SiLU(name, x)
	}
	return b.GELU(name, x, false)
}

// encoderActs are the hidden_act values encoderAct expands.
var encoderActs = []string{"gelu", "gelu_pytorch_tanh", "relu", "silu", "swish"}

// heads is the [B, S, H·d] → [B, H, S, d] view(…).transpose(1, 2) of a projection.
func heads(b *spec.Builder, name string, x spec.TensorID, bsz, seq, h, d int64) spec.TensorID {
	return b.View(name, x, bsz, h, seq, d)
}

// expandBERT is BertForMaskedLM (transformers 5.17) as `model(input_ids,
// labels=labels).loss` runs it: no attention mask is passed, so
// create_bidirectional_mask returns None under SDPA (no extended mask is
// materialised); token_type_ids come from the registered zero buffer
// (gathered at the position ids, expanded to the batch); the MLM head's
// decoder is tied to the word embeddings and has its own bias
// (cls.predictions.bias); CrossEntropyLoss over the vocabulary.
func expandBERT(m *spec.Model, o options) (*spec.Graph, error) {
	c := newConfig(m, "BertConfig", bertDefaults())
	d := c.Int("hidden_size")
	layers := c.Int("num_hidden_layers")
	nh := c.Int("num_attention_heads")
	inner := c.Int("intermediate_size")
	vocab := c.Int("vocab_size")
	positions := c.Int("max_position_embeddings")
	types := c.Int("type_vocab_size")
	act := c.Str("hidden_act", encoderActs...)
	hdrop := c.Float("hidden_dropout_prob", 0, 1)
	// Attention dropout: read for its range, it changes nothing SDPA's
	// kernels allocate (EncoderSDPA).
	c.Float("attention_probs_dropout_prob", 0, 1)
	tied := c.Bool("tie_word_embeddings")
	if c.Bool("is_decoder") {
		c.fail("is_decoder", "true is not supported (allowed: false; BertForMaskedLM is bidirectional)")
	}
	if c.Bool("add_cross_attention") {
		c.fail("add_cross_attention", "true is not supported (allowed: false)")
	}
	if v, ok := c.raw("chunk_size_feed_forward"); ok && !sameInt(v, 0) {
		c.fail("chunk_size_feed_forward", "%s is not supported (allowed: 0, no chunking)", shown(v))
	}
	c.Divides("hidden_size", d, "num_attention_heads", nh)
	if c.err != nil {
		return nil, c.err
	}
	seq, err := needSeq(m)
	if err != nil {
		return nil, err
	}
	if seq > positions {
		return nil, m.At("training").Errorf("training.seq_len %d exceeds max_position_embeddings %d (allowed: at most max_position_embeddings)", seq, positions)
	}
	t := m.Training
	train := t.Mode == spec.ModeTrain
	if !train {
		hdrop = 0 // model.eval()
	}
	bsz := t.BatchSize
	pdt := t.Precision.ParamDType()
	hd := d / nh
	b := o.newBuilder(t)
	ids := b.Input("input_ids", []int64{bsz, seq}, spec.Int64)
	labels := spec.NoTensor
	if train {
		labels = b.Input("labels", []int64{bsz, seq}, spec.Int64)
	}

	// Parameters and buffers in module order.
	type layer struct{ qW, qB, kW, kB, vW, vB, oW, oB, ln1W, ln1B, iW, iB, o2W, o2B, ln2W, ln2B spec.TensorID }
	ls := make([]layer, layers)
	var wte, wpe, wtt, embLnW, embLnB, posIDs, ttIDs spec.TensorID
	var headBias, trW, trB, trLnW, trLnB, decW spec.TensorID
	b.Scoped("bert", func() {
		b.Scoped("embeddings", func() {
			wte = b.Param("word_embeddings.weight", []int64{vocab, d}, pdt)
			wpe = b.Param("position_embeddings.weight", []int64{positions, d}, pdt)
			wtt = b.Param("token_type_embeddings.weight", []int64{types, d}, pdt)
			embLnW, embLnB = b.Param("LayerNorm.weight", []int64{d}, pdt), b.Param("LayerNorm.bias", []int64{d}, pdt)
			posIDs = b.Buffer("position_ids", []int64{1, positions}, spec.Int64)
			ttIDs = b.Buffer("token_type_ids", []int64{1, positions}, spec.Int64)
		})
		for i := range ls {
			b.Scoped(fmt.Sprintf("encoder.layer.%d", i), func() {
				l := &ls[i]
				l.qW, l.qB = b.Param("attention.self.query.weight", []int64{d, d}, pdt), b.Param("attention.self.query.bias", []int64{d}, pdt)
				l.kW, l.kB = b.Param("attention.self.key.weight", []int64{d, d}, pdt), b.Param("attention.self.key.bias", []int64{d}, pdt)
				l.vW, l.vB = b.Param("attention.self.value.weight", []int64{d, d}, pdt), b.Param("attention.self.value.bias", []int64{d}, pdt)
				l.oW, l.oB = b.Param("attention.output.dense.weight", []int64{d, d}, pdt), b.Param("attention.output.dense.bias", []int64{d}, pdt)
				l.ln1W, l.ln1B = b.Param("attention.output.LayerNorm.weight", []int64{d}, pdt), b.Param("attention.output.LayerNorm.bias", []int64{d}, pdt)
				l.iW, l.iB = b.Param("intermediate.dense.weight", []int64{inner, d}, pdt), b.Param("intermediate.dense.bias", []int64{inner}, pdt)
				l.o2W, l.o2B = b.Param("output.dense.weight", []int64{d, inner}, pdt), b.Param("output.dense.bias", []int64{d}, pdt)
				l.ln2W, l.ln2B = b.Param("output.LayerNorm.weight", []int64{d}, pdt), b.Param("output.LayerNorm.bias", []int64{d}, pdt)
			})
		}
	})
	b.Scoped("cls.predictions", func() {
		headBias = b.Param("bias", []int64{vocab}, pdt)
		trW, trB = b.Param("transform.dense.weight", []int64{d, d}, pdt), b.Param("transform.dense.bias", []int64{d}, pdt)
		trLnW, trLnB = b.Param("transform.LayerNorm.weight", []int64{d}, pdt), b.Param("transform.LayerNorm.bias", []int64{d}, pdt)
		decW = wte
		if !tied {
			decW = b.Param("decoder.weight", []int64{vocab, d}, pdt)
		}
	})

	var h, embOut spec.TensorID
	b.Scoped("bert", func() {
		b.SetLayer("bert.embeddings")
		b.Scoped("embeddings", func() {
			pos := b.View("position_ids_slice", posIDs, 1, seq)
			// token_type_ids = gather(buffer.expand(1, -1), 1, position_ids).expand(B, S)
			tt := b.Emit(spec.OpSpec{Kind: "gather", Name: "token_type_ids_gather", Inputs: []spec.TensorID{ttIDs, pos}, NoGrad: true, Outputs: []spec.TensorSpec{spec.TS("out", spec.Int64, 1, seq)}})[0]
			ttx := b.View("token_type_ids_expand", tt, bsz, seq)
			word := b.Embedding("word_embeddings", ids, wte)
			var tte spec.TensorID
			if bsz > 1 {
				tte = b.EmbeddingExpanded("token_type_embeddings", ttx, wtt)
			} else {
				tte = b.Embedding("token_type_embeddings", ttx, wtt)
			}
			e := b.Add("add_token_type", word, tte)
			pe := b.Embedding("position_embeddings", pos, wpe)
			// Broadcasting [1, S, H] over the batch: its gradient is summed into a new tensor.
			pex := b.Emit(spec.OpSpec{Kind: "expand", Name: "position_embeddings_expand", Inputs: []spec.TensorID{pe}, Outputs: []spec.TensorSpec{spec.TS("out", b.DType(pe), bsz, seq, d)}, AliasOut: []int{0}})[0]
			e = b.Add("add_position", e, pex)
			e = b.LayerNorm("LayerNorm", e, embLnW, embLnB)
			h = b.Dropout("dropout", e, hdrop)
			// token_type_ids, inputs_embeds, token_type_embeddings and
			// position_embeddings are locals of BertEmbeddings.forward.
			b.HoldUntilLastOp(tt, word, tte, pe)
		})
		embOut = h
		// The layers are alike: Repeat writes the copies after the first four.
		prefix := func(i int) string { return b.Path(fmt.Sprintf("encoder.layer.%d", i)) }
		h = b.Repeat(len(ls), h, func(int, int) bool { return true }, prefix, func(i int, h spec.TensorID) spec.TensorID {
			l := ls[i]
			name := fmt.Sprintf("encoder.layer.%d", i)
			b.SetLayer("bert." + name)
			b.BeginBlock()
			b.Scoped(name, func() {
				in := h
				var attnOut spec.TensorID
				b.Scoped("attention", func() {
					var ctx spec.TensorID
					b.Scoped("self", func() {
						q := heads(b, "query_heads", b.Linear("query", in, l.qW, l.qB), bsz, seq, nh, hd)
						k := heads(b, "key_heads", b.Linear("key", in, l.kW, l.kB), bsz, seq, nh, hd)
						v := heads(b, "value_heads", b.Linear("value", in, l.vW, l.vB), bsz, seq, nh, hd)
						o := b.EncoderSDPA("sdpa", q, k, v)
						// transpose(1, 2).contiguous() of the kernel's [B, S, H, d] output and reshape: views.
						ctx = b.View("merge_heads", o, bsz, seq, d)
					})
					b.Scoped("output", func() {
						y := b.Linear("dense", ctx, l.oW, l.oB)
						y = b.Dropout("dropout", y, hdrop)
						attnOut = b.LayerNorm("LayerNorm", b.AddPromoting("add_residual", y, in), l.ln1W, l.ln1B)
						// the dropout output is the local hidden_states until LayerNorm returns
						b.HoldUntilLastOp(y)
					})
					// BertAttention.forward's self_outputs holds the context until
					// it returns (measured in no-grad forwards: freed after the
					// output LayerNorm).
					b.HoldUntilLastOp(ctx)
				})
				var mid spec.TensorID
				b.Scoped("intermediate", func() {
					mid = b.Linear("dense", attnOut, l.iW, l.iB)
					mid = encoderAct(b, "intermediate_act_fn", act, mid)
				})
				b.Scoped("output", func() {
					y := b.Linear("dense", mid, l.o2W, l.o2B)
					y = b.Dropout("dropout", y, hdrop)
					h = b.LayerNorm("LayerNorm", b.AddPromoting("add_residual", y, attnOut), l.ln2W, l.ln2B)
					b.HoldUntilLastOp(y)
				})
				// feed_forward_chunk's intermediate_output lives until it
				// returns, after the output LayerNorm (measured).
				b.HoldUntilLastOp(mid)
				// attention_output lives to the end of BertLayer.forward, the
				// layer input to the end of the encoder loop's call.
				b.HoldUntilLastOp(attnOut, in)
			})
			b.EndBlock()
			return h
		})
		// embedding_output is a local of BertModel.forward.
		b.HoldUntilLastOp(embOut)
	})
	seqOut := h
	var logits spec.TensorID
	b.SetLayer("cls")
	b.Scoped("cls.predictions", func() {
		var x spec.TensorID
		b.Scoped("transform", func() {
			x = b.Linear("dense", seqOut, trW, trB)
			y := encoderAct(b, "transform_act_fn", act, x)
			x = b.LayerNorm("LayerNorm", y, trLnW, trLnB)
			// a module's argument lives until the module returns (under
			// autocast LayerNorm and the decoder keep casts, not these)
			b.HoldUntilLastOp(y)
		})
		logits = b.Linear("decoder", x, decW, headBias)
		b.HoldUntilLastOp(x)
	})
	if !train {
		b.HoldUntilLastOp(seqOut)
		return b.Finish(spec.NoTensor, logits)
	}
	b.SetLayer("loss")
	var loss spec.TensorID
	b.Scoped("loss", func() {
		flat := b.View("logits_view", logits, bsz*seq, vocab)
		lab := b.View("labels_view", labels, bsz*seq)
		loss = b.CrossEntropy("cross_entropy", flat, lab)
	})
	// The MaskedLMOutput holds the logits, and BertModel's output the
	// sequence output, until the forward returns.
	b.HoldUntilLastOp(logits, seqOut)
	return b.Finish(loss)
}
