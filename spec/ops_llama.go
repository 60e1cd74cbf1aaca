package spec

// Ops of the transformers 5.x decoder LMs (Llama, Mistral, Qwen2): the Python
// composites HF writes out (LlamaRMSNorm, rotary embeddings, rotate_half),
// cuDNN SDPA with grouped-query attention, the dense embedding backward and
// the reduction staging buffers, as PyTorch 2.11 runs them on an H200
// (checked event by event against the allocator traces of
// shared/validation/h200/inspect/tinyllama-bf16-adamw-b4 and
// testdata/measured/h200/llama-small-*).

import "math"

// sm90 launch constants that size CUDA reductions' staging buffers
// (H100/H200: 132 SMs, 2048 resident threads per SM).
const (
	reduceSMs          = 132
	reduceThreadsPerSM = 2048
)

// SplitCopyMetadataBytes is the device metadata ATen's fast path for
// split_with_sizes_copy (TensorShape.cu) packs and copies to the GPU before
// its kernel: the destination and source addresses and the chunk size of
// each split, a split index per block of its jagged grid and the blocks'
// running sum, 8 bytes each. splitBytes are the splits' chunk sizes in
// bytes and chunks the rows they repeat over; a block copies 2048 bytes per
// iteration and iterates more when the grid would pass twice the threads
// the GPU holds. FSDP2's copy-out runs it over the all-gather output, one
// row per rank (measured: GPT-2 over two ranks, 30,928 B for the root unit
// and 28,120 B for a block).
func SplitCopyMetadataBytes(splitBytes []int64, chunks int64) int64 {
	if len(splitBytes) == 0 || chunks <= 0 {
		return 0
	}
	blocks := copyBlocks(splitBytes, copyBlockBytes)
	maxBlocks := int64(reduceSMs * reduceThreadsPerSM / 128 * 2)
	iterFactor := ceilDiv(blocks*chunks, maxBlocks)
	chunksPerBlock := min(int64(math.Ceil(math.Sqrt(float64(iterFactor)))), chunks)
	itersPerChunk := ceilDiv(iterFactor, chunksPerBlock)
	grid := copyBlocks(splitBytes, copyBlockBytes*itersPerChunk)
	n := int64(len(splitBytes))
	return 8 * (3*n + grid + n + 1)
}

// ChunkCatMetadataBytes is the device metadata of ATen's _chunk_cat on
// contiguous tensors (FSDP2's reduce-scatter copy-in): per tensor its
// source address, byte offset, first block, size, padded chunk size and
// block count, a tensor index per block (one per 2048 bytes of its padded
// chunk) and two running sums, 8 bytes each. padChunkBytes are the tensors'
// padded chunk sizes, one rank's share (measured: GPT-2 over two ranks,
// 307,920 B for the root unit and 55,984 B for a block — one per-tensor
// vector more than the source read for this port, which PyTorch 2.11 packs).
func ChunkCatMetadataBytes(padChunkBytes []int64) int64 {
	if len(padChunkBytes) == 0 {
		return 0
	}
	n := int64(len(padChunkBytes))
	return 8 * (6*n + 2 + copyBlocks(padChunkBytes, copyBlockBytes))
}

// copyBlocks is how many blocks a copy kernel launches for tensors of
// these byte sizes, each block moving perBlock bytes of one tensor.
func copyBlocks(sizes []int64, perBlock int64) int64 {
	blocks := int64(0)
	for _, b := range sizes {
		blocks += ceilDiv(b, perBlock)
	}
	return blocks
}

// copyBlockBytes is what one block of ATen's split/cat copy kernels moves
// per iteration (TensorShape.cu: BLOCK_SIZE 128 threads × BYTES_PER_THREAD
// 16).
const copyBlockBytes = 128 * 16

// lastPow2 is ATen's last_pow2: the largest power of two ≤ n (at least 1).
func lastPow2(n int64) int64 {
	p := int64(1)
	for p*2 <= n {
		p *= 2
	}
	return p
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// SumStaging returns the global-memory staging buffer and the semaphores
// PyTorch 2.11's setReduceConfig (ATen/native/cuda/Reduce.cuh) allocates for a
// sum of a contiguous [rows, cols] tensor over its rows (the outer dims) into
// cols outputs, with fp32 accumulation: the weight-gradient reduction of a
// broadcast multiply (RMSNorm weight) and the bias gradient of a Linear.
// Zero when the kernel reduces inside each block. Measured on the H200:
// [8192, 2048] → 134217728 + 64 B, [4096, 1024] → 33554432 + 32 B,
// [4096, 2816] → 92274688 + 88 B, [8192, 5632] → 138412032 + 176 B,
// [1000, 1000] → none.
func SumStaging(rows, cols int64) (buf, sem int64) {
	if rows <= 0 || cols <= 0 {
		return 0, 0
	}
	const accBytes = 4 // float accumulator for fp32, bf16 and fp16 sums
	vec := int64(4)    // output vectorisation: aligned base, cols divisible
	for cols%vec != 0 {
		vec /= 2
	}
	maxThreads := 512 / vec
	bw, bh := reduceBlock(cols/vec, rows, maxThreads)
	threads := bw * bh
	stepOut, stepIn := bw, int64(1)
	splitInput := false
	if vpt := rows; vpt >= bh*16 || vpt >= 256 {
		splitInput = true
		stepIn = bh
	} else {
		stepOut *= bh
	}
	gridX := ceilDiv(cols/vec, stepOut)
	target := reduceSMs * (reduceThreadsPerSM / threads)
	vpt := ceilDiv(rows, stepIn)
	if !splitInput || vpt < 256 || gridX > target {
		return 0, 0
	}
	ctas := max(min(ceilDiv(target, gridX), ceilDiv(vpt, 16)), ceilDiv(vpt, 256))
	if ctas <= 1 {
		return 0, 0
	}
	return accBytes * cols * ctas * bw * vec, 4 * gridX
}

// SumStagingInner is SumStaging for a sum whose reduced elements include
// the fastest-moving dimension: a [N, C, H, W] tensor summed over N, H and
// W into C outputs (a convolution's bias gradient from an NCHW output
// gradient), reduce elements per output. setReduceConfig then splits the
// input across the lanes of a warp and, when that leaves at least 16 per
// thread, across warps; only if a thread would still sum 256 or more does
// it spread an output over several blocks with a global staging buffer of
// outputs × ctas floats. Measured on the H200: a 48→96 3×3 convolution at
// 64 × 24 × 24 outputs sums its bias gradient with no staging buffer.
func SumStagingInner(reduce, outputs int64) (buf, sem int64) {
	if reduce <= 0 || outputs <= 0 {
		return 0, 0
	}
	const accBytes = 4
	const maxThreads = 512
	bw, bh := reduceBlock(reduce, outputs, maxThreads)
	threads := bw * bh
	stepIn := bw // the input across a warp's lanes
	if vpt := ceilDiv(reduce, stepIn); vpt < bh*16 && vpt < 256 {
		return 0, 0 // each warp takes its own output: no inter-block sum
	}
	stepIn *= bh // and across the warps of a block
	vpt := ceilDiv(reduce, stepIn)
	grid := outputs
	target := reduceSMs * (reduceThreadsPerSM / threads)
	if vpt < 256 || grid > target {
		return 0, 0
	}
	ctas := max(min(ceilDiv(target, grid), ceilDiv(vpt, 16)), ceilDiv(vpt, 256))
	if ctas <= 1 {
		return 0, 0
	}
	return accBytes * outputs * ctas, 4 * grid
}

// reduceBlock is ReduceConfig::set_block_dimension: the block's width
// (along dim0, at most a warp) and height for a reduction of dim0 × dim1
// with at most maxThreads threads.
func reduceBlock(dim0, dim1, maxThreads int64) (bw, bh int64) {
	p0, p1 := maxThreads, maxThreads
	if dim0 < maxThreads {
		p0 = lastPow2(dim0)
	}
	if dim1 < maxThreads {
		p1 = lastPow2(dim1)
	}
	bw = min(p0, 32)
	bh = min(p1, maxThreads/bw)
	bw = min(p0, maxThreads/bh)
	return bw, bh
}

// stagingTemps returns SumStaging as backward temporaries (none when zero).
func stagingTemps(rows, cols int64) []TensorSpec {
	return stagingSpecs(SumStaging(rows, cols))
}

// sumTemps are the buffers of a sum of a contiguous [rows, cols] tensor of
// dtype dt over its rows (the gradient's dtype is the sum's), and aligned
// with them what frees each early (see splitSumTemps): stagingTemps' of the
// whole sum or of each sub-sum (measured: BERT's fp16 LM-head bias over
// 80 × 512 tokens, two sub-sums of 78,136,320 + 2,048 B).
func sumTemps(rows, cols int64, dt DType) ([]TensorSpec, []int) {
	return splitSumTemps(rows, cols, cols, dt, func(n int64) []TensorSpec { return stagingTemps(n, cols) })
}

// splitSumTemps lays out the buffers of a sum of outer × inner elements of
// dtype dt into outputs outputs whose staging pair for an outer extent n is
// staging(n), and aligned with them what frees each early
// (BackwardTempsFreedBy, counted from the first of them; 0 keeps it to the
// op's end). A sum that can use 32-bit indexing has its own pair; one that
// cannot, whatever its dtype, runs as sub-sums (subSums): a 16-bit sum's
// accumulation buffer first (SumAccumulation), then each sub-sum's pair,
// the semaphores freed as soon as made and the staging buffer with them
// (the kernel's scratch goes before the next sub-sum's: PyTorch frees the
// semaphores first).
func splitSumTemps(outer, inner, outputs int64, dt DType, staging func(n int64) []TensorSpec) ([]TensorSpec, []int) {
	if indexes32(outer*inner, dt) {
		return staging(outer), nil
	}
	var temps []TensorSpec
	var freedBy []int
	if acc := SumAccumulation(outer*inner, dt, outputs); acc > 0 {
		temps, freedBy = []TensorSpec{TS("reduce_accumulation", UInt8, acc)}, []int{0}
	}
	for _, n := range subSums(outer, inner, dt) {
		pair := staging(n)
		if len(pair) != 2 {
			continue
		}
		sem := len(temps) + 1
		temps = append(temps, pair...)
		freedBy = append(freedBy, sem, sem)
	}
	if len(temps) == 0 {
		return nil, nil
	}
	return temps, freedBy
}

// subSums lists the outer extents of the sub-sums TensorIterator's
// with_32bit_indexing splits a sum of extent × inner elements of dtype dt
// into, in the order they run: it halves the outer dimension (the first
// half, rounded down, first) until each part can use 32-bit indexing.
func subSums(extent, inner int64, dt DType) []int64 {
	if extent <= 1 || indexes32(extent*inner, dt) {
		return []int64{extent}
	}
	half := extent / 2
	return append(subSums(half, inner, dt), subSums(extent-half, inner, dt)...)
}

// withFreedBy returns freedBy (BackwardTempsFreedBy, possibly nil) for temps
// already there followed by more whose own list, counted from the first of
// them, is more (nil when none frees early).
func withFreedBy(freedBy []int, already int, more []int) []int {
	if more == nil {
		return freedBy
	}
	out := make([]int, already, already+len(more))
	copy(out, freedBy)
	for _, by := range more {
		if by != 0 {
			by += already
		}
		out = append(out, by)
	}
	return out
}

// SumAccumulation is the buffer PyTorch's gpu_reduce_kernel
// (ATen/native/cuda/Reduce.cuh) allocates for a sum of elems elements of
// dtype dt into outputs outputs when the input is too large to index with
// 32 bits and the output is a 16-bit float: the sum is split into 32-bit
// sub-sums (TensorIterator::with_32bit_indexing) that add their partial
// sums up in float, outputs × 4 bytes, freed when the sum returns. Zero
// otherwise: fp32 sums accumulate in their output. Measured on the H200:
// the LM-head bias gradient of RoBERTa under fp16 autocast, 64 × 510
// tokens × 50265 (3.28 GB), makes a 201060 B buffer after the gradient and
// frees it before the function's other buffers.
func SumAccumulation(elems int64, dt DType, outputs int64) int64 {
	if dt != FP16 && dt != BF16 || indexes32(elems, dt) {
		return 0
	}
	return 4 * outputs
}

// indexes32 is TensorIterator::can_use_32bit_indexing for a contiguous
// tensor of elems elements of dtype dt: the element count and the last
// element's byte offset (plus one) fit in an int32.
func indexes32(elems int64, dt DType) bool {
	const maxInt32 = 1<<31 - 1
	return elems <= maxInt32 && 1+(elems-1)*dt.Size() <= maxInt32
}

// stagingSpecs names a staging buffer and its semaphores as backward
// temporaries (none when there is no buffer).
func stagingSpecs(buf, sem int64) []TensorSpec {
	if buf == 0 {
		return nil
	}
	return []TensorSpec{TS("reduce_staging", UInt8, buf), TS("reduce_semaphores", UInt8, sem)}
}

// MulOperands is x * y as autograd records it: x's gradient needs y and y's
// needs x, so only the operands the other side's gradient needs are saved
// (q * cos saves cos alone: q is not kept).
func (b *Builder) MulOperands(name string, x, y TensorID) TensorID {
	var saved []TensorID
	if b.T(x).RequiresGrad {
		saved = append(saved, y)
	}
	if b.T(y).RequiresGrad {
		saved = append(saved, x)
	}
	return b.mul(name, x, y, saved)
}

// mul is an elementwise product saving saved. Its backward (MulBackward0)
// computes the other operand's gradient first; each is grad·operand in the
// output's shape and dtype, which the engine then sums (a broadcast
// operand) or casts (bf16 × fp32 under autocast) to the input's, a new
// tensor, freeing the product (measured: GPT-2's GELU and Llama's rotary
// embedding under autocast).
func (b *Builder) mul(name string, x, y TensorID, saved []TensorID) TensorID {
	outDT := promote(b.DType(x), b.DType(y))
	outShape := broadcast(b.Shape(x), b.Shape(y))
	out := b.Emit(OpSpec{Kind: "mul", Name: name, Inputs: []TensorID{x, y}, Outputs: []TensorSpec{TS("out", outDT, outShape...)}, Saved: saved})[0]
	if b.err != nil {
		return out
	}
	op := &b.g.Ops[len(b.g.Ops)-1]
	op.InputGradsReversed = true
	for k, in := range op.Inputs {
		if k >= len(op.GradInputs) || op.GradInputs[k] == NoTensor || (b.DType(in) == outDT && sameShape(b.Shape(in), outShape)) {
			continue
		}
		if op.GradProducts == nil {
			op.GradProducts = []TensorID{NoTensor, NoTensor}
		}
		op.GradProducts[k] = b.ofLastOp(b.newTensor(sprintf("%s.grad_product%d", op.Name, k), outShape, outDT, RoleTemporary))
	}
	return out
}

func sameShape(a, c []int64) bool {
	if len(a) != len(c) {
		return false
	}
	for i := range a {
		if a[i] != c[i] {
			return false
		}
	}
	return true
}

// AddMixed is x + y where the operands may differ in dtype (under autocast a
// bf16 projection output joins the fp32 residual): the sum has the promoted
// dtype; autograd casts the gradient of the lower-precision operand into a
// new tensor of its dtype, modelled as a promoting view in front of the add.
func (b *Builder) AddMixed(name string, x, y TensorID) TensorID {
	out := promote(b.DType(x), b.DType(y))
	lift := func(t TensorID, n string) TensorID {
		if b.DType(t) == out {
			return t
		}
		return b.Emit(OpSpec{Kind: "grad_cast", Name: n, Inputs: []TensorID{t}, Outputs: []TensorSpec{TS("out", out, b.Shape(t)...)}, AliasOut: []int{0}})[0]
	}
	return b.Add(name, lift(x, name+".promote_x"), lift(y, name+".promote_y"))
}

// LlamaRMSNorm is HF's Python RMSNorm (Llama, Mistral, Qwen2 …):
//
//	h = x.to(float32); variance = h.pow(2).mean(-1, keepdim=True)
//	h = h * torch.rsqrt(variance + eps); return weight * h.to(x.dtype)
//
// Saved: h (pow, mul), rsqrt's result, the normalised tensor in x's dtype
// (weight mul) and the weight. The locals variance and the fp32 normalised h
// live until the module returns. Backward: the weight gradient is a
// broadcast-reduced sum over the tokens with its staging buffer; pow's
// backward makes two temporaries.
func (b *Builder) LlamaRMSNorm(name string, x, w TensorID) TensorID {
	var out TensorID
	b.Scoped(name, func() {
		dt := b.DType(x)
		h := b.Cast("to_fp32", x, FP32)
		hn, variance := b.rmsNormalize(h)
		// `hidden_states = hidden_states * rsqrt(...)`: the operands go as
		// the product returns (the rsqrt first), then the rebinding drops
		// the fp32 copy (measured order).
		b.HoldUntilLastOp(h)
		n := b.Cast("to_input_dtype", hn, dt)
		odt := promote(b.DType(w), b.DType(n))
		ns := b.Shape(n)
		temps := []TensorSpec{TS("grad_times_input", odt, ns...)}
		staging, freedBy := sumTemps(rows(ns), ns[len(ns)-1], odt)
		freedBy = withFreedBy(nil, len(temps), freedBy)
		temps = append(temps, staging...)
		out = b.Emit(OpSpec{Kind: "mul", Name: "mul_weight", Inputs: []TensorID{n}, Params: []TensorID{w},
			Outputs: []TensorSpec{TS("out", odt, ns...)}, Saved: []TensorID{w, n}, BackwardTemps: temps, BackwardTempsFreedBy: freedBy, ReduceTemps: len(staging), ReducedParams: 1})[0]
		if odt != dt && b.err == nil && b.T(n).RequiresGrad {
			// An fp32 weight times a 16-bit input (Qwen3's q_norm under
			// autocast): the input's gradient is made in fp32, before the
			// weight's, and cast to the input's dtype by the engine after
			// the reduction (measured).
			op := &b.g.Ops[len(b.g.Ops)-1]
			op.GradProducts = []TensorID{b.ofLastOp(b.newTensor(name+".mul_weight.grad_product0", ns, odt, RoleTemporary))}
		}
		b.HoldUntilLastOp(variance, hn)
	})
	return out
}

// rmsNormalize is h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
// over an fp32 h, returning the product and the variance: pow saves h, and
// its backward makes self.pow(1) and its scaling by 2 before grad·that;
// rsqrt saves its result.
func (b *Builder) rmsNormalize(h TensorID) (normed, variance TensorID) {
	shape := b.Shape(h)
	stat := withLast(shape, 1)
	sq := b.Emit(OpSpec{Kind: "pow", Name: "pow", Inputs: []TensorID{h}, Outputs: []TensorSpec{TS("out", FP32, shape...)}, Saved: []TensorID{h},
		BackwardTemps: []TensorSpec{TS("pow_1", FP32, shape...), TS("times_2", FP32, shape...)}, BackwardTempsFirst: 2})[0]
	variance = b.Emit(OpSpec{Kind: "mean", Name: "mean", Inputs: []TensorID{sq}, Outputs: []TensorSpec{TS("out", FP32, stat...)}})[0]
	ve := b.AddScalar("add_eps", variance)
	rs := b.Emit(OpSpec{Kind: "rsqrt", Name: "rsqrt", Inputs: []TensorID{ve}, Outputs: []TensorSpec{TS("out", FP32, stat...)}, SaveOut: []int{0},
		BackwardTemps: []TensorSpec{TS("result_cubed", FP32, stat...), TS("scaled", FP32, stat...)}})[0]
	return b.MulOperands("mul_rsqrt", h, rs), variance
}

// GemmaRMSNorm is transformers' GemmaRMSNorm, which scales in fp32 before
// casting back (Llama casts first):
//
//	h = x.float(); n = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
//	out = n * (1.0 + weight.float()); return out.type_as(x)
//
// Saved: h (pow, mul), rsqrt's result, the fp32 normalised n and the [D]
// scale (1 + w). The product's backward computes the scale's gradient first
// (grad·n, in the output's shape), then n's; the engine sums the first to
// [D] with its staging buffer. A 16-bit weight is cast to fp32 first (its
// gradient cast back).
func (b *Builder) GemmaRMSNorm(name string, x, w TensorID) TensorID {
	var out TensorID
	b.Scoped(name, func() {
		dt := b.DType(x)
		h := b.Cast("float", x, FP32)
		shape := b.Shape(h)
		n, _ := b.rmsNormalize(h)
		// _norm's argument (x.float()) is held by forward's call until
		// _norm returns.
		b.HoldUntilLastOp(h)
		ws := b.Shape(w)
		staging, freedBy := sumTemps(rows(shape), shape[len(shape)-1], FP32)
		temps := append([]TensorSpec{TS("grad_times_input", FP32, shape...)}, staging...)
		mul := OpSpec{Kind: "mul", Name: "mul_weight", Outputs: []TensorSpec{TS("out", FP32, shape...)},
			BackwardTemps: temps, BackwardTempsFreedBy: withFreedBy(nil, 1, freedBy), BackwardTempsFirst: 1, ReduceTemps: len(staging)}
		if b.DType(w) == FP32 {
			// 1 + w's gradient passes through the add to AccumulateGrad,
			// which keeps the reduction's [D] sum as .grad: the weight's
			// gradient is made by the reduction.
			wf := b.Emit(OpSpec{Kind: "add_scalar", Name: "one_plus_weight", NoGrad: true, Outputs: []TensorSpec{TS("out", FP32, ws...)}})[0]
			mul.Inputs, mul.Params, mul.Saved, mul.ReducedParams = []TensorID{n, wf}, []TensorID{w}, []TensorID{n, wf}, 1
		} else {
			// w.float()'s backward casts the reduced fp32 gradient back.
			c := b.Emit(OpSpec{Kind: "to_copy", Name: "weight_float", Params: []TensorID{w}, Outputs: []TensorSpec{TS("out", FP32, ws...)}})[0]
			wf := b.AddScalar("one_plus_weight", c)
			mul.Inputs, mul.Saved, mul.ReducedInputs = []TensorID{n, wf}, []TensorID{n, wf}, 1
		}
		o := b.Emit(mul)[0]
		out = b.Cast("type_as", o, dt)
	})
	return out
}

// RotaryCosSin is LlamaRotaryEmbedding.forward (no grad, autocast off):
// inv_freq and the positions in fp32, their product, cat, cos and sin times
// attention_scaling, cast to the hidden states' dtype. Returns cos and sin
// [1, seq, dim]; the fp32 intermediates are locals freed when it returns.
// inv_freq[None, :, None].float() copies the buffer only when the model was
// cast to bf16/fp16 (its hidden states' dtype); in an fp32 model (fp32 or
// autocast) it is the buffer itself, expanded as a view (measured: no
// allocation under amp-bf16).
func (b *Builder) RotaryCosSin(name string, seq, dim int64, dt DType) (cos, sin TensorID) {
	b.Scoped(name, func() {
		ng := func(kind, n string, in []TensorID, shape ...int64) TensorID {
			return b.Emit(OpSpec{Kind: kind, Name: n, Inputs: in, NoGrad: true, Outputs: []TensorSpec{TS("out", FP32, shape...)}})[0]
		}
		inv := NoTensor
		if dt != FP32 {
			inv = ng("expand_copy", "inv_freq_expanded", nil, 1, dim/2, 1)
		}
		pos := ng("to_copy", "position_ids_float", nil, 1, 1, seq)
		in := []TensorID{inv, pos}
		if inv == NoTensor {
			in = in[1:]
		}
		// inv_freq @ positions is a cuBLAS GEMM: the first of the forward,
		// so the main thread's workspace is made here (measured: the 32 MiB
		// workspace follows freqs' output in the first step's trace).
		freqs := b.Emit(OpSpec{Kind: "bmm", Name: "freqs", Inputs: in, NoGrad: true, Matmul: MatmulCublas,
			Outputs: []TensorSpec{TS("out", FP32, 1, dim/2, seq)}})[0]
		emb := ng("cat", "emb", []TensorID{freqs}, 1, seq, dim)
		c0 := ng("cos", "cos", []TensorID{emb}, 1, seq, dim)
		c := ng("mul_scalar", "cos_scaled", []TensorID{c0}, 1, seq, dim)
		s0 := ng("sin", "sin", []TensorID{emb}, 1, seq, dim)
		s := ng("mul_scalar", "sin_scaled", []TensorID{s0}, 1, seq, dim)
		cos, sin = c, s
		if dt != FP32 {
			cos = b.Emit(OpSpec{Kind: "to_copy", Name: "cos_to", Inputs: []TensorID{c}, NoGrad: true, Outputs: []TensorSpec{TS("out", dt, 1, seq, dim)}})[0]
			sin = b.Emit(OpSpec{Kind: "to_copy", Name: "sin_to", Inputs: []TensorID{s}, NoGrad: true, Outputs: []TensorSpec{TS("out", dt, 1, seq, dim)}})[0]
		}
		b.HoldUntilLastOp(in...)
		b.HoldUntilLastOp(freqs, emb, c, s)
	})
	return cos, sin
}

// ApplyRotary is `x * cos + rotate_half(x) * sin` on x [B, H, S, D] with
// rotate_half(x) = cat((-x[..., D/2:], x[..., :D/2]), -1). cos and sin need no
// gradient, so only they are saved. The halves are views whose backward
// (slice_backward) makes zero-filled full-size gradients; neg and cat are
// temporaries of the forward.
func (b *Builder) ApplyRotary(name string, x, cos, sin TensorID) TensorID {
	var out TensorID
	b.Scoped(name, func() {
		shape := b.Shape(x)
		half := withLast(shape, shape[len(shape)-1]/2)
		t1 := b.MulOperands("mul_cos", x, cos)
		x1 := b.SliceLast("x1", x, shape[len(shape)-1]/2)
		x2 := b.SliceLast("x2", x, shape[len(shape)-1]/2)
		neg := b.Emit(OpSpec{Kind: "neg", Name: "neg", Inputs: []TensorID{x2}, Outputs: []TensorSpec{TS("out", b.DType(x), half...)}})[0]
		cat := b.Cat("cat", []TensorID{neg, x1}, shape)
		t2 := b.MulOperands("mul_sin", cat, sin)
		out = b.Add("add", t1, t2)
	})
	return out
}

// HeadsView is proj(x).view(B, S, -1, D).transpose(1, 2): no memory. When
// copyGrad, the gradient arriving in [B, H, S, D] layout must be made
// contiguous to flow back through the view (reshape of a transposed
// gradient: a new tensor); otherwise it passes through (cuDNN's dv is
// already laid out [B, S, H, D]). With one head (multi-query key/value)
// or one position the transposed gradient is contiguous as it is — strides
// of size-1 dimensions do not count — and the reshape is a view (measured:
// Llama with one key/value head, no copy for k).
func (b *Builder) HeadsView(name string, x TensorID, copyGrad bool, shape ...int64) TensorID {
	flow := GradPassThrough
	if copyGrad && shape[1] != 1 && shape[2] != 1 {
		flow = GradNew
	}
	return b.Emit(OpSpec{Kind: "view_transpose", Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", b.DType(x), shape...)}, AliasOut: []int{0}, Flow: flow})[0]
}

// SDPACausal is F.scaled_dot_product_attention(q, k, v, is_causal=True) as
// transformers' sdpa_attention_forward calls it for decoder LMs on an H200:
// q [B, H, S, D], k and v [B, Hkv, S, D] with enable_gqa when Hkv < H (k and
// v are not repeated). Under autocast the arguments are cast right to left
// (v, k, q). bf16/fp16 run cuDNN: int64 philox seed and offset, the output
// (laid out [B, S, H, D]), an fp32 logsumexp [B, H, S, 1] and a 256-byte
// scratch; the backward allocates dq, dk, dv and one workspace of
// (GQA ? 2 : 1)·B·H·S·D·4 + B·H·S·4 + 256 bytes (measured at five shapes).
// fp32 with GQA falls back to the math kernel (SDPAMathGQA); fp32 without
// GQA runs the memory-efficient kernel. Attention dropout changes nothing
// they allocate (SDPA).
func (b *Builder) SDPACausal(name string, q, k, v TensorID) TensorID {
	v = b.matmulIn(v, name+".v_cast")
	k = b.matmulIn(k, name+".k_cast")
	q = b.matmulIn(q, name+".q_cast")
	qs, ks := b.Shape(q), b.Shape(k)
	bsz, heads, s, d := qs[0], qs[1], qs[2], qs[3]
	gqa := ks[1] != heads
	dt := b.DType(q)
	switch {
	case dt == FP32 && gqa:
		return b.SDPAMathGQA(name, q, k, v)
	case dt == FP32:
		return b.SDPA(name, q, k, v, NoTensor, true)
	}
	ws := bsz*heads*s*d*4 + bsz*heads*s*4 + 256
	if gqa {
		ws += bsz * heads * s * d * 4
	}
	return b.Emit(OpSpec{Kind: "sdpa_cudnn", Name: name, Inputs: []TensorID{q, k, v}, ExtraAfter: 1, NoGradExtra: []int{0, 1},
		Outputs: []TensorSpec{TS("out", dt, bsz, heads, s, d)},
		Extra:   []TensorSpec{TS("philox_seed", Int64), TS("philox_offset", Int64), TS("logsumexp", FP32, bsz, heads, s, 1)},
		Saved:   []TensorID{q, k, v}, SaveOut: []int{0}, SaveExtra: []int{0, 1, 2},
		Temps:         []TensorSpec{TS("scratch", UInt8, 256)},
		BackwardTemps: []TensorSpec{TS("workspace", UInt8, ws)}})[0]
}

// SDPAMathGQA is the math fallback of SDPA (fp32 with enable_gqa, which no
// fused fp32 kernel supports in PyTorch 2.11), in the order
// _scaled_dot_product_attention_math runs it (measured on the H200): q
// scaled by √scale (a local, alive for the whole call), the causal mask
// ([S, S] bools and their fp32 additive form, held to the end of the call),
// k and v repeated to H heads (v saved), kᵀ scaled by √scale (saved), then
// matmul's copy of the scaled q — it is laid out [B, S, H, D], as the
// projection's transpose left it, so folding it to [B·H, S, D] copies
// (saved; at batch 1 the fold is a view) — the fp32 scores [B, H, S, S] (the mask added in place; freed
// after the softmax), the softmax (saved) with its bool guard, and probs·v.
// The autograd engine runs the newest nodes first, so in the backward the
// scaled kᵀ's gradient is made before the repeats are summed, and q's scale
// comes last. The backward needs a contiguous copy of the output gradient
// and a scores-sized temporary in the softmax backward. Returns
// [B, H, S, D] laid out BHSD: the caller's transpose(1, 2).contiguous() is a
// real copy (MathOutputCopy).
func (b *Builder) SDPAMathGQA(name string, q, k, v TensorID) TensorID {
	var out TensorID
	b.Scoped(name, func() {
		qs := b.Shape(q)
		bsz, heads, s, d := qs[0], qs[1], qs[2], qs[3]
		dt := b.DType(q)
		full := []int64{bsz, heads, s, d}
		scores := []int64{bsz, heads, s, s}
		qsc := b.Scale("scale_q", q)
		ones := b.Emit(OpSpec{Kind: "ones", Name: "ones", NoGrad: true, Outputs: []TensorSpec{TS("out", Bool, s, s)}})[0]
		tril := b.Emit(OpSpec{Kind: "tril", Name: "tril", Inputs: []TensorID{ones}, NoGrad: true, Outputs: []TensorSpec{TS("out", Bool, s, s)}})[0]
		// where(tril, 0, -inf): both scalars become 0-d tensors on the GPU
		// before the mask is made (measured).
		mask := b.Emit(OpSpec{Kind: "causal_mask", Name: "causal_mask", Inputs: []TensorID{tril}, NoGrad: true, Outputs: []TensorSpec{TS("out", dt, s, s)},
			Temps: []TensorSpec{TS("zero", dt), TS("neg_inf", dt)}, TempsFirst: 2})[0]
		krep := b.Emit(OpSpec{Kind: "repeat_interleave", Name: "repeat_k", Inputs: []TensorID{k}, Outputs: []TensorSpec{TS("out", dt, full...)}})[0]
		vrep := b.Emit(OpSpec{Kind: "repeat_interleave", Name: "repeat_v", Inputs: []TensorID{v}, Outputs: []TensorSpec{TS("out", dt, full...)}})[0]
		ksc := b.Scale("scale_k", krep)
		qcopy := qsc
		if bsz > 1 {
			// At batch 1 the fold to [H, S, D] is a view bmm takes as it
			// is (measured: no copy in Mistral fp32 at batch 1).
			qcopy = b.Contiguous("q_fold", qsc, full...)
		}
		att := b.Matmul("bmm_qk", qcopy, ksc, scores)
		att = b.Emit(OpSpec{Kind: "add_", Name: "add_mask", Inputs: []TensorID{att, mask}, NoGradInputs: []int{1}, Outputs: []TensorSpec{TS("out", dt, scores...)}, AliasOut: []int{0}, Flow: GradPassThrough})[0]
		p := b.Emit(OpSpec{Kind: "softmax", Name: "softmax", Inputs: []TensorID{att}, Outputs: []TensorSpec{TS("out", dt, scores...)}, SaveOut: []int{0},
			Temps: safeSoftmaxTemps(dt, scores), BackwardTemps: []TensorSpec{TS("softmax_backward_tmp", dt, scores...)}})[0]
		out = b.Matmul("bmm_pv", p, vrep, full)
		b.HoldUntilLastOp(qsc, krep, mask)
	})
	return out
}

// MathOutputCopy is attn_output.transpose(1, 2).contiguous() after a
// batched matmul (the math SDPA kernel, eager attention): a [B, S, H, D]
// copy; its backward copies the gradient back into the BHSD layout the bmm
// backward needs (measured in GPT-2's eager attention: before the bmm's
// gradients, the incoming one freed). That copy is matmul's reshape of the
// transposed gradient to [B·H, S, D]; in a batch of one it is a view, and
// the gradient passes through (measured: Llama and GPT-2 eager, batch 1).
func (b *Builder) MathOutputCopy(name string, x TensorID, shape ...int64) TensorID {
	flow := GradNew
	if len(shape) > 0 && shape[0] == 1 {
		flow = GradPassThrough
	}
	return b.Emit(OpSpec{Kind: "clone", Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", b.DType(x), shape...)}, Flow: flow})[0]
}

// safeSoftmaxTemps are the temporaries of _safe_softmax (the math SDPA's
// softmax, PyTorch 2.11), made after its output: which scores are -inf
// (bool, the scores' shape), which rows are all -inf (bool [..., 1]), and
// the 0-d zero that where() puts in those rows (measured in Llama and Qwen2
// fp32 runs, training and inference).
func safeSoftmaxTemps(dt DType, scores []int64) []TensorSpec {
	return []TensorSpec{TS("all_masked", Bool, scores...), TS("masked_rows", Bool, withLast(scores, 1)...), TS("zero", dt)}
}
