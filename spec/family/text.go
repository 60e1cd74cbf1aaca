package family

import "github.com/memplan/memplan/spec"

// textBatch adds the inputs of a causal or masked LM step: input_ids and,
// in training, labels, two int64 [batch, seq] tensors (labels = a copy of
// input_ids). Inference feeds no labels (measured: the batch on the GPU is
// input_ids alone), and labels is then spec.NoTensor.
func textBatch(b *spec.Builder, batch, seq int64, train bool) (ids, labels spec.TensorID) {
	ids = b.Input("input_ids", []int64{batch, seq}, spec.Int64)
	labels = spec.NoTensor
	if train {
		labels = b.Input("labels", []int64{batch, seq}, spec.Int64)
	}
	return ids, labels
}

// eagerCausalMask is create_causal_mask (window 0) or
// create_sliding_window_causal_mask (a window) for eager attention:
// masking_utils' sdpa_mask makes its index tensors (sdpaMaskIndices),
// evaluates the mask function on them into a bool [1, 1, S, S] grid —
// causal_mask_function, or and_masks(sliding window, causal) whatever the
// sequence length, since eager never skips the mask (slidingWindowGrid) —
// and lets the indices go as it returns; eager_mask then turns the grid
// into an additive [B, 1, S, S] mask in dt (the embeddings' dtype) through
// where() with two scalars made on the GPU first, and drops the bool one
// (measured in Llama, GPT-2 and, with a 128-token window, Mistral traces).
func eagerCausalMask(b *spec.Builder, name string, dt spec.DType, batch, seq, window int64) spec.TensorID {
	var out spec.TensorID
	b.Scoped(name, func() {
		var grid spec.TensorID
		if window > 0 {
			grid = slidingWindowGrid(b, batch, seq)
		} else {
			indices := sdpaMaskIndices(b, batch, seq)
			grid = b.Emit(spec.OpSpec{Kind: "causal_mask_function", Name: "bool_mask", Inputs: indices, NoGrad: true,
				Outputs: []spec.TensorSpec{spec.TS("out", spec.Bool, 1, 1, seq, seq)}})[0]
			b.HoldUntilLastOp(indices...)
		}
		out = b.Emit(spec.OpSpec{Kind: "eager_mask", Name: "additive", Inputs: []spec.TensorID{grid}, NoGrad: true,
			Outputs: []spec.TensorSpec{spec.TS("out", dt, batch, 1, seq, seq)},
			Temps:   []spec.TensorSpec{spec.TS("zero", dt), spec.TS("min", dt)}, TempsFirst: 2})[0]
	})
	return out
}

// slidingWindowGrid is sdpa_mask evaluating and_masks(sliding window,
// causal) on [S, S] grids after its index tensors: a 0-d true to start
// from; the window's inner mask (through an int64 [S] of the query
// positions less the window, freed once compared); its and; the causal
// mask and the final and — each and freeing what it combined; the indices
// go when it returns (measured: Mistral with a 300-token window under
// SDPA and a 128-token one under eager attention).
func slidingWindowGrid(b *spec.Builder, batch, seq int64) spec.TensorID {
	indices := sdpaMaskIndices(b, batch, seq)
	grid := []spec.TensorSpec{spec.TS("out", spec.Bool, 1, 1, seq, seq)}
	mk := func(kind, name string, in ...spec.TensorID) spec.TensorID {
		return b.Emit(spec.OpSpec{Kind: kind, Name: name, Inputs: in, NoGrad: true, Outputs: grid})[0]
	}
	start := b.Emit(spec.OpSpec{Kind: "new_ones", Name: "start", NoGrad: true, Outputs: []spec.TensorSpec{spec.TS("out", spec.Bool)}})[0]
	window := b.Emit(spec.OpSpec{Kind: "sliding_window_overlay", Name: "inner_mask", Inputs: indices, NoGrad: true, Outputs: grid,
		Temps: []spec.TensorSpec{spec.TS("q_less_window", spec.Int64, seq)}, TempsFirst: 1})[0]
	and1 := mk("and_mask", "and_window", start, window)
	causal := mk("causal_mask_function", "causal", indices...)
	out := mk("and_mask", "and_causal", and1, causal)
	b.HoldUntilLastOp(indices...)
	return out
}

// sdpaMaskIndices are the index tensors masking_utils.sdpa_mask makes before
// it evaluates a mask function, locals until it returns: batch and head
// aranges, then the kv and query positions, each an arange plus an offset
// (the arange freed once added; measured in Llama, Mistral and GPT-2).
func sdpaMaskIndices(b *spec.Builder, batch, seq int64) []spec.TensorID {
	arange := func(name string, n int64, offset bool) spec.TensorID {
		op := spec.OpSpec{Kind: "arange", Name: name, NoGrad: true, Outputs: []spec.TensorSpec{spec.TS("out", spec.Int64, n)}}
		if offset {
			op.Temps, op.TempsFirst = []spec.TensorSpec{spec.TS("arange", spec.Int64, n)}, 1
		}
		return b.Emit(op)[0]
	}
	return []spec.TensorID{arange("batch_arange", batch, false), arange("head_arange", 1, false),
		arange("kv_arange", seq, true), arange("q_arange", seq, true)}
}

// positionIDs is the arange of positions HF models build every forward
// (cache_position, then position_ids), int64 [1, seq].
func positionIDs(b *spec.Builder, seq int64) spec.TensorID {
	var pos spec.TensorID
	b.Scoped("", func() {
		cache := b.Emit(spec.OpSpec{Kind: "arange", Name: "cache_position", NoGrad: true, Outputs: []spec.TensorSpec{spec.TS("out", spec.Int64, seq)}})[0]
		pos = b.Emit(spec.OpSpec{Kind: "arange", Name: "position_ids", Inputs: []spec.TensorID{cache}, NoGrad: true, Outputs: []spec.TensorSpec{spec.TS("out", spec.Int64, 1, seq)}})[0]
	})
	return pos
}

// causalLMLoss is transformers 5.x ForCausalLMLoss: logits.float(), labels
// padded by one and shifted (a contiguous int64 copy), cross_entropy over the
// vocabulary with mean reduction. The logits stay alive to the end of the
// forward (the model output holds them), their fp32 copy to the end of the
// loss.
func causalLMLoss(b *spec.Builder, logits, labels spec.TensorID) spec.TensorID {
	b.T(logits).Cached = true
	shape := b.Shape(logits)
	bsz, seq, vocab := shape[0], shape[1], shape[2]
	var loss spec.TensorID
	b.SetLayer("loss")
	b.Scoped("loss", func() {
		f := b.Cast("float", logits, spec.FP32)
		padded := b.Emit(spec.OpSpec{Kind: "pad", Name: "pad_labels", Inputs: []spec.TensorID{labels}, NoGrad: true, Outputs: []spec.TensorSpec{spec.TS("out", spec.Int64, bsz, seq+1)}})[0]
		// labels[..., 1:].contiguous() copies, except at batch 1 where the
		// slice already is contiguous: a view that keeps the padded labels
		// for as long as the loss saves it (measured).
		shift := spec.OpSpec{Kind: "clone", Name: "shift_labels", Inputs: []spec.TensorID{padded}, NoGrad: true, Outputs: []spec.TensorSpec{spec.TS("out", spec.Int64, bsz*seq)}}
		if bsz == 1 {
			shift.Kind, shift.AliasOut = "slice", []int{0}
		}
		shifted := b.Emit(shift)[0]
		flat := b.View("flatten", f, bsz*seq, vocab)
		loss = b.CrossEntropy("cross_entropy", flat, shifted)
		// ForCausalLMLoss rebinds logits to the fp32 copy (then to its
		// flattened view) and labels to the padded copy: locals until it
		// returns, freed after nll_loss in that order (measured: the fp32
		// logits outlive log_softmax, which saves only its output).
		b.HoldUntilLastOp(f, padded)
	})
	return loss
}

// findPackedSequenceIndices is masking_utils.find_packed_sequence_indices,
// which create_causal_mask runs on the batch's position ids before it
// builds (or skips) a mask, line by line (measured in Llama and GPT-2
// traces): position_ids[:, :1] - 1; torch.diff with it prepended (a
// [B, S+1] cat, freed); (diff != 1).cumsum(-1) with its scan temporary; a
// check on the last column; its locals go as it returns.
func findPackedSequenceIndices(b *spec.Builder, batch, seq int64) {
	b.Scoped("find_packed_sequence_indices", func() {
		mk := func(kind, name string, dt spec.DType, shape []int64, in []spec.TensorID, temps ...spec.TensorSpec) spec.TensorID {
			return b.Emit(spec.OpSpec{Kind: kind, Name: name, Inputs: in, NoGrad: true, Outputs: []spec.TensorSpec{spec.TS("out", dt, shape...)}, Temps: temps})[0]
		}
		first := mk("sub", "first_dummy", spec.Int64, []int64{batch, 1}, nil)
		cat := mk("cat", "prepend", spec.Int64, []int64{batch, seq + 1}, []spec.TensorID{first})
		diff := mk("diff", "diff", spec.Int64, []int64{batch, seq}, []spec.TensorID{cat})
		ne := mk("ne", "ne", spec.Bool, []int64{batch, seq}, []spec.TensorID{diff})
		scan := []spec.TensorSpec{spec.TS("scan", spec.Int64, batch*seq)}
		if batch == 1 {
			// A one-row scan goes to cub, whose temporary storage comes
			// after the int64 copy (measured: 1279 B at 64 and 4096
			// positions; batches of more rows use ATen's own scan).
			scan = append(scan, spec.TS("cub_scan", spec.UInt8, 1279))
		}
		cum := mk("cumsum", "cumsum", spec.Int64, []int64{batch, seq}, []spec.TensorID{ne}, scan...)
		b.Emit(spec.OpSpec{Kind: "check", Name: "check", Inputs: []spec.TensorID{cum}, NoGrad: true,
			Temps: []spec.TensorSpec{spec.TS("eq", spec.Bool, batch), spec.TS("all", spec.Bool)}})
		b.HoldUntilLastOp(first, diff, cum)
	})
}
