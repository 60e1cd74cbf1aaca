package family

import "github.com/memplan/memplan/spec"

// textBatch adds the inputs of a causal or masked LM step: input_ids and
// labels, two int64 [batch, seq] tensors (labels = a copy of input_ids).
func textBatch(b *spec.Builder, batch, seq int64) (ids, labels spec.TensorID) {
	ids = b.Input("input_ids", []int64{batch, seq}, spec.Int64)
	labels = b.Input("labels", []int64{batch, seq}, spec.Int64)
	return ids, labels
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
// forward (the model output holds them).
func causalLMLoss(b *spec.Builder, logits, labels spec.TensorID) spec.TensorID {
	b.T(logits).Cached = true
	shape := b.Shape(logits)
	bsz, seq, vocab := shape[0], shape[1], shape[2]
	var loss spec.TensorID
	b.SetLayer("loss")
	b.Scoped("loss", func() {
		f := b.Cast("float", logits, spec.FP32)
		padded := b.Emit(spec.OpSpec{Kind: "pad", Name: "pad_labels", Inputs: []spec.TensorID{labels}, NoGrad: true, Outputs: []spec.TensorSpec{spec.TS("out", spec.Int64, bsz, seq+1)}})[0]
		shifted := b.Emit(spec.OpSpec{Kind: "clone", Name: "shift_labels", Inputs: []spec.TensorID{padded}, NoGrad: true, Outputs: []spec.TensorSpec{spec.TS("out", spec.Int64, bsz*seq)}})[0]
		flat := b.View("flatten", f, bsz*seq, vocab)
		loss = b.CrossEntropy("cross_entropy", flat, shifted)
	})
	return loss
}
