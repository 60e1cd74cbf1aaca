package family

import (
	"fmt"

	"github.com/memplan/memplan/spec"
)

// vitDefaults are ViTConfig's defaults (transformers 5.17); num_labels is
// PretrainedConfig's default (two labels).
func vitDefaults() map[string]any {
	return map[string]any{
		"hidden_size": int64(768), "num_hidden_layers": int64(12), "num_attention_heads": int64(12), "intermediate_size": int64(3072),
		"hidden_act": "gelu", "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0, "initializer_range": 0.02,
		"layer_norm_eps": 1e-12, "image_size": int64(224), "patch_size": int64(16), "num_channels": int64(3), "qkv_bias": true,
		"encoder_stride": int64(16), "num_labels": int64(2),
	}
}

func registerViT(f map[string]expander) { f["ViTForImageClassification"] = expandViT }

// expandViT is ViTForImageClassification (transformers 5.17) as
// `model(pixel_values, labels=labels).loss` runs it: the patch embedding is a
// conv (kernel = stride = patch_size) viewed as [B, N, H]; the [CLS] token is
// concatenated in front and the position embeddings added; pre-LayerNorm
// blocks with SDPA (no mask: create_bidirectional_mask returns None) and a
// GELU MLP; a final LayerNorm; the classifier reads the [CLS] row; the loss is
// cross entropy over num_labels (single-label classification, int64 labels).
func expandViT(m *spec.Model, o options) (*spec.Graph, error) {
	c := newConfig(m, "ViTConfig", vitDefaults())
	d := c.Int("hidden_size")
	layers := c.Layers("num_hidden_layers")
	nh := c.Int("num_attention_heads")
	inner := c.Int("intermediate_size")
	act := c.Str("hidden_act", encoderActs...)
	hdrop := c.Float("hidden_dropout_prob", 0, 1)
	// Attention dropout: read for its range, it changes nothing SDPA's
	// kernels allocate (EncoderSDPA).
	c.Float("attention_probs_dropout_prob", 0, 1)
	size := c.Int("image_size")
	patch := c.Int("patch_size")
	channels := c.Int("num_channels")
	qkvBias := c.Bool("qkv_bias")
	labelsN := c.Int("num_labels")
	if v, ok := m.Config["id2label"]; ok && v.V != nil {
		// PreTrainedConfig derives num_labels from id2label.
		labels, isMap := v.V.(map[string]spec.Value)
		_, numGiven := m.Config["num_labels"]
		switch {
		case !isMap:
			c.fail("id2label", "want a mapping of class index to label, got %v (allowed: a mapping such as {\"0\": cat, \"1\": dog})", v.V)
		case numGiven && int64(len(labels)) != labelsN:
			c.fail("id2label", "%d labels but num_labels is %d (allowed: as many labels as num_labels)", len(labels), labelsN)
		default:
			labelsN = int64(len(labels))
		}
	}
	if v, ok := m.Config["head_dim"]; ok && v.V != nil && nh > 0 && !sameInt(v.V, d/nh) {
		c.fail("head_dim", "%s is not modelled: ViT's projections then leave hidden_size/num_attention_heads = %d (allowed: %d or leave it out)", spec.DescribeValue(v.V), d/nh, d/nh)
	}
	c.Divides("hidden_size", d, "num_attention_heads", nh)
	if c.err == nil && labelsN < 2 {
		c.fail("num_labels", "%d is not supported (allowed: at least 2: single-label classification with int64 labels)", labelsN)
	}
	if c.err != nil {
		return nil, c.err
	}
	t := m.Training
	if t.ImageSize > 0 {
		// The probe passes training.image_size to the config.
		size = t.ImageSize
	}
	if size < patch {
		return nil, m.Training.KeyPos("image_size", m.At("training")).Errorf("training.image_size %d is smaller than patch_size %d (allowed: at least one patch)", size, patch)
	}
	train := t.Mode == spec.ModeTrain
	if !train {
		hdrop = 0 // model.eval()
	}
	bsz := t.BatchSize
	pdt := t.Precision.ParamDType()
	grid := size / patch
	np := grid * grid
	seq := np + 1
	hd := d / nh
	b := c.newBuilder(o, t)
	pix := b.Input("pixel_values", []int64{bsz, channels, size, size}, pdt)
	labels := spec.NoTensor
	if train {
		labels = b.Input("labels", []int64{bsz}, spec.Int64)
	}

	type layer struct{ qW, qB, kW, kB, vW, vB, oW, oB, ln1W, ln1B, ln2W, ln2B, f1W, f1B, f2W, f2B spec.TensorID }
	ls := make([]layer, layers)
	var cls, pos, projW, projB, lnW, lnB, clsW, clsB spec.TensorID
	opt := func(name string, shape ...int64) spec.TensorID {
		if !qkvBias {
			return spec.NoTensor
		}
		return b.Param(name, shape, pdt)
	}
	b.Scoped("vit", func() {
		b.Scoped("embeddings", func() {
			cls = b.Param("cls_token", []int64{1, 1, d}, pdt)
			pos = b.Param("position_embeddings", []int64{1, seq, d}, pdt)
			projW = b.Param("patch_embeddings.projection.weight", []int64{d, channels, patch, patch}, pdt)
			projB = b.Param("patch_embeddings.projection.bias", []int64{d}, pdt)
			// model.cuda() moves the patch projection (a submodule) before
			// the embeddings' own cls_token and position_embeddings (measured).
			b.ResidentLast(cls, pos)
		})
		for i := range ls {
			b.Scoped(fmt.Sprintf("layers.%d", i), func() {
				l := &ls[i]
				l.qW, l.qB = b.Param("attention.q_proj.weight", []int64{d, d}, pdt), opt("attention.q_proj.bias", d)
				l.kW, l.kB = b.Param("attention.k_proj.weight", []int64{d, d}, pdt), opt("attention.k_proj.bias", d)
				l.vW, l.vB = b.Param("attention.v_proj.weight", []int64{d, d}, pdt), opt("attention.v_proj.bias", d)
				l.oW, l.oB = b.Param("attention.o_proj.weight", []int64{d, d}, pdt), b.Param("attention.o_proj.bias", []int64{d}, pdt)
				l.ln1W, l.ln1B = b.Param("layernorm_before.weight", []int64{d}, pdt), b.Param("layernorm_before.bias", []int64{d}, pdt)
				l.ln2W, l.ln2B = b.Param("layernorm_after.weight", []int64{d}, pdt), b.Param("layernorm_after.bias", []int64{d}, pdt)
				l.f1W, l.f1B = b.Param("mlp.fc1.weight", []int64{inner, d}, pdt), b.Param("mlp.fc1.bias", []int64{inner}, pdt)
				l.f2W, l.f2B = b.Param("mlp.fc2.weight", []int64{d, inner}, pdt), b.Param("mlp.fc2.bias", []int64{d}, pdt)
			})
		}
		lnW, lnB = b.Param("layernorm.weight", []int64{d}, pdt), b.Param("layernorm.bias", []int64{d}, pdt)
	})
	clsW, clsB = b.Param("classifier.weight", []int64{labelsN, d}, pdt), b.Param("classifier.bias", []int64{labelsN}, pdt)

	var h spec.TensorID
	b.Scoped("vit", func() {
		b.SetLayer("vit.embeddings")
		b.Scoped("embeddings", func() {
			// projection(pixel_values).flatten(2).transpose(1, 2): the conv's
			// output gradient arrives non-contiguous and is copied in backward.
			y := b.Conv2dCuDNN("patch_embeddings.projection", pix, projW, projB, spec.Conv2dArgs{Kernel: patch, Stride: patch}, spec.ConvOpts{GradOutputCopy: true})
			e := b.View("patch_embeddings.flatten_transpose", y, bsz, np, d)
			// Under autocast the bf16 patches and the fp32 [CLS] token meet in
			// torch.cat, which promotes as it copies (measured: no cast copy).
			e = b.CatParam("cat_cls_token", cls, e, 1)
			e = b.AddParam("add_position_embeddings", e, pos)
			h = b.Dropout("dropout", e, hdrop)
		})
		embeddingOutput := h
		// The layers are alike: Repeat writes the copies after the first four.
		prefix := func(i int) string { return b.Path(fmt.Sprintf("layers.%d", i)) }
		h = b.Repeat(len(ls), h, func(int, int) bool { return true }, prefix, func(i int, h spec.TensorID) spec.TensorID {
			l := ls[i]
			name := fmt.Sprintf("layers.%d", i)
			b.SetLayer("vit." + name)
			b.BeginBlock()
			b.Scoped(name, func() {
				in := h
				x := b.LayerNorm("layernorm_before", in, l.ln1W, l.ln1B)
				var a spec.TensorID
				b.Scoped("attention", func() {
					q := heads(b, "query_heads", b.Linear("q_proj", x, l.qW, l.qB), bsz, seq, nh, hd)
					k := heads(b, "key_heads", b.Linear("k_proj", x, l.kW, l.kB), bsz, seq, nh, hd)
					v := heads(b, "value_heads", b.Linear("v_proj", x, l.vW, l.vB), bsz, seq, nh, hd)
					o := b.EncoderSDPA("sdpa", q, k, v)
					o = b.View("merge_heads", o, bsz, seq, d)
					a = b.Linear("o_proj", o, l.oW, l.oB)
					// measured: the q/k/v projections are released only when
					// ViTAttention returns, after o_proj (it matters in inference,
					// where nothing saves them).
					b.HoldUntilLastOp(q, k, v)
				})
				// a module's argument lives until the module returns (under
				// autocast the projections keep casts, not the LayerNorm output)
				b.HoldUntilLastOp(x)
				a = b.Dropout("dropout", a, hdrop)
				mid := b.AddPromoting("add_attention", a, in)
				x = b.LayerNorm("layernorm_after", mid, l.ln2W, l.ln2B)
				b.Scoped("mlp", func() {
					ln := x
					x = b.Linear("fc1", x, l.f1W, l.f1B)
					x = encoderAct(b, "activation_fn", act, x)
					x = b.Linear("fc2", x, l.f2W, l.f2B)
					b.HoldUntilLastOp(ln)
				})
				x = b.Dropout("dropout_2", x, hdrop)
				h = b.AddPromoting("add_mlp", x, mid)
				// the layer input lives to the end of the encoder loop's call
				b.HoldUntilLastOp(in)
			})
			b.EndBlock()
			return h
		})
		b.SetLayer("vit.layernorm")
		h = b.LayerNorm("layernorm", h, lnW, lnB)
		// ViTModel.forward's local embedding_output (the encoder's argument)
		// lives until the model returns: it matters when nothing saves it.
		b.HoldUntilLastOp(embeddingOutput)
	})
	seqOut := h
	b.SetLayer("classifier")
	pooled := b.Select("cls_row", seqOut, bsz, d)
	logits := b.Linear("classifier", pooled, clsW, clsB)
	if !train {
		b.HoldUntilLastOp(seqOut)
		return b.Finish(spec.NoTensor, logits)
	}
	b.SetLayer("loss")
	loss := b.CrossEntropy("loss", logits, labels)
	// The ImageClassifierOutput holds the logits until the forward returns.
	b.HoldUntilLastOp(logits, seqOut)
	return b.Finish(loss)
}
