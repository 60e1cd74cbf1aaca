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

// robertaDefaults are RobertaConfig's defaults (transformers 5.17): BERT's
// but for the vocabulary and the padding id, from which positions count.
func robertaDefaults() map[string]any {
	d := bertDefaults()
	d["vocab_size"], d["pad_token_id"], d["bos_token_id"], d["eos_token_id"] = int64(50265), int64(1), int64(0), int64(2)
	return d
}

func registerBERT(f map[string]expander) {
	f["BertForMaskedLM"] = func(m *spec.Model, o options) (*spec.Graph, error) { return expandBERT(m, false, o) }
	f["RobertaForMaskedLM"] = func(m *spec.Model, o options) (*spec.Graph, error) { return expandBERT(m, true, o) }
}

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
//
// RobertaForMaskedLM (roberta) runs BERT's layers under the name roberta;
// its embeddings count positions from the input ids
// (create_position_ids_from_input_ids: ne, int, cumsum, type_as, add,
// mul, long, add — [B, S] temporaries — then a per-token position
// lookup), gather the token types at those positions, and register
// token_type, LayerNorm and only then position embeddings; its LM head is
// dense, exact GELU, layer_norm and the tied decoder with lm_head.bias,
// each step's input rebound (freed) when the next returns.
func expandBERT(m *spec.Model, roberta bool, o options) (*spec.Graph, error) {
	class, defaults, base := "BertConfig", bertDefaults(), "bert"
	if roberta {
		class, defaults, base = "RobertaConfig", robertaDefaults(), "roberta"
	}
	c := newConfig(m, class, defaults)
	d := c.Int("hidden_size")
	layers := c.Layers("num_hidden_layers")
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
	pad := c.nonNegInt("pad_token_id")
	if c.Bool("is_decoder") {
		c.fail("is_decoder", "true is not supported (allowed: false; BertForMaskedLM is bidirectional)")
	}
	if c.Bool("add_cross_attention") {
		c.fail("add_cross_attention", "true is not supported (allowed: false)")
	}
	if v, ok := c.raw("chunk_size_feed_forward"); ok && !sameInt(v, 0) {
		c.fail("chunk_size_feed_forward", "%s is not supported (allowed: 0, no chunking)", spec.DescribeValue(v))
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
		return nil, m.Training.KeyPos("seq_len", m.At("training")).Errorf("training.seq_len %d exceeds max_position_embeddings %d (allowed: at most max_position_embeddings)", seq, positions)
	}
	if roberta && seq+pad >= positions {
		// Positions run from pad_token_id + 1 to seq_len + pad_token_id.
		return nil, m.Training.KeyPos("seq_len", m.At("training")).Errorf("training.seq_len %d reaches position %d, past RoBERTa's max_position_embeddings %d (allowed: at most max_position_embeddings − pad_token_id − 1 = %d)", seq, seq+pad, positions, positions-pad-1)
	}
	t := m.Training
	train := t.Mode == spec.ModeTrain
	if !train {
		hdrop = 0 // model.eval()
	}
	bsz := t.BatchSize
	pdt := t.Precision.ParamDType()
	hd := d / nh
	b := c.newBuilder(o, t)
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
	b.Scoped(base, func() {
		b.Scoped("embeddings", func() {
			wte = b.Param("word_embeddings.weight", []int64{vocab, d}, pdt)
			if !roberta {
				wpe = b.Param("position_embeddings.weight", []int64{positions, d}, pdt)
			}
			wtt = b.Param("token_type_embeddings.weight", []int64{types, d}, pdt)
			embLnW, embLnB = b.Param("LayerNorm.weight", []int64{d}, pdt), b.Param("LayerNorm.bias", []int64{d}, pdt)
			if roberta {
				// RobertaEmbeddings registers position_embeddings last.
				wpe = b.Param("position_embeddings.weight", []int64{positions, d}, pdt)
			}
			// The module's own buffers come after its submodules'
			// parameters (Module._apply, measured on RoBERTa in bf16,
			// whose position_embeddings is small).
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
	// The MLM head: BERT's cls.predictions (transform.dense,
	// transform.LayerNorm) or RoBERTa's lm_head (dense, layer_norm). Its own
	// bias — the decoder's, tied — is listed before its submodules' in
	// model.parameters(), and model.cuda() moves it after them (with the
	// decoder, the last submodule; measured).
	head, dense, norm := "cls.predictions", "transform.dense", "transform.LayerNorm"
	if roberta {
		head, dense, norm = "lm_head", "dense", "layer_norm"
	}
	b.Scoped(head, func() {
		headBias = b.Param("bias", []int64{vocab}, pdt)
		ownBias := headBias
		trW, trB = b.Param(dense+".weight", []int64{d, d}, pdt), b.Param(dense+".bias", []int64{d}, pdt)
		trLnW, trLnB = b.Param(norm+".weight", []int64{d}, pdt), b.Param(norm+".bias", []int64{d}, pdt)
		decW = wte
		if !tied {
			// Untied, neither of the head's ties holds: the decoder has its
			// own weight and bias, and the head's bias is left unused (no
			// gradient, no optimizer state; measured on RoBERTa).
			decW = b.Param("decoder.weight", []int64{vocab, d}, pdt)
			headBias = b.Param("decoder.bias", []int64{vocab}, pdt)
		}
		b.ResidentLast(ownBias)
	})

	var h, embOut spec.TensorID
	b.Scoped(base, func() {
		b.SetLayer(base + ".embeddings")
		b.Scoped("embeddings", func() {
			if roberta {
				h = robertaEmbeddings(b, ids, ttIDs, wte, wtt, wpe, embLnW, embLnB, hdrop)
				return
			}
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
			b.SetLayer(base + "." + name)
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
	if roberta {
		b.SetLayer("lm_head")
		b.Scoped("lm_head", func() {
			// x = dense(features); x = gelu(x); x = layer_norm(x); decoder(x):
			// each rebinding drops the previous x.
			x := b.GELU("gelu", b.Linear("dense", seqOut, trW, trB), false)
			y := b.LayerNorm("layer_norm", x, trLnW, trLnB)
			b.HoldUntilLastOp(x)
			logits = b.Linear("decoder", y, decW, headBias)
			b.HoldUntilLastOp(y)
		})
	} else {
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
	}
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

// robertaEmbeddings is RobertaEmbeddings.forward without position or
// token-type ids: positions counted from the input ids, the token types
// gathered at them, then word + token type + position embeddings, LayerNorm
// and dropout. The position and token-type ids, inputs_embeds and both
// lookups are its locals until it returns.
func robertaEmbeddings(b *spec.Builder, ids, ttIDs, wte, wtt, wpe, lnW, lnB spec.TensorID, drop float64) spec.TensorID {
	shape := b.Shape(ids)
	bsz, seq := shape[0], shape[1]
	ng := func(kind, name string, dt spec.DType, in ...spec.TensorID) spec.TensorID {
		return b.Emit(spec.OpSpec{Kind: kind, Name: name, Inputs: in, NoGrad: true, Outputs: []spec.TensorSpec{spec.TS("out", dt, bsz, seq)}})[0]
	}
	var pos spec.TensorID
	b.Scoped("create_position_ids_from_input_ids", func() {
		mask := ng("to_copy", "mask", spec.Int32, ng("ne", "ne", spec.Bool, ids))
		// cumsum of an int32 mask is int64, through an int64 copy of it
		// made after the output (measured).
		sum := b.Emit(spec.OpSpec{Kind: "cumsum", Name: "cumsum", Inputs: []spec.TensorID{mask}, NoGrad: true,
			Outputs: []spec.TensorSpec{spec.TS("out", spec.Int64, bsz, seq)}, Temps: []spec.TensorSpec{spec.TS("input_long", spec.Int64, bsz, seq)}})[0]
		counted := ng("to_copy", "type_as", spec.Int32, sum)
		inc := ng("mul", "mul_mask", spec.Int32, ng("add_scalar", "add_past", spec.Int32, counted), mask)
		pos = ng("add_scalar", "add_padding_idx", spec.Int64, ng("to_copy", "long", spec.Int64, inc))
		// mask and incremental_indices are locals until it returns.
		b.HoldUntilLastOp(inc, mask)
	})
	tt := ng("gather", "token_type_ids_gather", spec.Int64, ttIDs, pos)
	word := b.Embedding("word_embeddings", ids, wte)
	tte := b.Embedding("token_type_embeddings", tt, wtt)
	e := b.Add("add_token_type", word, tte)
	pe := b.Embedding("position_embeddings", pos, wpe)
	e = b.Add("add_position", e, pe)
	h := b.Dropout("dropout", b.LayerNorm("LayerNorm", e, lnW, lnB), drop)
	b.HoldUntilLastOp(pos, tt, word, tte, pe)
	return h
}
