package spec

import (
	"slices"
	"strings"
)

// The op catalog: what each PyTorch op allocates in forward, keeps for
// backward and allocates in backward (see PYTORCH-MEMORY.md §4). Every
// function appends ops to the Builder and returns the op's output.

// ScalarShape is the shape of a 0-d tensor (one element).
var scalarShape = []int64{}

// withLast returns shape with its last dim replaced by d.
func withLast(shape []int64, d int64) []int64 {
	out := append([]int64(nil), shape...)
	out[len(out)-1] = d
	return out
}

// rows is the product of all dims but the last.
func rows(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape[:len(shape)-1] {
		n *= d
	}
	return n
}

// autocastDType returns the lower-precision dtype of autocast, if active.
func (b *Builder) autocastDType() (DType, bool) { return b.t.Precision.Autocast() }

// Cast is x.to(dt): a copy when the dtype differs (autocast's input casts).
// Its backward converts the gradient back to x's dtype.
func (b *Builder) Cast(name string, x TensorID, dt DType) TensorID {
	if b.DType(x) == dt {
		return x
	}
	return b.Emit(OpSpec{Kind: "to_copy", Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", dt, b.Shape(x)...)}})[0]
}

// CastParam is autocast's cached cast of an fp32 parameter: made once per
// forward, held by the cache until the forward ends and by backward while saved.
func (b *Builder) CastParam(w TensorID, dt DType) TensorID {
	if b.DType(w) == dt {
		return w
	}
	if c, ok := b.castMemo[w]; ok {
		return c
	}
	name := b.g.Tensors[w].Name + ".autocast"
	out := b.Emit(OpSpec{Kind: "to_copy", Name: "", Params: []TensorID{w}, Outputs: []TensorSpec{{Name: "autocast", Shape: b.Shape(w), DType: dt}}, Cached: true})[0]
	b.g.Tensors[out].Role = RoleAutocastCopy
	b.g.Tensors[out].Name = name
	b.g.Ops[len(b.g.Ops)-1].Name = name
	b.castMemo[w] = out
	if b.rec != nil {
		b.rec.memo = append(b.rec.memo, idPair{int64(w), int64(out)})
	}
	return out
}

// ResetAutocastCache forgets cached casts (a new autocast region, e.g. a checkpoint recompute).
func (b *Builder) ResetAutocastCache() {
	b.castMemo = map[TensorID]TensorID{}
	if b.rec != nil {
		b.rec.reset = true
	}
}

// matmulIn applies autocast to a matmul operand.
func (b *Builder) matmulIn(x TensorID, name string) TensorID {
	dt, ok := b.autocastDType()
	if !ok || !b.DType(x).IsFloat() || b.DType(x) == dt {
		return x
	}
	if b.g.Tensors[x].Role == RoleParameter {
		return b.CastParam(x, dt)
	}
	return b.Cast(name, x, dt)
}

// AutocastMatmulIn is what autocast makes of a matmul operand: a cast to
// the autocast dtype (cached for a parameter), or the operand itself when
// autocast is off or it already has that dtype. For callers that must
// work on the cast before the product (a fold copy of a strided operand).
func (b *Builder) AutocastMatmulIn(x TensorID, name string) TensorID { return b.matmulIn(x, name) }

// fp32In applies autocast's fp32 policy (layer_norm, softmax, losses).
func (b *Builder) fp32In(x TensorID, name string) TensorID {
	if _, ok := b.autocastDType(); !ok || b.DType(x) == FP32 || !b.DType(x).IsFloat() {
		return x
	}
	return b.Cast(name, x, FP32)
}

// Linear is F.linear(x, w, bias): a GEMM (addmm through cuBLASLt when there
// is a bias). Under autocast the wrapper's casts run right to left: bias,
// weight (both cached), then the input. Saves the input (for the weight
// grad) and the weight (for the input grad); with a bias, the backward's
// bias gradient is a sum over the rows with its staging buffer (SumStaging).
func (b *Builder) Linear(name string, x, w, bias TensorID) TensorID {
	if bias != NoTensor {
		bias = b.matmulIn(bias, "")
	}
	w = b.matmulIn(w, "")
	return b.gemm(name, x, w, bias, b.Shape(w)[0], true)
}

// gemmSaved is what a GEMM keeps for backward: the input for the weight's
// gradient, the weight for the input's gradient — each only when the other
// side needs a gradient (the first layer over data keeps no weight, so an
// autocast weight cast there dies with the autocast region).
func (b *Builder) gemmSaved(x, w TensorID) []TensorID {
	var saved []TensorID
	if b.g.Tensors[w].RequiresGrad {
		saved = append(saved, x)
	}
	if b.g.Tensors[x].RequiresGrad {
		saved = append(saved, w)
	}
	return saved
}

// Addmm is torch.addmm(bias, x, w) with w stored [in, out] (GPT-2's Conv1D);
// its bias gradient is reduced like a Linear's (gemm). Under autocast the
// casts run right to left: the weight, the input, then the bias (measured).
func (b *Builder) Addmm(name string, x, w, bias TensorID) TensorID {
	w = b.matmulIn(w, "")
	x = b.matmulIn(x, name+".input_cast")
	return b.gemm(name, x, w, bias, b.Shape(w)[1], false)
}

// gemm is a GEMM of x by w (transposed: F.linear's [out, in] weight) with
// an optional bias.
func (b *Builder) gemm(name string, x, w, bias TensorID, outDim int64, transposed bool) TensorID {
	x = b.matmulIn(x, name+".input_cast")
	w = b.matmulIn(w, "")
	if bias != NoTensor {
		bias = b.matmulIn(bias, "")
	}
	out := withLast(b.Shape(x), outDim)
	in, params := b.operands(x, w, bias)
	mm := MatmulCublas
	if bias != NoTensor {
		mm = MatmulCublasLt
	}
	outs := b.Emit(OpSpec{Kind: "linear", Name: name, Inputs: in, Params: params, Outputs: []TensorSpec{TS("out", b.DType(x), out...)}, Saved: b.gemmSaved(x, w), Matmul: mm})
	if b.err != nil {
		return outs[0] // no op was emitted
	}
	op := &b.g.Ops[len(b.g.Ops)-1]
	// mm's backward (no bias) makes grad_weight before grad_input; addmm's the other way round.
	op.WeightGradFirst = bias == NoTensor
	// F.linear (and a Conv1D's view-addmm-view) folds a [..., S, K] input
	// to 2-D: its gradient comes back through the fold's reshape, a view.
	op.GradInputViews = len(b.Shape(x)) > 2
	op.WeightGradView = transposed
	// addmm's backward hands the output gradient on as the bias's; the
	// engine sums it over the rows to the bias's shape, with its staging
	// buffer (SumStaging) — a Linear's bias and a GPT-2 Conv1D's alike
	// (measured: [8192, 768] → 50331648 B, [8192, 3072] → 138412032 B,
	// [8192, 2304] → 139198464 B in GPT-2's backward).
	op.ReducedParams, op.ReducedInputs = reducedBias(bias, in, params)
	if bias != NoTensor && (len(op.GradInputs) > 0 || len(op.Params) > 0) {
		temps, freedBy := sumTemps(rows(out), out[len(out)-1], b.DType(x))
		op.BackwardTempsFreedBy = withFreedBy(op.BackwardTempsFreedBy, len(op.BackwardTemps), freedBy)
		for _, ts := range temps {
			op.BackwardTemps = append(op.BackwardTemps, b.ofLastOp(b.newTensor(op.Name+"."+ts.Name, ts.Shape, ts.DType, RoleTemporary)))
			op.ReduceTemps++
		}
	}
	return outs[0]
}

// reducedBias says where a GEMM's or convolution's bias is among its
// operands, for Op.ReducedParams and Op.ReducedInputs: a parameter, or under
// autocast its cast, an input; it is the last of either.
func reducedBias(bias TensorID, inputs, params []TensorID) (reducedParams, reducedInputs int) {
	switch {
	case bias == NoTensor:
	case len(params) > 0 && params[len(params)-1] == bias:
		reducedParams = 1
	case len(inputs) > 0:
		reducedInputs = 1
	}
	return reducedParams, reducedInputs
}

// Embedding is F.embedding (nn.Embedding's lookup): saves the indices. Its
// backward, embedding_dense_backward on CUDA, runs a direct kernel up to 3072
// indices; above, it sorts them (sorted and original int64 copies) and sums
// by segments: segment offsets, (n + n/10) partial-segment offsets and the
// partial sums of the embedding width in fp32 (70.4 MiB for TinyLlama's 8192
// tokens × 2048), all freed before the op returns.
func (b *Builder) Embedding(name string, idx, w TensorID) TensorID {
	return b.embedding(name, idx, w, false)
}

// EmbeddingExpanded is Embedding on indices that are an expanded view
// (BERT's token_type_ids): index_select copies them contiguous, in forward
// and again in backward.
func (b *Builder) EmbeddingExpanded(name string, idx, w TensorID) TensorID {
	return b.embedding(name, idx, w, true)
}

func (b *Builder) embedding(name string, idx, w TensorID, expanded bool) TensorID {
	shape := append(b.Shape(idx), b.Shape(w)[1])
	n := b.T(idx).Numel()
	s := OpSpec{Kind: "embedding", Name: name, Inputs: []TensorID{idx}, Params: []TensorID{w}, NoGradInputs: []int{0},
		Outputs: []TensorSpec{TS("out", b.DType(w), shape...)}, Saved: []TensorID{idx}}
	if expanded {
		// index_select copies the indices before it makes its output, and
		// the backward copies them again before the gradient (measured in
		// BERT).
		s.Temps, s.TempsFirst = []TensorSpec{TS("index_contiguous", Int64, n)}, 1
		s.BackwardTemps, s.BackwardTempsFirst = []TensorSpec{TS("index_contiguous", Int64, n)}, 1
	}
	if n > 3072 {
		temps, freedBy := sortedEmbeddingBackwardTemps(n, b.Shape(w)[0], b.Shape(w)[1], b.DType(w))
		off := len(s.BackwardTemps) // BERT's index copy comes first
		s.BackwardTemps = append(s.BackwardTemps, temps...)
		s.BackwardTempsFreedBy = make([]int, off, off+len(freedBy))
		for _, by := range freedBy {
			if by != 0 {
				by += off
			}
			s.BackwardTempsFreedBy = append(s.BackwardTempsFreedBy, by)
		}
		s.BackwardTempsFirst = off + embeddingSortTemps
	}
	return b.Emit(s)[0]
}

// embeddingBackwardSMs is the streaming-multiprocessor count of the GPUs the
// bundled profiles calibrate (H100, H200: 132), which the sorted embedding
// backward's choice of kernel reads. For real tables the choice is the same
// on any GPU: vocabularies are far above the threshold, type tables (2 rows)
// far below.
const embeddingBackwardSMs = 132

// sortedEmbeddingBackwardTemps are embedding_dense_backward's buffers above
// 3072 indices (n), for a [rows, width] table, in the order
// notes/embedding-backward.md lists from the traces: before the gradient
// (the first embeddingSortTemps of them) the sorted and original int64
// indices, the arange the sort carries along and cub's radix-sort scratch;
// after it the segment offsets and their count, unique_by_key's keys and
// scratch, the partials per segment and their offsets with the exclusive
// sum's scratch, the partial-segment count and (n/10 + min(n, rows))
// partial segment offsets. Then, when the per-segment sum would use few
// GPU blocks (min(n, rows)·⌈width/32⌉·32/min(that, 1024) under 4 per SM)
// and far fewer than there are partial segments, the fused kernel adds
// partial sums atomically: a partial-to-segment map, and for 16-bit tables
// an fp32 accumulator of the table's shape (measured: BERT's 2-row
// token-type table); otherwise the two-pass kernel keeps every partial sum
// in fp32 (measured: 70.4 MiB for TinyLlama's 8192 tokens × 2048). The
// returned list says which temps go early (BackwardTempsFreedBy).
func sortedEmbeddingBackwardTemps(n, rows, width int64, dt DType) ([]TensorSpec, []int) {
	segments := min(n, rows)
	partials := n/10 + segments
	warped := (width + 31) / 32 * 32
	block := min(warped, 1024)
	grid := (segments*warped + block - 1) / block
	temps := []TensorSpec{
		TS("sorted_indices", Int64, n), TS("orig_indices", Int64, n), // 0, 1
		TS("sort_values", Int64, n), TS("sort_scratch", UInt8, radixSortScratch(n)), // 2, 3
		TS("segment_offsets", Int64, n), TS("num_of_segments", Int64), // 4, 5
		TS("unique_keys", Int64, n), TS("unique_scratch", UInt8, uniqueScratch(n)), // 6, 7
		TS("partials_per_segment", Int64, segments), TS("partials_per_segment_offset", Int64, segments), // 8, 9
		TS("scan_scratch", UInt8, scanScratch(segments)), TS("num_of_partial_segments", Int64), // 10, 11
		TS("partial_segment_offset", Int64, partials), // 12
	}
	freedBy := []int{0, 0, 3, 3, 0, 0, 7, 7, 0, 0, 10, 0, 0}
	if grid < embeddingBackwardSMs*4 && partials > grid*4 {
		temps = append(temps, TS("partial_to_segment", Int64, partials))
		if dt != FP32 {
			temps = append(temps, TS("grad_weight_fp32", FP32, rows, width))
		}
		return temps, freedBy
	}
	return append(temps, TS("grad_weight_per_segment", FP32, partials, width)), freedBy
}

// embeddingSortTemps is how many of sortedEmbeddingBackwardTemps come
// before the weight's gradient (the sort).
const embeddingSortTemps = 4

// radixSortScratch is cub's temp storage for DeviceRadixSort::SortPairs of
// n int64 keys and values over all 64 bits, as PyTorch 2.11 asks for it:
// two 256-byte-aligned alternate buffers and the one-sweep passes' state,
// 1 KiB per tile of 4608 items (fits the 8 measured n from 3840 to 32768
// to the byte; notes/embedding-backward.md).
func radixSortScratch(n int64) int64 {
	alt := (8*n + 255) / 256 * 256
	return 2*alt + 16895 + 1024*((n+4607)/4608)
}

// cubScratch is the temp storage cub asks for in a decoupled look-back
// pass over items in tiles of tile items (testdata/cub: the requests of
// embedding_dense_backward at 16 values of each length, to 2,097,152):
// the tiles' 16-byte descriptors after 32 of padding, aligned to 256
// bytes, then a second 256-byte-aligned allocation, and 255 bytes to align
// the whole.
func cubScratch(items, tile int64) int64 {
	tiles := (max(items, 1) + tile - 1) / tile
	return ((tiles+32)*16+255)/256*256 + 256 + 255
}

// scanScratch is cub's temp storage for the exclusive sum over m int64
// partial counts: tiles of 896 (1,279 bytes up to 12,544 items, 10,495 at
// 524,288).
func scanScratch(m int64) int64 { return cubScratch(m, 896) }

// uniqueScratch is cub's temp storage for unique_by_key over n int64 sorted
// indices: tiles of 4,480 (1,279 bytes up to 71,680 items, 8,703 at
// 2,097,152; the measured lengths allow tiles of 4,468 to 4,518).
func uniqueScratch(n int64) int64 { return cubScratch(n, 4480) }

// ReLU saves its output; in place it writes over x.
func (b *Builder) ReLU(name string, x TensorID, inplace bool) TensorID {
	s := OpSpec{Kind: "relu", Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", b.DType(x), b.Shape(x)...)}, SaveOut: []int{0}}
	if inplace {
		s.AliasOut = []int{0}
	}
	return b.Emit(s)[0]
}

// ReLU6 is nn.ReLU6(inplace=True), F.hardtanh_(x, 0, 6): it writes over x,
// but its derivative reads the input (derivatives.yaml's hardtanh_ entry
// uses self, pytorch/pytorch#95432), so under autograd the input is cloned
// and the clone saved — as much memory as the out-of-place op (measured:
// MobileNetV2's ReLU6 blocks, a clone per call in training, none in
// inference).
func (b *Builder) ReLU6(name string, x TensorID) TensorID {
	s := OpSpec{Kind: "hardtanh_", Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", b.DType(x), b.Shape(x)...)}, AliasOut: []int{0}}
	if b.Train() && b.T(x).RequiresGrad {
		s.Extra, s.SaveExtra = []TensorSpec{TS("input_clone", b.DType(x), b.Shape(x)...)}, []int{0}
	}
	return b.Emit(s)[0]
}

// GELU (exact or tanh) saves its input.
func (b *Builder) GELU(name string, x TensorID, tanh bool) TensorID {
	kind := "gelu"
	if tanh {
		kind = "gelu_tanh"
	}
	return b.Emit(OpSpec{Kind: kind, Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", b.DType(x), b.Shape(x)...)}, Saved: []TensorID{x}})[0]
}

// SiLU saves its input.
func (b *Builder) SiLU(name string, x TensorID) TensorID {
	return b.Emit(OpSpec{Kind: "silu", Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", b.DType(x), b.Shape(x)...)}, Saved: []TensorID{x}})[0]
}

// Tanh saves its output.
func (b *Builder) Tanh(name string, x TensorID) TensorID {
	return b.Emit(OpSpec{Kind: "tanh", Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", b.DType(x), b.Shape(x)...)}, SaveOut: []int{0}})[0]
}

// Mul multiplies elementwise and saves both operands (those that need it).
func (b *Builder) Mul(name string, x, y TensorID) TensorID {
	return b.mul(name, x, y, []TensorID{x, y})
}

// Scale multiplies by a Python scalar: nothing saved.
func (b *Builder) Scale(name string, x TensorID) TensorID {
	return b.Emit(OpSpec{Kind: "mul_scalar", Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", b.DType(x), b.Shape(x)...)}})[0]
}

// Pow raises to a scalar power; saves its input. Its backward, pow_backward,
// computes grad · (n · x.pow(n − 1)): two input-sized temporaries, made
// before the gradient and freed as the expression ends (measured in GPT-2's
// GELU, x³: two [B, S, 4H] buffers per layer, and Llama's RMSNorm, x²).
func (b *Builder) Pow(name string, x TensorID) TensorID {
	dt, shape := b.DType(x), b.Shape(x)
	return b.Emit(OpSpec{Kind: "pow", Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", dt, shape...)}, Saved: []TensorID{x},
		BackwardTemps: []TensorSpec{TS("pow_minus_1", dt, shape...), TS("times_exponent", dt, shape...)}, BackwardTempsFirst: 2})[0]
}

// Add adds two tensors (a residual join); nothing saved; the gradient passes
// to both inputs unchanged — except to an input broadcast to the output's
// shape or of a lower precision, whose gradient the engine sums or casts to
// the input's, a new tensor (measured: GPT-2's [1, S, H] position
// embeddings get a [1, S, H] gradient before their embedding's backward;
// under autocast the MLP's fp16 output gets an fp16 copy of the fp32
// residual's gradient).
func (b *Builder) Add(name string, x, y TensorID) TensorID {
	shape := broadcast(b.Shape(x), b.Shape(y))
	out := b.Emit(OpSpec{Kind: "add", Name: name, Inputs: []TensorID{x, y}, Outputs: []TensorSpec{TS("out", promote(b.DType(x), b.DType(y)), shape...)}, Flow: GradPassThrough})[0]
	if b.err != nil {
		return out
	}
	op := &b.g.Ops[len(b.g.Ops)-1]
	for k, in := range op.Inputs {
		if k >= len(op.GradInputs) || !b.g.Tensors[in].RequiresGrad || (b.T(in).Numel() == b.T(out).Numel() && b.DType(in) == b.DType(out)) {
			continue
		}
		op.GradInputs[k] = b.engineGrad(in)
	}
	return out
}

// AddScalar adds a scalar (x + 1.0): a new tensor; gradient passes through.
func (b *Builder) AddScalar(name string, x TensorID) TensorID {
	return b.Emit(OpSpec{Kind: "add_scalar", Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", b.DType(x), b.Shape(x)...)}, Flow: GradPassThrough})[0]
}

// View reshapes or transposes without copying: no memory, gradient passes through.
func (b *Builder) View(name string, x TensorID, shape ...int64) TensorID {
	return b.Emit(OpSpec{Kind: "view", Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", b.DType(x), shape...)}, AliasOut: []int{0}, Flow: GradPassThrough})[0]
}

// Split returns n views of x with the given shape (x.split / chunk, then
// view and transpose). The backward concatenates the gradients into one
// new tensor shaped like x. The list is the op's own (see Emit).
func (b *Builder) Split(name string, x TensorID, n int, shape []int64) []TensorID {
	outs := make([]TensorSpec, n)
	alias := make([]int, n)
	for i := range outs {
		outs[i] = TensorSpec{Name: sprintf("out%d", i), Shape: shape, DType: b.DType(x)}
	}
	return b.Emit(OpSpec{Kind: "split", Name: name, Inputs: []TensorID{x}, Outputs: outs, AliasOut: alias})
}

// SliceLast is x[..., :width] (or any other run of width along the last
// dimension, possibly empty): a view, no memory in forward; its backward
// (slice_backward) makes a zero-filled gradient shaped like x.
func (b *Builder) SliceLast(name string, x TensorID, width int64) TensorID {
	return b.Emit(OpSpec{Kind: "slice", Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", b.DType(x), withLast(b.Shape(x), width)...)}, AliasOut: []int{0}})[0]
}

// Cat is torch.cat(xs, -1) into a new tensor shaped shape, in the
// promoted dtype. Its backward hands each input a narrow view of the
// gradient, which keeps the gradient's storage while the view waits; an
// input of another dtype gets the view cast to its own by the engine — a
// new tensor (none for an empty input) that holds nothing of it (measured:
// Phi3's rotary cat under autocast, fp32 rotated half and fp16 rest).
func (b *Builder) Cat(name string, xs []TensorID, shape []int64) TensorID {
	dt := b.DType(xs[0])
	for _, x := range xs[1:] {
		dt = promote(dt, b.DType(x))
	}
	out := b.Emit(OpSpec{Kind: "cat", Name: name, Inputs: xs, Outputs: []TensorSpec{TS("out", dt, shape...)}, Flow: GradPassThrough})[0]
	if b.err != nil || !b.T(out).RequiresGrad {
		return out
	}
	op := &b.g.Ops[len(b.g.Ops)-1]
	for k, x := range op.Inputs {
		t := b.T(x)
		if k >= len(op.GradInputs) || !t.RequiresGrad || t.DType == dt {
			continue
		}
		op.GradInputs[k] = b.engineGrad(x)
	}
	return out
}

// Contiguous copies a non-contiguous view (reshape after transpose).
func (b *Builder) Contiguous(name string, x TensorID, shape ...int64) TensorID {
	return b.Emit(OpSpec{Kind: "clone", Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", b.DType(x), shape...)}, Flow: GradPassThrough})[0]
}

// CacheCopy is DynamicCache.update's torch.cat of a [B, H, S, d] key or
// value view onto the empty cache: a contiguous copy, held until the output
// is dropped. The cache layer's empty tensors take the first key's dtype
// (DynamicLayer.lazy_initialization), so the copy is in the promotion of
// that and x's: under autocast a rotary-embedded key is fp32 and so is the
// value's copy. Its gradient passes back as a slice; relayout says the
// attention's gradient is laid out unlike the view's base, so the backward
// of the view makes a new buffer (modelled as the copy's backward), and so
// does a copy in another dtype (the gradient is cast back to x's).
func (b *Builder) CacheCopy(name string, x TensorID, cacheDType DType, relayout bool) TensorID {
	dt := promote(cacheDType, b.DType(x))
	flow := GradPassThrough
	if relayout || dt != b.DType(x) {
		flow = GradNew
	}
	out := b.Emit(OpSpec{Kind: "cat", Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", dt, b.Shape(x)...)}, Flow: flow})[0]
	b.T(out).Cached = true
	return out
}

// Dropout with p > 0 in training keeps a bool mask (1 byte per element).
func (b *Builder) Dropout(name string, x TensorID, p float64) TensorID {
	if p <= 0 || !b.Train() {
		return x
	}
	return b.Emit(OpSpec{Kind: "dropout", Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", b.DType(x), b.Shape(x)...)},
		Extra: []TensorSpec{TS("mask", Bool, b.Shape(x)...)}, SaveExtra: []int{0}})[0]
}

// LayerNorm saves input, weight, bias and fp32 mean and rstd of shape [..., 1]
// (autocast runs it in fp32).
func (b *Builder) LayerNorm(name string, x, w, bias TensorID) TensorID {
	x = b.fp32In(x, name+".input_cast")
	shape := b.Shape(x)
	stat := withLast(shape, 1)
	params := []TensorID{}
	for _, p := range []TensorID{w, bias} {
		if p != NoTensor {
			params = append(params, p)
		}
	}
	s := OpSpec{Kind: "layer_norm", Name: name, Inputs: []TensorID{x}, Params: params, ExtraAfter: 2,
		Outputs:     []TensorSpec{TS("out", b.DType(x), shape...)},
		Extra:       []TensorSpec{TS("mean", FP32, stat...), TS("rstd", FP32, stat...)},
		NoGradExtra: []int{0, 1},
		Saved:       append([]TensorID{x}, params...), SaveExtra: []int{0, 1}}
	s.BackwardTemps, s.BackwardScript = b.layerNormBlockedGrads(params, shape)
	return b.Emit(s)[0]
}

// layerNormBlockedGrads is layer_norm's backward for its weight and bias
// over many rows and few columns (LayerNormBackwardKernelImplInternal: M
// rows above 64 × 1024 and N columns with N/32 under half the SMs): each
// gradient, made empty with the input's, is summed in two steps — a
// kernel writes [rows, N] partial sums (rows = ⌈M/32⌉, at most
// 32768/⌈N/32⌉), then `dgamma = dgamma_blocks.sum(0)` makes the gradient
// anew (with the sum's staging, SumStaging) and lets the first one go;
// the partial buffers go last. Measured on BERT over 260 × 512 tokens and
// GPT-2 over 94 × 1024: two [1365, 768] fp32 buffers, each sum's
// 8,650,752-byte staging and 24-byte semaphores. None (nil, nil) on the
// other path, whose kernels write the gradients directly.
func (b *Builder) layerNormBlockedGrads(params []TensorID, shape []int64) ([]TensorSpec, []BackwardStep) {
	m, n := rows(shape), shape[len(shape)-1]
	if !b.Train() || m <= 64*1024 || n/32 >= reduceSMs/2 {
		return nil, nil
	}
	var trained []int
	for k, p := range params {
		if b.T(p).RequiresGrad {
			trained = append(trained, k)
		}
	}
	if len(trained) == 0 {
		return nil, nil
	}
	dt := b.DType(params[trained[0]])
	blockRows := min(ceilDiv(m, 32), 32768/ceilDiv(n, 32))
	var temps []TensorSpec
	var script []BackwardStep
	add := func(ts TensorSpec) int {
		temps = append(temps, ts)
		script = append(script, BackwardStep{Kind: StepMakeTemp, Index: len(temps) - 1})
		return len(temps) - 1
	}
	free := func(k int) { script = append(script, BackwardStep{Kind: StepFreeTemp, Index: k}) }
	short := func(k int) string {
		name := b.T(params[k]).Name
		return name[strings.LastIndexByte(name, '.')+1:]
	}
	first := make([]int, len(trained))
	for i, k := range trained {
		first[i] = add(TS(short(k)+"_grad_first", dt, n))
	}
	for _, k := range trained {
		add(TS(short(k)+"_grad_blocks", dt, blockRows, n))
	}
	buf, sem := SumStaging(blockRows, n)
	for i, k := range trained {
		script = append(script, BackwardStep{Kind: StepParamGrad, Index: k})
		staging := -1
		if buf > 0 {
			staging = add(TS(short(k)+"_sum_staging", UInt8, buf))
		}
		if sem > 0 {
			free(add(TS(short(k)+"_sum_semaphores", UInt8, sem)))
		}
		if staging >= 0 {
			free(staging)
		}
		free(first[i]) // dgamma = dgamma_blocks.sum(0) lets the first go
	}
	return temps, script
}

// RMSNorm is torch.nn.RMSNorm (fused when dtypes match): saves input, weight
// and an fp32 rstd [..., 1].
func (b *Builder) RMSNorm(name string, x, w TensorID) TensorID {
	shape := b.Shape(x)
	if w != NoTensor && b.DType(w) != b.DType(x) {
		// Mixed dtypes take the composite path: x.float(), pow, mean, rsqrt, mul, mul.
		return b.rmsNormComposite(name, x, w)
	}
	params := []TensorID{}
	if w != NoTensor {
		params = append(params, w)
	}
	return b.Emit(OpSpec{Kind: "rms_norm", Name: name, Inputs: []TensorID{x}, Params: params,
		Outputs: []TensorSpec{TS("out", b.DType(x), shape...)},
		Extra:   []TensorSpec{TS("rstd", FP32, withLast(shape, 1)...)},
		Saved:   append([]TensorID{x}, params...), SaveExtra: []int{0}})[0]
}

func (b *Builder) rmsNormComposite(name string, x, w TensorID) TensorID {
	var out TensorID
	b.Scoped(name, func() {
		h := b.Cast("to_fp32", x, FP32)
		sq := b.Pow("pow", h)
		shape := b.Shape(h)
		mean := b.Emit(OpSpec{Kind: "mean", Name: "mean", Inputs: []TensorID{sq}, Outputs: []TensorSpec{TS("out", FP32, withLast(shape, 1)...)}})[0]
		rs := b.Emit(OpSpec{Kind: "rsqrt", Name: "rsqrt", Inputs: []TensorID{mean}, Outputs: []TensorSpec{TS("out", FP32, withLast(shape, 1)...)}, SaveOut: []int{0}})[0]
		n := b.Mul("mul_rstd", h, rs)
		n = b.Cast("to_input_dtype", n, b.DType(x))
		out = b.Mul("mul_weight", w, n)
	})
	return out
}

// Softmax saves its output (autocast: fp32). Its backward,
// _softmax_backward_data, makes the gradient and an input-sized temporary
// (measured in GPT-2's eager attention, as in SDPA's math kernel).
//
// Under autocast softmax takes dtype=float32 (autocast's fp32_set_opt_dtype
// policy): ATen's softmax runs an fp16 input through one half-to-float
// kernel — no cast, an fp32 output, and a backward that writes the fp16
// input gradient before its fp32 temporary (measured: a custom MLP's
// softmax under amp-fp16) — and converts any other input first.
func (b *Builder) Softmax(name string, x TensorID) TensorID {
	out := b.DType(x)
	if _, ok := b.autocastDType(); ok && out == FP16 {
		out = FP32
	} else {
		x = b.fp32In(x, name+".input_cast")
		out = b.DType(x)
	}
	return b.Emit(OpSpec{Kind: "softmax", Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", out, b.Shape(x)...)}, SaveOut: []int{0},
		BackwardTemps: []TensorSpec{TS("softmax_backward_tmp", out, b.Shape(x)...)}})[0]
}

// Conv2dArgs are the hyper-parameters of a 2-d convolution.
type Conv2dArgs struct {
	Kernel, Stride, Padding, Dilation, Groups int64
}

// ConvOut is the output size of a convolution or pooling along one dim.
func ConvOut(in, kernel, stride, padding, dilation int64) int64 {
	n := in + 2*padding - dilation*(kernel-1) - 1
	if n < 0 {
		return 0 // PyTorch floors: the window does not fit, no output
	}
	return n/stride + 1
}

// Conv2d is a cuDNN convolution (Conv2dCuDNN): saves input and weight; its
// workspaces live only inside the calls.
func (b *Builder) Conv2d(name string, x, w, bias TensorID, a Conv2dArgs) TensorID {
	return b.Conv2dCuDNN(name, x, w, bias, a, ConvOpts{})
}

// BatchNorm2d: in training, batch norm (cuDNN's, or the native kernel for
// bf16 and pure fp16 inputs) makes its output, then fp32
// save_mean/save_invstd [C], and saves input, weight, running stats and
// those two. In inference cuDNN's makes the output alone; the native
// kernel (ATen's batch_norm_cuda, which _select_batch_norm_backend takes
// for a bf16 input, or fp16 with fp16 weights) makes save_mean and
// save_invstd too, and they die as the op returns (measured: allocated
// after the output and freed at once).
func (b *Builder) BatchNorm2d(name string, x, w, bias, runMean, runVar TensorID) TensorID {
	shape := b.Shape(x)
	c := shape[1]
	if b.t.Mode == ModeTrain && shape[0]*shape[2]*shape[3] == 1 {
		// F.batch_norm in training: "Expected more than 1 value per channel"
		b.Fail(b.errorf("%s (batch_norm): input %s has one value per channel, which training batch norm refuses (allowed: batch × height × width above 1: a larger batch or image)", b.Path(name), FormatShape(shape)))
		return x
	}
	s := OpSpec{Kind: "batch_norm", Name: name, Inputs: []TensorID{x}, Params: []TensorID{w, bias},
		Outputs: []TensorSpec{TS("out", b.DType(x), shape...)},
		Saved:   []TensorID{x, w, runMean, runVar}}
	stats := []TensorSpec{TS("save_mean", FP32, c), TS("save_invstd", FP32, c)}
	native := b.DType(x) == BF16 || (b.DType(x) == FP16 && b.DType(w) != FP32)
	switch {
	case b.Train():
		// cuDNN's reserve space is a 0-byte tensor here: no allocation.
		s.Extra, s.SaveExtra, s.ExtraAfter = stats, []int{0, 1}, 2
	case native:
		s.Temps = stats
	}
	return b.Emit(s)[0]
}

// MaxPool2d keeps int64 indices of the output's shape.
func (b *Builder) MaxPool2d(name string, x TensorID, kernel, stride, padding int64) TensorID {
	xs := b.Shape(x)
	h := ConvOut(xs[2], kernel, stride, padding, 1)
	w := ConvOut(xs[3], kernel, stride, padding, 1)
	if h <= 0 || w <= 0 {
		b.Fail(b.errorf("%s (max_pool2d): input %s is too small for kernel %d stride %d padding %d (allowed: height and width + 2 × padding at least the kernel)", b.Path(name), FormatShape(xs), kernel, stride, padding))
		return x
	}
	// max_pool2d_with_indices allocates the output, then the indices (also
	// without grad, where they are dropped at once).
	return b.Emit(OpSpec{Kind: "max_pool2d", Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", b.DType(x), xs[0], xs[1], h, w), TS("indices", Int64, xs[0], xs[1], h, w)},
		Saved: []TensorID{x}, SaveOut: []int{1}})[0]
}

// AdaptiveAvgPool2d saves its input; to 1×1 it is a mean (GlobalAvgPool),
// which saves nothing.
func (b *Builder) AdaptiveAvgPool2d(name string, x TensorID, oh, ow int64) TensorID {
	if oh == 1 && ow == 1 {
		return b.GlobalAvgPool(name, x)
	}
	xs := b.Shape(x)
	return b.Emit(OpSpec{Kind: "adaptive_avg_pool2d", Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", b.DType(x), xs[0], xs[1], oh, ow)}, Saved: []TensorID{x}})[0]
}

// SDPABackend is the kernel F.scaled_dot_product_attention picks.
type SDPABackend int

// SDPA backends on sm90 in PyTorch 2.11.
const (
	SDPAMath SDPABackend = iota
	SDPAFlash
	SDPAEfficient
	SDPACuDNN
)

var sdpaNames = [...]string{"math", "flash", "efficient", "cudnn"}

// String names the backend.
func (s SDPABackend) String() string { return sdpaNames[s] }

// PickSDPA returns the backend PyTorch 2.11 picks on sm90 for the dtype and
// whether an explicit mask is passed (measured on the H200: cuDNN for 16-bit
// inputs with or without a mask, memory-efficient for fp32).
func PickSDPA(dt DType, hasMask bool) SDPABackend {
	switch dt {
	case BF16, FP16:
		return SDPACuDNN
	case FP32:
		return SDPAEfficient
	}
	return SDPAMath
}

// efficientBackwardTemps are the temporaries of the memory-efficient
// attention's backward in fp32 (_efficient_attention_backward, after dq, dk,
// dv): the fp32 kernel does not compute delta itself, so it is
// (grad_out · out).sum(-1).transpose(-2, -1).contiguous() — a [B, S, H, d]
// product and the [B, S, H] sum, temporaries of one C++ expression that go
// once the [B, H, S] delta is copied (measured in BERT-tiny, where all
// three are in the small pool) — then the kernel's workspace, which accumulates dq in
// fp32: per batch and head, one (kI·64 + 4)-float tile (GradQTempStorage:
// the accumulator and its lock) for each kI queries and 64 head dims, where
// kI is the kernel's query block — 64 for the k32/k64 kernels, 128 for
// the sm80 fp32 k128 and k65536 ones (measured on the H200 at d = 64 for
// S = 128, 197, 512, 1024: 16,400 B per query block; at d = 256, S = 512:
// 8,392,704 B for 2 × 8 heads).
func efficientBackwardTemps(bsz, heads, s, d int64) ([]TensorSpec, []int) {
	kI := int64(64)
	if d > 64 {
		kI = 128
	}
	tiles := bsz * heads * ((s + kI - 1) / kI) * ((d + 63) / 64)
	return []TensorSpec{
		TS("delta_product", FP32, bsz, s, heads, d),
		TS("delta_sum", FP32, bsz, s, heads),
		TS("delta", FP32, bsz, heads, s),
		TS("workspace", UInt8, tiles*(kI*64+4)*4),
	}, []int{2, 2, 0, 0}
}

// SDPA is F.scaled_dot_product_attention on q, k, v of shape [B, H, S, d]
// (kv heads may be fewer: the caller repeats them). Saves q, k, v, the
// output, a fp32 logsumexp and the philox seed/offset — on the GPU for
// cuDNN; the memory-efficient kernel keeps them on the CPU, the philox state
// when it drops out and empty CPU tensors when it does not (measured: GPT-2
// fp32 with dropout, a custom fp32 transformer without). Its dropout_p
// changes nothing these kernels allocate: they keep no mask but regenerate
// it from the philox state.
func (b *Builder) SDPA(name string, q, k, v, mask TensorID, causal bool) TensorID {
	q = b.matmulIn(q, name+".q_cast")
	k = b.matmulIn(k, name+".k_cast")
	v = b.matmulIn(v, name+".v_cast")
	qs := b.Shape(q)
	bsz, heads, s, d := qs[0], qs[1], qs[2], qs[3]
	backend := PickSDPA(b.DType(q), mask != NoTensor)
	in := []TensorID{q, k, v}
	saved := []TensorID{q, k, v}
	noGrad := []int{}
	if mask != NoTensor {
		if b.DType(mask) == Bool && backend != SDPAMath {
			// convert_boolean_attn_mask: where(mask, 0, -inf) in q's dtype, a
			// new tensor per call — of the mask's shape as SDPA sees it,
			// expanded to the batch (measured: [B, 1, S, S] from a [1, 1, S, S]
			// sliding-window mask) — made before the kernel, which keeps it
			// as its bias for backward; where()'s two scalars become 0-d
			// tensors on the GPU first (measured).
			ms := slices.Clone(b.Shape(mask))
			if len(ms) == 4 {
				ms[0] = bsz
			}
			mask = b.Emit(OpSpec{Kind: "convert_boolean_attn_mask", Name: name + ".additive_mask", Inputs: []TensorID{mask}, NoGrad: true,
				Outputs: []TensorSpec{TS("out", b.DType(q), ms...)},
				Temps:   []TensorSpec{TS("zero", b.DType(q)), TS("neg_inf", b.DType(q))}, TempsFirst: 2})[0]
			saved = append(saved, mask)
		}
		in = append(in, mask)
		noGrad = append(noGrad, 3)
	}
	// The fused kernels make their output before the logsumexp (measured).
	spec := OpSpec{Kind: "sdpa_" + backend.String(), Name: name, Inputs: in, NoGradInputs: noGrad,
		Outputs: []TensorSpec{TS("out", b.DType(q), bsz, heads, s, d)},
		Saved:   saved, SaveOut: []int{0}}
	switch backend {
	case SDPAEfficient:
		spec.Extra = []TensorSpec{TS("logsumexp", FP32, bsz, heads, (s+31)/32*32)}
		spec.SaveExtra, spec.ExtraAfter = []int{0}, 1
		spec.BackwardTemps, spec.BackwardTempsFreedBy = efficientBackwardTemps(bsz, heads, s, d)
	case SDPACuDNN, SDPAFlash:
		// As SDPACausal's cuDNN call: philox seed and offset, the output,
		// the logsumexp, a 256-byte scratch (measured in GPT-2 bf16).
		spec.Extra = []TensorSpec{TS("philox_seed", Int64), TS("philox_offset", Int64), TS("logsumexp", FP32, bsz, heads, s, 1)}
		spec.SaveExtra, spec.ExtraAfter, spec.NoGradExtra = []int{0, 1, 2}, 1, []int{0, 1}
		spec.Temps = []TensorSpec{TS("scratch", UInt8, 256)}
		// One workspace: the fp32 dQ accumulator, the softmax sums and 256
		// bytes (measured in GPT-2's bf16 backward: 25,559,296 B at
		// [8, 12, 1024, 64]).
		spec.BackwardTemps = []TensorSpec{TS("workspace", UInt8, bsz*heads*s*d*4+bsz*heads*s*4+256)}
	case SDPAMath:
		spec.Extra = []TensorSpec{TS("probs", b.DType(q), bsz, heads, s, s)}
		spec.SaveExtra = []int{0}
	}
	return b.Emit(spec)[0]
}

// MSELoss is F.mse_loss(x, y), mean((x - y)^2): saves both. As measured on
// the H200 (PyTorch 2.11), the CUDA kernel makes two x-sized buffers: the
// first (the unreduced loss) stays allocated for as long as the returned
// scalar does — the scalar is modelled as living in its storage — and the
// second is freed before it returns, after the mean's staging buffer and
// semaphores when it spreads over several blocks (SumStagingInner: 500 +
// 4 B for 1,024,000 elements, none for 64,000); the backward is one fused
// kernel writing x's gradient.
func (b *Builder) MSELoss(name string, x, y TensorID) TensorID {
	x = b.fp32In(x, name+".input_cast")
	op := OpSpec{Kind: "mse_loss", Name: name, Inputs: []TensorID{x, y}, NoGradInputs: []int{1},
		Outputs: []TensorSpec{TS("out", b.DType(x), scalarShape...)}, Saved: []TensorID{x, y},
		Extra: []TensorSpec{TS("unreduced", b.DType(x), b.Shape(x)...)},
		Temps: append([]TensorSpec{TS("diff", b.DType(x), b.Shape(x)...)}, stagingSpecs(SumStagingInner(b.T(x).Numel(), 1))...)}
	out := b.Emit(op)[0]
	if b.err == nil {
		if ex := b.g.Ops[len(b.g.Ops)-1].Extra; len(ex) == 1 {
			b.g.Tensors[out].Alias = ex[0]
		}
	}
	return out
}

// CrossEntropy is log_softmax + nll_loss over the last dim (mean
// reduction): log_softmax keeps its output; nll_loss its target.
func (b *Builder) CrossEntropy(name string, logits, target TensorID) TensorID {
	if _, ok := b.autocastDType(); ok && b.DType(logits) != FP32 {
		return b.crossEntropyAutocast(name, logits, target)
	}
	shape := b.Shape(logits)
	var loss TensorID
	b.Scoped(name, func() {
		ls := b.Emit(OpSpec{Kind: "log_softmax", Name: "log_softmax", Inputs: []TensorID{logits}, Outputs: []TensorSpec{TS("out", b.DType(logits), shape...)}, SaveOut: []int{0}})[0]
		loss = b.Emit(OpSpec{Kind: "nll_loss", Name: "nll_loss", Inputs: []TensorID{ls, target}, NoGradInputs: []int{1},
			Outputs: []TensorSpec{TS("out", b.DType(logits), scalarShape...)},
			Extra:   []TensorSpec{TS("total_weight", b.DType(logits))}, Saved: []TensorID{target}, SaveExtra: []int{0}})[0]
	})
	return loss
}

func (b *Builder) errorf(format string, args ...any) error {
	return &BuildError{Msg: sprintf(format, args...)}
}

// BuildError is an error found while expanding a model.
type BuildError struct{ Msg string }

// Error returns the message.
func (e *BuildError) Error() string { return e.Msg }

// promote is PyTorch's type promotion for two float tensors.
func promote(a, b DType) DType {
	if a == b {
		return a
	}
	if a == FP64 || b == FP64 {
		return FP64
	}
	if a == FP32 || b == FP32 {
		return FP32
	}
	if a.IsFloat() {
		return a
	}
	return b
}

// broadcast returns the broadcast shape of two shapes.
func broadcast(a, b []int64) []int64 {
	if len(b) > len(a) {
		a, b = b, a
	}
	out := append([]int64(nil), a...)
	off := len(a) - len(b)
	for i, d := range b {
		if d > out[off+i] {
			out[off+i] = d
		}
	}
	return out
}

// PowAutocast is torch.pow with autocast's fp32 policy (pow is in its fp32
// list): under autocast a low-precision input is cast to fp32 first.
func (b *Builder) PowAutocast(name string, x TensorID) TensorID {
	return b.Pow(name, b.fp32In(x, name+".input_cast"))
}

// Matmul is a batched matmul (bmm / matmul of [..., m, k] × [..., k, n]):
// saves both operands.
func (b *Builder) Matmul(name string, x, y TensorID, out []int64) TensorID {
	// autocast's wrapper evaluates its arguments' casts right to left.
	y = b.matmulIn(y, name+".y_cast")
	x = b.matmulIn(x, name+".x_cast")
	outs := b.Emit(OpSpec{Kind: "matmul", Name: name, Inputs: []TensorID{x, y}, Outputs: []TensorSpec{TS("out", b.DType(x), out...)}, Saved: []TensorID{x, y}, Matmul: MatmulCublas})
	// bmm's backward makes the second operand's gradient first, like mm's.
	b.g.Ops[len(b.g.Ops)-1].WeightGradFirst = true
	return outs[0]
}
