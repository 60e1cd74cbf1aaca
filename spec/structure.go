package spec

import "slices"

// SameStructure reports whether a and b are one graph at two sizes: the
// same tensors, ops, parameters and backward scripts, differing at most in
// the shapes and byte sizes of the tensors that are not resident (the
// batch, activations, temporaries, workspaces), with the same rank and no
// size becoming zero or non-zero; and in what the timeline does not read
// (the convolution geometries, which an estimate reads from its own graph
// for its warnings and for the kernels a step loads outside the allocator,
// and the expansion's warnings). Varying the batch
// size or the sequence length of a description gives such graphs.
//
// A step's timeline then makes the same requests in the same order, only
// of other sizes, which lets an estimate replay a timeline recorded on a
// and read the sizes from b (estimate.Walks). TestSameStructureFields
// fails when a field is added to Tensor, Op or Graph until it is sorted
// here as compared or left out.
func SameStructure(a, b *Graph) bool {
	if a == b {
		return true
	}
	if len(a.Tensors) != len(b.Tensors) || len(a.Ops) != len(b.Ops) ||
		a.Loss != b.Loss || a.LossGrad != b.LossGrad || a.Blocks != b.Blocks ||
		!slices.Equal(a.Params, b.Params) || !slices.Equal(a.Resident, b.Resident) ||
		!slices.Equal(a.Inputs, b.Inputs) || !slices.Equal(a.Outputs, b.Outputs) ||
		!slices.EqualFunc(a.BackwardScripts, b.BackwardScripts, slices.Equal[[]BackwardStep]) {
		return false
	}
	for i := range a.Tensors {
		x, y := &a.Tensors[i], &b.Tensors[i]
		if x.ID != y.ID || x.Name != y.Name || x.DType != y.DType || x.Role != y.Role || x.Op != y.Op ||
			x.RequiresGrad != y.RequiresGrad || x.Alias != y.Alias || x.Cached != y.Cached ||
			x.ConvPlan != y.ConvPlan || x.HeldUntil != y.HeldUntil ||
			len(x.Shape) != len(y.Shape) || (x.Bytes == 0) != (y.Bytes == 0) {
			return false
		}
	}
	// What lives before the step is sized once: parameter and buffer
	// sizes set gradients, optimizer state, buckets and shards.
	for _, id := range a.Resident {
		x, y := &a.Tensors[id], &b.Tensors[id]
		if x.Bytes != y.Bytes || !slices.Equal(x.Shape, y.Shape) {
			return false
		}
	}
	for i := range a.Ops {
		if !equalOps(&a.Ops[i], &b.Ops[i]) {
			return false
		}
	}
	return true
}

// equalOps compares every field of two ops.
func equalOps(x, y *Op) bool {
	return x.Name == y.Name && x.Kind == y.Kind && x.Layer == y.Layer && x.Block == y.Block &&
		slices.Equal(x.Inputs, y.Inputs) && slices.Equal(x.Params, y.Params) &&
		slices.Equal(x.Outputs, y.Outputs) && slices.Equal(x.Extra, y.Extra) &&
		slices.Equal(x.Saved, y.Saved) && slices.Equal(x.Temps, y.Temps) &&
		slices.Equal(x.BackwardTemps, y.BackwardTemps) && slices.Equal(x.BackwardTempsFreedBy, y.BackwardTempsFreedBy) &&
		x.ReduceTemps == y.ReduceTemps && x.ReducedParams == y.ReducedParams && x.ReducedInputs == y.ReducedInputs &&
		slices.Equal(x.GradInputs, y.GradInputs) && x.Matmul == y.Matmul && x.NoGrad == y.NoGrad &&
		x.Flow == y.Flow && x.WeightGradFirst == y.WeightGradFirst && x.GradInputViews == y.GradInputViews &&
		x.WeightGradView == y.WeightGradView && slices.Equal(x.GradProducts, y.GradProducts) &&
		x.InputGradsReversed == y.InputGradsReversed && x.ExtraAfter == y.ExtraAfter &&
		x.TempsFirst == y.TempsFirst && x.BackwardTempsFirst == y.BackwardTempsFirst &&
		x.ReduceAfterTemps == y.ReduceAfterTemps && x.BackwardScript == y.BackwardScript
}
