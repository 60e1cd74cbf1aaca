package spec

// Catalog ops for the vision families (torchvision ResNets, ViT) and the HF
// encoders (BERT, ViT): cuDNN convolution workspaces, in-place residual adds,
// global average pooling, the encoder SDPA kernels as PyTorch 2.11 runs them
// on sm90, autocast-ordered linears and cross entropy. Each function's
// comment says what PyTorch executes and what was measured on an H200
// (torch 2.11.0+cu130, cuDNN 9.19, transformers 5.17, torchvision 0.26).

// ConvPass is one of the three cuDNN convolution calls of a Conv2d.
type ConvPass int

// The passes: forward, backward data (the input gradient) and backward
// filter (the weight gradient).
const (
	ConvForward ConvPass = iota
	ConvBackwardData
	ConvBackwardFilter
)

// ConvGeometry is what cuDNN sees of one 2-d convolution.
type ConvGeometry struct {
	N, Cin, H, W, Cout, Ho, Wo, KH, KW, Stride, Pad, Groups int64
	DType                                                   DType
}

// CuDNNConvWorkspace is the workspace PyTorch asks the caching allocator for
// around one cuDNN convolution call (at::native cudnn_convolution*: the v8
// API with heuristics, cudnn.benchmark off); it is freed when the call
// returns, so it shows only in peaks — and in the reserved memory, since a
// backward-filter workspace that outgrows the freed backward-data one, or
// lands in a fragment, needs a new segment.
//
// The size is whatever engine cuDNN's heuristics pick: deterministic for a
// (GPU, cuDNN version, geometry, dtype), but not derivable from first
// principles. For the geometries measured on an H200 with cuDNN 9.19 (every
// conv of ResNet-18/34/50/101/152 at 224×224, batch 8, 16, 32, 64 and 128,
// fp32 and bf16; the ViT-B/16 patch embedding; a small convnet) the measured
// sizes are used (measuredConvWorkspaces): each isolated call picked exactly
// the engine it picked inside the model. Elsewhere a rule follows the engine
// class, which follows the geometry:
//
//   - A 1×1 stride-1 convolution over at least 14×14 outputs runs as a GEMM
//     directly on NCHW: forward and backward-data need no workspace (≤ 512 B).
//   - Every other forward and backward-data call runs on an NHWC
//     implicit-GEMM engine, which transposes its NCHW operands into the
//     workspace: the input x and the output y, and the weight w when the
//     kernel is larger than 1×1 (a 1×1 weight is the same in both layouts).
//     16-bit types pad channels to a multiple of 8 (the stem's 3 become 8).
//   - Backward-filter on those engines transposes x and y and writes dW in
//     the workspace before transposing it out: x + y + w, for 1×1 too.
//   - Backward-filter of a 1×1 stride-1 convolution is either the GEMM
//     engine's per-image fp32 partial products (N·Cout·Cin·4 bytes) or the
//     transposing engine's x + y + w; cuDNN takes the smaller.
//
// What the rule leaves out, and so bounds: split-K backward-filter engines
// keep s extra copies of dW (s = 1 to 15 for ResNet shapes, chosen by the
// heuristics: 1–30 MiB); some strided forward engines need only x + w; a few
// 1×1 stride-2 and 3-channel convs need none. Over the measured geometries
// the rule is off by 8–20 % of the workspace bytes; the peaks it moves by
// well under 1 %, but the reserved memory can move by a whole workspace
// (ResNet-18 b64: 2122 MiB with the rule, 2722 with the measured sizes,
// 2678 measured).
func CuDNNConvWorkspace(pass ConvPass, g ConvGeometry) int64 {
	if v, ok := measuredConvWorkspaces[convKey{g.DType, g.N, g.Cin, g.H, g.W, g.Cout, g.KH, g.KW, g.Stride, g.Pad}]; ok && max(g.Groups, 1) == 1 {
		return v[pass]
	}
	es := g.DType.Size()
	align := int64(1)
	if es == 2 {
		align = 8
	}
	groups := max(g.Groups, 1)
	cin := (g.Cin + align - 1) / align * align
	cinG := (g.Cin/groups + align - 1) / align * align
	x := g.N * cin * g.H * g.W * es
	y := g.N * g.Cout * g.Ho * g.Wo * es
	w := g.Cout * cinG * g.KH * g.KW * es
	pointwise := g.KH == 1 && g.KW == 1 && g.Stride == 1
	switch pass {
	case ConvForward, ConvBackwardData:
		if pointwise && g.Ho*g.Wo >= 196 {
			return 0
		}
		if g.KH*g.KW > 1 {
			return x + y + w
		}
		return x + y
	default:
		if pointwise {
			return min(g.N*g.Cout*(g.Cin/groups)*4, x+y+w)
		}
		return x + y + w
	}
}

// ConvOpts are the details of one Conv2dCuDNN call beyond its geometry.
type ConvOpts struct {
	// GradOutputCopy: the output is consumed through a non-contiguous view
	// (ViT's flatten(2).transpose(1, 2)), so the backward makes a contiguous
	// copy of the output gradient before calling cuDNN.
	GradOutputCopy bool
}

// Conv2dCuDNN is nn.Conv2d on CUDA: at::cudnn_convolution allocates the
// output, then the forward workspace (freed before returning); a bias is
// added in place. Saves input and weight. Under autocast the weight is cast
// before the input (the wrapper's arguments are evaluated right to left).
//
// ConvolutionBackward runs backward-data and then backward-filter: the input
// gradient, its workspace (freed), the weight (and bias) gradient, its
// workspace (freed); the output gradient and the saved tensors are released
// after both, and the input gradient reaches its consumer last. The engine
// gives an op its gradients before its backward temporaries, so a conv whose
// input needs a gradient is emitted as four ops whose backwards run in that
// order:
//
//	x' = view(x)                    backward: hands dx on, after the weight pass
//	y  = conv(x, w)                 the convolution; backward: dW, filter workspace;
//	                                it saves x and w and its output gradient dies here
//	y1 = input_grad(x', y)  (view)  backward: dx, data workspace
//	y2 = fan_out(y1, y)     (view)  backward: gives dy to both
func (b *Builder) Conv2dCuDNN(name string, x, w, bias TensorID, a Conv2dArgs, o ConvOpts) TensorID {
	if bias != NoTensor {
		bias = b.matmulIn(bias, "")
	}
	w = b.matmulIn(w, "")
	x = b.matmulIn(x, name+".input_cast")
	xs, ws := b.Shape(x), b.Shape(w)
	if len(xs) != 4 || len(ws) != 4 {
		b.Fail(b.errorf("%s: conv2d needs a 4-d input and weight, got %s and %s", b.Path(name), FormatShape(xs), FormatShape(ws)))
		return x
	}
	if a.Dilation == 0 {
		a.Dilation = 1
	}
	if a.Groups == 0 {
		a.Groups = 1
	}
	kh, kw := ws[2], ws[3]
	h := ConvOut(xs[2], kh, a.Stride, a.Padding, a.Dilation)
	wd := ConvOut(xs[3], kw, a.Stride, a.Padding, a.Dilation)
	if h <= 0 || wd <= 0 {
		b.Fail(b.errorf("%s: input %s is too small for kernel %d stride %d", b.Path(name), FormatShape(xs), kh, a.Stride))
		return x
	}
	dt := b.DType(x)
	geo := ConvGeometry{N: xs[0], Cin: xs[1], H: xs[2], W: xs[3], Cout: ws[0], Ho: h, Wo: wd, KH: kh, KW: kw, Stride: a.Stride, Pad: a.Padding, Groups: a.Groups, DType: dt}
	inputGrad := b.Train() && b.T(x).RequiresGrad
	xv := x
	if inputGrad {
		xv = b.Emit(OpSpec{Kind: "conv2d_input", Name: name + ".input", Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", dt, xs...)}, AliasOut: []int{0}, Flow: GradPassThrough})[0]
	}
	in, params := b.operands(x, w, bias)
	s := OpSpec{Kind: "conv2d", Name: name, Inputs: in, Params: params, NoGradInputs: []int{0},
		Outputs: []TensorSpec{TS("out", dt, xs[0], ws[0], h, wd)}, Saved: []TensorID{x, w}}
	if fwd := CuDNNConvWorkspace(ConvForward, geo); fwd > 0 {
		s.Temps = []TensorSpec{TS("cudnn_workspace", UInt8, fwd)}
	}
	if o.GradOutputCopy {
		s.BackwardTemps = append(s.BackwardTemps, TS("grad_output_contiguous", dt, xs[0], ws[0], h, wd))
	}
	if filter := CuDNNConvWorkspace(ConvBackwardFilter, geo); filter > 0 {
		s.BackwardTemps = append(s.BackwardTemps, TS("cudnn_workspace_filter", UInt8, filter))
	}
	y := b.Emit(s)[0]
	if !inputGrad {
		return y
	}
	ig := OpSpec{Kind: "conv2d_input_grad", Name: name + ".input_grad", Inputs: []TensorID{xv, y}, NoGradInputs: []int{1},
		Outputs: []TensorSpec{TS("out", dt, b.Shape(y)...)}, AliasOut: []int{1}}
	if data := CuDNNConvWorkspace(ConvBackwardData, geo); data > 0 {
		ig.BackwardTemps = []TensorSpec{TS("cudnn_workspace_data", UInt8, data)}
	}
	y1 := b.Emit(ig)[0]
	return b.Emit(OpSpec{Kind: "conv2d_grad_fan_out", Name: name + ".grad_fan_out", Inputs: []TensorID{y1, y}, Outputs: []TensorSpec{TS("out", dt, b.Shape(y)...)}, AliasOut: []int{1}, Flow: GradPassThrough})[0]
}

// AddInplace is `x += y` (torchvision's `out += identity`): it writes into
// x's storage, saves nothing, and passes the gradient to both operands.
func (b *Builder) AddInplace(name string, x, y TensorID) TensorID {
	return b.Emit(OpSpec{Kind: "add_", Name: name, Inputs: []TensorID{x, y}, Outputs: []TensorSpec{TS("out", b.DType(x), b.Shape(x)...)},
		AliasOut: []int{0}, Flow: GradPassThrough})[0]
}

// GlobalAvgPool is AdaptiveAvgPool2d((1, 1)): ATen computes it as
// x.mean((-1, -2), keepdim=True), which saves no tensor; its backward
// expands and divides the gradient into a new tensor shaped like x.
func (b *Builder) GlobalAvgPool(name string, x TensorID) TensorID {
	xs := b.Shape(x)
	return b.Emit(OpSpec{Kind: "mean", Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", b.DType(x), xs[0], xs[1], 1, 1)}})[0]
}

// Select is a basic-indexing view such as x[:, 0, :]: no memory in forward;
// its backward (select_backward) makes a zero tensor shaped like x.
func (b *Builder) Select(name string, x TensorID, shape ...int64) TensorID {
	return b.Emit(OpSpec{Kind: "select", Name: name, Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", b.DType(x), shape...)}, AliasOut: []int{0}})[0]
}

// CatParam is torch.cat((p.expand(B, ...), x), dim=1) with p a parameter
// (ViT's [CLS] token): a new tensor; the gradient of x is a slice of the
// incoming one (no memory) and p's gradient a new reduced tensor.
func (b *Builder) CatParam(name string, p, x TensorID, dim int) TensorID {
	shape := b.Shape(x)
	shape[dim] += b.Shape(p)[dim]
	return b.Emit(OpSpec{Kind: "cat", Name: name, Inputs: []TensorID{x}, Params: []TensorID{p}, Outputs: []TensorSpec{TS("out", promote(b.DType(x), b.DType(p)), shape...)}, Flow: GradPassThrough})[0]
}

// AddParam is x + p with p a parameter broadcast over the batch (ViT's
// position embeddings): a new tensor; the gradient passes to x and is summed
// into a new tensor for p.
func (b *Builder) AddParam(name string, x, p TensorID) TensorID {
	return b.Emit(OpSpec{Kind: "add", Name: name, Inputs: []TensorID{x}, Params: []TensorID{p}, Outputs: []TensorSpec{TS("out", promote(b.DType(x), b.DType(p)), broadcast(b.Shape(x), b.Shape(p))...)}, Flow: GradPassThrough})[0]
}

// AddPromoting is x + y where the operands may differ in dtype (under
// autocast a bf16 dropout output plus an fp32 residual): the sum has the
// promoted dtype; the backward casts the gradient of the lower-precision
// operand into a new tensor of its dtype (measured in BERT under autocast).
func (b *Builder) AddPromoting(name string, x, y TensorID) TensorID {
	out := promote(b.DType(x), b.DType(y))
	lift := func(t TensorID, n string) TensorID {
		if b.DType(t) == out {
			return t
		}
		// A view in the promoted dtype: no memory forward; backward casts.
		return b.Emit(OpSpec{Kind: "promote", Name: n, Inputs: []TensorID{t}, Outputs: []TensorSpec{TS("out", out, b.Shape(t)...)}, AliasOut: []int{0}})[0]
	}
	return b.Add(name, lift(x, name+".promote_x"), lift(y, name+".promote_y"))
}

// BiasGradReduceTemps are the buffers of the bias gradient's reduction,
// grad.sum(0) over an [N, H] gradient: SumStaging's staging buffer and
// semaphores, allocated after the gradient and freed before the op returns.
// Measured: [4096, 768] → 25165824 B, [6304, 3072] → 138412032 B,
// [4096, 30522] → 23440896 B; none at N = 64.
func BiasGradReduceTemps(n, h int64) []TensorSpec { return stagingTemps(n, h) }

// EncoderSDPA is F.scaled_dot_product_attention(q, k, v, dropout_p=p) with
// no mask and is_causal=False, q/k/v being [B, H, S, d] transposed views of
// [B, S, H·d] projections (BERT, ViT). PyTorch 2.11 on sm90 picks:
//
//   - fp32: the memory-efficient kernel. Forward: the output (laid out
//     [B, S, H, d], so the caller's transpose(1, 2).contiguous() is free) and
//     an fp32 logsumexp [B, H, S rounded up to 32]; the dropout RNG state
//     stays on the CPU. Backward: dq, dk, dv, then a contiguous copy of the
//     output gradient and two fp32 [B, H, S] buffers; after the copy and the
//     first buffer are freed, a workspace of B·H·(S64·d·4 + S64/64·16) bytes
//     (S64 = S rounded up to 64) — measured at S = 128 and 197.
//   - bf16/fp16: the cuDNN kernel. Forward: int64 philox seed and offset
//     (training), the output, an fp32 logsumexp [B, H, S, 1] and a 256-byte
//     scratch. Backward: dq, dk, dv and one workspace of
//     B·H·S·d·4 + B·H·S·4 + 256 bytes (fp32 dQ accumulator and softmax sums).
func (b *Builder) EncoderSDPA(name string, q, k, v TensorID, dropout float64) TensorID {
	q = b.matmulIn(q, name+".q_cast")
	k = b.matmulIn(k, name+".k_cast")
	v = b.matmulIn(v, name+".v_cast")
	qs := b.Shape(q)
	bsz, heads, s, d := qs[0], qs[1], qs[2], qs[3]
	dt := b.DType(q)
	spec := OpSpec{Name: name, Inputs: []TensorID{q, k, v},
		Outputs: []TensorSpec{TS("out", dt, bsz, heads, s, d)},
		Saved:   []TensorID{q, k, v}, SaveOut: []int{0}}
	bhs4 := bsz * heads * s * 4
	switch PickSDPA(dt, false) {
	case SDPAEfficient:
		spec.Kind = "sdpa_efficient"
		spec.Extra = []TensorSpec{TS("logsumexp", FP32, bsz, heads, (s+31)/32*32)}
		spec.SaveExtra = []int{0}
		s64 := (s + 63) / 64 * 64
		ws := bsz * heads * (s64*d*4 + s64/64*16)
		copyBytes := bsz * heads * s * d * dt.Size()
		// The engine allocates backward temporaries together and frees them
		// in reverse: keep the phase with the larger peak.
		if ws >= copyBytes+bhs4 {
			spec.BackwardTemps = []TensorSpec{TS("delta", FP32, bsz, heads, s), TS("workspace", UInt8, ws)}
		} else {
			spec.BackwardTemps = []TensorSpec{TS("grad_out_contiguous", dt, bsz, heads, s, d), TS("delta", FP32, bsz, heads, s), TS("delta2", FP32, bsz, heads, s)}
		}
	default:
		spec.Kind = "sdpa_cudnn"
		spec.Extra = []TensorSpec{TS("philox_seed", Int64), TS("philox_offset", Int64), TS("logsumexp", FP32, bsz, heads, s, 1)}
		spec.SaveExtra = []int{0, 1, 2}
		spec.Temps = []TensorSpec{TS("scratch", UInt8, 256)}
		spec.BackwardTemps = []TensorSpec{TS("workspace", UInt8, bsz*heads*s*d*4+bhs4+256)}
	}
	_ = dropout // the kernels keep no mask: dropout is regenerated from the philox state
	return b.Emit(spec)[0]
}

// crossEntropyAutocast is F.cross_entropy(logits, target) on low-precision
// logits under autocast: log_softmax runs in the logits' dtype (its output
// saved), the result is cast to fp32 for nll_loss (autocast's fp32 list),
// which saves that copy, the target and total_weight. Measured in BERT under
// autocast.
func (b *Builder) crossEntropyAutocast(name string, logits, target TensorID) TensorID {
	shape := b.Shape(logits)
	var loss TensorID
	b.Scoped(name, func() {
		ls := b.Emit(OpSpec{Kind: "log_softmax", Name: "log_softmax", Inputs: []TensorID{logits}, Outputs: []TensorSpec{TS("out", b.DType(logits), shape...)}, SaveOut: []int{0}})[0]
		f := b.Cast("to_fp32", ls, FP32)
		loss = b.Emit(OpSpec{Kind: "nll_loss", Name: "nll_loss", Inputs: []TensorID{f, target}, NoGradInputs: []int{1},
			Outputs: []TensorSpec{TS("out", FP32, scalarShape...)},
			Extra:   []TensorSpec{TS("total_weight", FP32)}, Saved: []TensorID{f, target}, SaveExtra: []int{0}})[0]
	})
	return loss
}

// convKey identifies a measured convolution (groups 1, dilation 1).
type convKey struct {
	dt                                      DType
	n, cin, h, w, cout, kh, kw, stride, pad int64
}

// measuredConvWorkspaces are the workspaces (forward, backward-data,
// backward-filter; bytes requested) cuDNN 9.19 asked for on an H200 with
// torch 2.11, one isolated call per geometry (backward-data is 0 where the
// input needs no gradient; probe/measure_conv_workspaces.py, which
// reproduces every bf16 entry). bf16 entries hold for autocast and pure
// bf16, fp16 ones for amp-fp16 and pure fp16: cuDNN's heuristics pick other
// engines for fp16 in 27 of the 148 geometries (the stem among them: at
// batch 128 its forward takes 245 MiB in fp16, 294 MiB in bf16).
var measuredConvWorkspaces = map[convKey][3]int64{
	{BF16, 4, 3, 224, 224, 768, 16, 16, 16, 0}:  {7561232, 0, 7561232},
	{BF16, 8, 3, 224, 224, 64, 7, 7, 2, 3}:      {19317776, 0, 25138320},
	{BF16, 8, 64, 56, 56, 64, 1, 1, 1, 0}:       {0, 0, 131072},
	{BF16, 8, 64, 56, 56, 64, 3, 3, 1, 1}:       {6496272, 6496272, 8413863},
	{BF16, 8, 64, 56, 56, 128, 1, 1, 2, 0}:      {4816912, 4816912, 5832848},
	{BF16, 8, 64, 56, 56, 128, 3, 3, 2, 1}:      {4964368, 4964499, 4964368},
	{BF16, 8, 64, 56, 56, 256, 1, 1, 1, 0}:      {0, 272, 524288},
	{BF16, 8, 128, 28, 28, 128, 3, 3, 1, 1}:     {3506192, 3506192, 3506192},
	{BF16, 8, 128, 28, 28, 256, 1, 1, 2, 0}:     {2408464, 2408464, 2408464},
	{BF16, 8, 128, 28, 28, 256, 3, 3, 2, 1}:     {2998288, 2998419, 2998288},
	{BF16, 8, 128, 28, 28, 512, 1, 1, 1, 0}:     {0, 0, 2097152},
	{BF16, 8, 128, 56, 56, 128, 3, 3, 2, 1}:     {8323088, 8323219, 8323088},
	{BF16, 8, 256, 14, 14, 256, 3, 3, 1, 1}:     {2785296, 2785296, 2785296},
	{BF16, 8, 256, 14, 14, 512, 1, 1, 2, 0}:     {1204240, 1204240, 1204240},
	{BF16, 8, 256, 14, 14, 512, 3, 3, 2, 1}:     {3563536, 3563536, 3563536},
	{BF16, 8, 256, 14, 14, 1024, 1, 1, 1, 0}:    {0, 0, 8388608},
	{BF16, 8, 256, 28, 28, 256, 3, 3, 2, 1}:     {5193744, 5193875, 5193744},
	{BF16, 8, 256, 56, 56, 64, 1, 1, 1, 0}:      {0, 0, 524288},
	{BF16, 8, 256, 56, 56, 128, 1, 1, 1, 0}:     {0, 0, 1048576},
	{BF16, 8, 256, 56, 56, 512, 1, 1, 2, 0}:     {19267600, 19267731, 19267600},
	{BF16, 8, 512, 7, 7, 512, 3, 3, 1, 1}:       {5521424, 5521424, 5521424},
	{BF16, 8, 512, 7, 7, 2048, 1, 1, 1, 0}:      {2007056, 2007056, 2007056},
	{BF16, 8, 512, 14, 14, 512, 3, 3, 2, 1}:     {6725648, 6725648, 6725648},
	{BF16, 8, 512, 28, 28, 128, 1, 1, 1, 0}:     {0, 0, 2097152},
	{BF16, 8, 512, 28, 28, 256, 1, 1, 1, 0}:     {0, 0, 4194304},
	{BF16, 8, 512, 28, 28, 1024, 1, 1, 2, 0}:    {9633808, 9633939, 9633808},
	{BF16, 8, 1024, 14, 14, 256, 1, 1, 1, 0}:    {0, 0, 4014096},
	{BF16, 8, 1024, 14, 14, 512, 1, 1, 1, 0}:    {0, 0, 4816912},
	{BF16, 8, 1024, 14, 14, 2048, 1, 1, 2, 0}:   {4816912, 4817043, 4816912},
	{BF16, 8, 2048, 7, 7, 512, 1, 1, 1, 0}:      {2007056, 2007056, 2007056},
	{BF16, 16, 3, 224, 224, 64, 7, 7, 2, 3}:     {38585360, 0, 44606608},
	{BF16, 16, 64, 56, 56, 64, 1, 1, 1, 0}:      {0, 0, 262144},
	{BF16, 16, 64, 56, 56, 64, 3, 3, 1, 1}:      {12918800, 12918800, 14836391},
	{BF16, 16, 64, 56, 56, 128, 1, 1, 2, 0}:     {9633808, 9633939, 10649744},
	{BF16, 16, 64, 56, 56, 128, 3, 3, 2, 1}:     {9781264, 9781395, 9781264},
	{BF16, 16, 64, 56, 56, 256, 1, 1, 1, 0}:     {0, 0, 1048576},
	{BF16, 16, 128, 28, 28, 128, 3, 3, 1, 1}:    {6717456, 6717456, 6717456},
	{BF16, 16, 128, 28, 28, 256, 1, 1, 2, 0}:    {4816912, 4817043, 4816912},
	{BF16, 16, 128, 28, 28, 256, 3, 3, 2, 1}:    {5406736, 5406867, 5406736},
	{BF16, 16, 128, 28, 28, 512, 1, 1, 1, 0}:    {0, 0, 4194304},
	{BF16, 16, 128, 56, 56, 128, 3, 3, 2, 1}:    {16351248, 16351379, 16351248},
	{BF16, 16, 256, 14, 14, 256, 3, 3, 1, 1}:    {4390928, 4390928, 4390928},
	{BF16, 16, 256, 14, 14, 512, 1, 1, 2, 0}:    {2408464, 2408464, 2408464},
	{BF16, 16, 256, 14, 14, 512, 3, 3, 2, 1}:    {4767760, 4767891, 4767760},
	{BF16, 16, 256, 14, 14, 1024, 1, 1, 1, 0}:   {0, 0, 8028176},
	{BF16, 16, 256, 28, 28, 256, 3, 3, 2, 1}:    {9207824, 9207955, 9207824},
	{BF16, 16, 256, 56, 56, 64, 1, 1, 1, 0}:     {0, 0, 1048576},
	{BF16, 16, 256, 56, 56, 128, 1, 1, 1, 0}:    {0, 0, 2097152},
	{BF16, 16, 256, 56, 56, 512, 1, 1, 2, 0}:    {38535315, 38535315, 38535184},
	{BF16, 16, 512, 7, 7, 512, 3, 3, 1, 1}:      {6324240, 6324240, 6324240},
	{BF16, 16, 512, 7, 7, 2048, 1, 1, 1, 0}:     {4014096, 4014096, 4014096},
	{BF16, 16, 512, 14, 14, 512, 3, 3, 2, 1}:    {8732688, 8732819, 8732688},
	{BF16, 16, 512, 28, 28, 128, 1, 1, 1, 0}:    {0, 0, 4194304},
	{BF16, 16, 512, 28, 28, 256, 1, 1, 1, 0}:    {0, 0, 8388608},
	{BF16, 16, 512, 28, 28, 1024, 1, 1, 2, 0}:   {19267600, 19267731, 19267600},
	{BF16, 16, 1024, 14, 14, 256, 1, 1, 1, 0}:   {0, 0, 16777216},
	{BF16, 16, 1024, 14, 14, 512, 1, 1, 1, 0}:   {0, 0, 9633808},
	{BF16, 16, 1024, 14, 14, 2048, 1, 1, 2, 0}:  {9633808, 9633939, 9633808},
	{BF16, 16, 2048, 7, 7, 512, 1, 1, 1, 0}:     {4014096, 4014096, 4014096},
	{BF16, 32, 3, 224, 224, 64, 7, 7, 2, 3}:     {77120528, 0, 83242128},
	{BF16, 32, 3, 224, 224, 768, 16, 16, 16, 0}: {38469648, 0, 57344144},
	{BF16, 32, 64, 56, 56, 64, 1, 1, 1, 0}:      {272, 0, 524288},
	{BF16, 32, 64, 56, 56, 64, 3, 3, 1, 1}:      {25763987, 25763987, 27681447},
	{BF16, 32, 64, 56, 56, 128, 1, 1, 2, 0}:     {256, 19267731, 20021392},
	{BF16, 32, 64, 56, 56, 128, 3, 3, 2, 1}:     {19415187, 19415187, 23249575},
	{BF16, 32, 64, 56, 56, 256, 1, 1, 1, 0}:     {0, 0, 2097152},
	{BF16, 32, 128, 28, 28, 128, 3, 3, 1, 1}:    {13139984, 13139984, 15499655},
	{BF16, 32, 128, 28, 28, 256, 1, 1, 2, 0}:    {9633808, 9633939, 9633808},
	{BF16, 32, 128, 28, 28, 256, 3, 3, 2, 1}:    {10223632, 10223763, 10223632},
	{BF16, 32, 128, 28, 28, 512, 1, 1, 1, 0}:    {0, 272, 8388608},
	{BF16, 32, 128, 56, 56, 128, 3, 3, 2, 1}:    {32407568, 32407699, 34767239},
	{BF16, 32, 256, 14, 14, 256, 3, 3, 1, 1}:    {7602192, 7602192, 7602192},
	{BF16, 32, 256, 14, 14, 512, 1, 1, 2, 0}:    {4816912, 4816912, 4816912},
	{BF16, 32, 256, 14, 14, 512, 3, 3, 2, 1}:    {7176339, 7176339, 7176208},
	{BF16, 32, 256, 14, 14, 1024, 1, 1, 1, 0}:   {0, 0, 16056336},
	{BF16, 32, 256, 28, 28, 256, 3, 3, 2, 1}:    {17235984, 17236115, 17235984},
	{BF16, 32, 256, 56, 56, 64, 1, 1, 1, 0}:     {0, 0, 2097152},
	{BF16, 32, 256, 56, 56, 128, 1, 1, 1, 0}:    {0, 0, 4194304},
	{BF16, 32, 256, 56, 56, 512, 1, 1, 2, 0}:    {77070483, 77070483, 78119215},
	{BF16, 32, 512, 7, 7, 512, 3, 3, 1, 1}:      {7929872, 7929872, 7930003},
	{BF16, 32, 512, 7, 7, 2048, 1, 1, 1, 0}:     {8028176, 8028176, 8028176},
	{BF16, 32, 512, 14, 14, 512, 3, 3, 2, 1}:    {12746768, 12746899, 12746899},
	{BF16, 32, 512, 28, 28, 128, 1, 1, 1, 0}:    {0, 0, 8388608},
	{BF16, 32, 512, 28, 28, 256, 1, 1, 1, 0}:    {0, 0, 16777216},
	{BF16, 32, 512, 28, 28, 1024, 1, 1, 2, 0}:   {38535315, 38535315, 38535184},
	{BF16, 32, 1024, 14, 14, 256, 1, 1, 1, 0}:   {0, 0, 16056336},
	{BF16, 32, 1024, 14, 14, 512, 1, 1, 1, 0}:   {0, 0, 19267600},
	{BF16, 32, 1024, 14, 14, 2048, 1, 1, 2, 0}:  {19267600, 19267731, 19267600},
	{BF16, 32, 2048, 7, 7, 512, 1, 1, 1, 0}:     {8028176, 8028176, 8028176},
	{BF16, 64, 3, 224, 224, 64, 7, 7, 2, 3}:     {154190864, 0, 160312464},
	{BF16, 64, 3, 224, 224, 768, 16, 16, 16, 0}: {73793552, 0, 92668048},
	{BF16, 64, 64, 56, 56, 64, 1, 1, 1, 0}:      {0, 0, 1048576},
	{BF16, 64, 64, 56, 56, 64, 3, 3, 1, 1}:      {51454099, 51454099, 53371559},
	{BF16, 64, 64, 56, 56, 128, 1, 1, 2, 0}:     {256, 38535315, 42369168},
	{BF16, 64, 64, 56, 56, 128, 3, 3, 2, 1}:     {38682771, 38682771, 42517159},
	{BF16, 64, 64, 56, 56, 256, 1, 1, 1, 0}:     {272, 0, 4194576},
	{BF16, 64, 128, 28, 28, 128, 3, 3, 1, 1}:    {25985171, 25985171, 28344711},
	{BF16, 64, 128, 28, 28, 256, 1, 1, 2, 0}:    {19267600, 19267731, 23068816},
	{BF16, 64, 128, 28, 28, 256, 3, 3, 2, 1}:    {19857424, 19857555, 19857424},
	{BF16, 64, 128, 28, 28, 512, 1, 1, 1, 0}:    {0, 0, 16777216},
	{BF16, 64, 128, 56, 56, 128, 3, 3, 2, 1}:    {64520339, 64520339, 66879879},
	{BF16, 64, 256, 14, 14, 256, 3, 3, 1, 1}:    {14024720, 14024720, 14024720},
	{BF16, 64, 256, 14, 14, 512, 1, 1, 2, 0}:    {9633808, 9633939, 9633808},
	{BF16, 64, 256, 14, 14, 512, 3, 3, 2, 1}:    {11993235, 11993235, 11993104},
	{BF16, 64, 256, 14, 14, 1024, 1, 1, 1, 0}:   {0, 0, 34210095},
	{BF16, 64, 256, 28, 28, 256, 3, 3, 2, 1}:    {33292304, 33292435, 33292304},
	{BF16, 64, 256, 56, 56, 64, 1, 1, 1, 0}:     {0, 272, 4194304},
	{BF16, 64, 256, 56, 56, 128, 1, 1, 1, 0}:    {272, 272, 8388880},
	{BF16, 64, 256, 56, 56, 512, 1, 1, 2, 0}:    {154140819, 154140819, 155714095},
	{BF16, 64, 512, 7, 7, 512, 3, 3, 1, 1}:      {11141136, 11141136, 11141267},
	{BF16, 64, 512, 7, 7, 2048, 1, 1, 1, 0}:     {16056467, 16056336, 16056336},
	{BF16, 64, 512, 14, 14, 512, 3, 3, 2, 1}:    {20774928, 20775059, 20775059},
	{BF16, 64, 512, 28, 28, 128, 1, 1, 1, 0}:    {0, 0, 16777216},
	{BF16, 64, 512, 28, 28, 256, 1, 1, 1, 0}:    {0, 0, 33554432},
	{BF16, 64, 512, 28, 28, 1024, 1, 1, 2, 0}:   {77070483, 77070483, 77070352},
	{BF16, 64, 1024, 14, 14, 256, 1, 1, 1, 0}:   {0, 0, 34210095},
	{BF16, 64, 1024, 14, 14, 512, 1, 1, 1, 0}:   {38535315, 38535315, 38535184},
	{BF16, 64, 1024, 14, 14, 2048, 1, 1, 2, 0}:  {38535315, 38535315, 38535184},
	{BF16, 64, 2048, 7, 7, 512, 1, 1, 1, 0}:     {16056336, 16056467, 16056336},
	{BF16, 128, 3, 224, 224, 64, 7, 7, 2, 3}:    {308331536, 0, 314453136},
	{BF16, 128, 64, 56, 56, 64, 1, 1, 1, 0}:     {0, 0, 2097152},
	{BF16, 128, 64, 56, 56, 64, 3, 3, 1, 1}:     {102834323, 102834323, 104751783},
	{BF16, 128, 64, 56, 56, 128, 1, 1, 2, 0}:    {256, 77070483, 78643711},
	{BF16, 128, 64, 56, 56, 128, 3, 3, 2, 1}:    {77217939, 77217939, 81052327},
	{BF16, 128, 64, 56, 56, 256, 1, 1, 1, 0}:    {272, 272, 8388608},
	{BF16, 128, 128, 28, 28, 128, 3, 3, 1, 1}:   {51675283, 51675283, 59343527},
	{BF16, 128, 128, 28, 28, 256, 1, 1, 2, 0}:   {38535315, 38535315, 42467983},
	{BF16, 128, 128, 28, 28, 256, 3, 3, 2, 1}:   {39125139, 39125139, 41746767},
	{BF16, 128, 128, 28, 28, 512, 1, 1, 1, 0}:   {0, 0, 33554432},
	{BF16, 128, 128, 56, 56, 128, 3, 3, 2, 1}:   {128745619, 128745619, 136413863},
	{BF16, 128, 256, 14, 14, 256, 3, 3, 1, 1}:   {26869907, 26869907, 33948255},
	{BF16, 128, 256, 14, 14, 512, 1, 1, 2, 0}:   {19267600, 19267731, 19267600},
	{BF16, 128, 256, 14, 14, 512, 3, 3, 2, 1}:   {21626896, 21627027, 24904055},
	{BF16, 128, 256, 14, 14, 1024, 1, 1, 1, 0}:  {0, 0, 66322735},
	{BF16, 128, 256, 28, 28, 256, 3, 3, 2, 1}:   {65405075, 65405075, 72483423},
	{BF16, 128, 256, 56, 56, 64, 1, 1, 1, 0}:    {0, 272, 8388880},
	{BF16, 128, 256, 56, 56, 128, 1, 1, 1, 0}:   {272, 272, 16777216},
	{BF16, 128, 256, 56, 56, 512, 1, 1, 2, 0}:   {308281491, 308281491, 311951983},
	{BF16, 128, 512, 7, 7, 512, 3, 3, 1, 1}:     {25952687, 17563664, 20709647},
	{BF16, 128, 512, 7, 7, 2048, 1, 1, 1, 0}:    {32112787, 32112656, 32112656},
	{BF16, 128, 512, 14, 14, 512, 3, 3, 2, 1}:   {36831248, 36831379, 39977231},
	{BF16, 128, 512, 28, 28, 128, 1, 1, 1, 0}:   {272, 0, 33554432},
	{BF16, 128, 512, 28, 28, 256, 1, 1, 1, 0}:   {272, 0, 67108864},
	{BF16, 128, 512, 28, 28, 1024, 1, 1, 2, 0}:  {154140819, 154140819, 160432687},
	{BF16, 128, 1024, 14, 14, 256, 1, 1, 1, 0}:  {0, 0, 66322735},
	{BF16, 128, 1024, 14, 14, 512, 1, 1, 1, 0}:  {77070483, 77070483, 83362351},
	{BF16, 128, 1024, 14, 14, 2048, 1, 1, 2, 0}: {77070483, 77070483, 77070352},
	{BF16, 128, 2048, 7, 7, 512, 1, 1, 1, 0}:    {32112656, 32112787, 32637135},
	{FP16, 4, 3, 224, 224, 768, 16, 16, 16, 0}:  {7561232, 0, 7561232},
	{FP16, 8, 3, 224, 224, 64, 7, 7, 2, 3}:      {16081424, 0, 25138320},
	{FP16, 8, 64, 56, 56, 64, 1, 1, 1, 0}:       {0, 0, 131072},
	{FP16, 8, 64, 56, 56, 64, 3, 3, 1, 1}:       {6496272, 6496272, 8413863},
	{FP16, 8, 64, 56, 56, 128, 1, 1, 2, 0}:      {4816912, 4816912, 5832848},
	{FP16, 8, 64, 56, 56, 128, 3, 3, 2, 1}:      {4964368, 4964499, 4964368},
	{FP16, 8, 64, 56, 56, 256, 1, 1, 1, 0}:      {0, 272, 524288},
	{FP16, 8, 128, 28, 28, 128, 3, 3, 1, 1}:     {3506192, 3506192, 3506192},
	{FP16, 8, 128, 28, 28, 256, 1, 1, 2, 0}:     {2408464, 2408464, 2408464},
	{FP16, 8, 128, 28, 28, 256, 3, 3, 2, 1}:     {2998288, 2998419, 2998288},
	{FP16, 8, 128, 28, 28, 512, 1, 1, 1, 0}:     {0, 0, 2097152},
	{FP16, 8, 128, 56, 56, 128, 3, 3, 2, 1}:     {8323088, 8323219, 8323088},
	{FP16, 8, 256, 14, 14, 256, 3, 3, 1, 1}:     {2785296, 2785296, 2785296},
	{FP16, 8, 256, 14, 14, 512, 1, 1, 2, 0}:     {1204240, 1204240, 1204240},
	{FP16, 8, 256, 14, 14, 512, 3, 3, 2, 1}:     {3563536, 3563536, 3563536},
	{FP16, 8, 256, 14, 14, 1024, 1, 1, 1, 0}:    {0, 0, 8388608},
	{FP16, 8, 256, 28, 28, 256, 3, 3, 2, 1}:     {5193744, 5193875, 5193744},
	{FP16, 8, 256, 56, 56, 64, 1, 1, 1, 0}:      {0, 0, 524288},
	{FP16, 8, 256, 56, 56, 128, 1, 1, 1, 0}:     {0, 0, 1048576},
	{FP16, 8, 256, 56, 56, 512, 1, 1, 2, 0}:     {19267600, 19267731, 19267600},
	{FP16, 8, 512, 7, 7, 512, 3, 3, 1, 1}:       {5521424, 5521424, 5521424},
	{FP16, 8, 512, 7, 7, 2048, 1, 1, 1, 0}:      {2007056, 2007056, 2007056},
	{FP16, 8, 512, 14, 14, 512, 3, 3, 2, 1}:     {6725648, 6725648, 6725648},
	{FP16, 8, 512, 28, 28, 128, 1, 1, 1, 0}:     {0, 0, 2097152},
	{FP16, 8, 512, 28, 28, 256, 1, 1, 1, 0}:     {0, 0, 4194304},
	{FP16, 8, 512, 28, 28, 1024, 1, 1, 2, 0}:    {9633808, 9633939, 9633808},
	{FP16, 8, 1024, 14, 14, 256, 1, 1, 1, 0}:    {0, 0, 4014096},
	{FP16, 8, 1024, 14, 14, 512, 1, 1, 1, 0}:    {0, 0, 4816912},
	{FP16, 8, 1024, 14, 14, 2048, 1, 1, 2, 0}:   {4816912, 4817043, 4816912},
	{FP16, 8, 2048, 7, 7, 512, 1, 1, 1, 0}:      {2007056, 2007056, 2007056},
	{FP16, 16, 3, 224, 224, 64, 7, 7, 2, 3}:     {32137744, 0, 32338831},
	{FP16, 16, 64, 56, 56, 64, 1, 1, 1, 0}:      {0, 0, 262144},
	{FP16, 16, 64, 56, 56, 64, 3, 3, 1, 1}:      {12918800, 12918800, 14836391},
	{FP16, 16, 64, 56, 56, 128, 1, 1, 2, 0}:     {9633808, 9633939, 10649744},
	{FP16, 16, 64, 56, 56, 128, 3, 3, 2, 1}:     {9781264, 9781395, 11354575},
	{FP16, 16, 64, 56, 56, 256, 1, 1, 1, 0}:     {0, 0, 1048576},
	{FP16, 16, 128, 28, 28, 128, 3, 3, 1, 1}:    {6717456, 6717456, 8487519},
	{FP16, 16, 128, 28, 28, 256, 1, 1, 2, 0}:    {4816912, 4817043, 4816912},
	{FP16, 16, 128, 28, 28, 256, 3, 3, 2, 1}:    {5406736, 5406867, 5406736},
	{FP16, 16, 128, 28, 28, 512, 1, 1, 1, 0}:    {0, 0, 4194304},
	{FP16, 16, 128, 56, 56, 128, 3, 3, 2, 1}:    {16351248, 16351379, 18317967},
	{FP16, 16, 256, 14, 14, 256, 3, 3, 1, 1}:    {4390928, 4390928, 4390928},
	{FP16, 16, 256, 14, 14, 512, 1, 1, 2, 0}:    {2408464, 2408464, 2408464},
	{FP16, 16, 256, 14, 14, 512, 3, 3, 2, 1}:    {4767760, 4767891, 8044919},
	{FP16, 16, 256, 14, 14, 1024, 1, 1, 1, 0}:   {0, 0, 8028176},
	{FP16, 16, 256, 28, 28, 256, 3, 3, 2, 1}:    {9207824, 9207955, 9207824},
	{FP16, 16, 256, 56, 56, 64, 1, 1, 1, 0}:     {0, 0, 1048576},
	{FP16, 16, 256, 56, 56, 128, 1, 1, 1, 0}:    {0, 0, 2097152},
	{FP16, 16, 256, 56, 56, 512, 1, 1, 2, 0}:    {38535315, 38535315, 40108591},
	{FP16, 16, 512, 7, 7, 512, 3, 3, 1, 1}:      {6324240, 6324240, 6324240},
	{FP16, 16, 512, 7, 7, 2048, 1, 1, 1, 0}:     {4014096, 4014096, 4014096},
	{FP16, 16, 512, 14, 14, 512, 3, 3, 2, 1}:    {8732688, 8732819, 8732688},
	{FP16, 16, 512, 28, 28, 128, 1, 1, 1, 0}:    {0, 0, 4194304},
	{FP16, 16, 512, 28, 28, 256, 1, 1, 1, 0}:    {0, 0, 8388608},
	{FP16, 16, 512, 28, 28, 1024, 1, 1, 2, 0}:   {19267600, 19267731, 19267600},
	{FP16, 16, 1024, 14, 14, 256, 1, 1, 1, 0}:   {0, 0, 16777216},
	{FP16, 16, 1024, 14, 14, 512, 1, 1, 1, 0}:   {0, 0, 9633808},
	{FP16, 16, 1024, 14, 14, 2048, 1, 1, 2, 0}:  {9633808, 9633939, 9633808},
	{FP16, 16, 2048, 7, 7, 512, 1, 1, 1, 0}:     {4014096, 4014096, 4014096},
	{FP16, 32, 3, 224, 224, 64, 7, 7, 2, 3}:     {64250384, 0, 64451471},
	{FP16, 32, 3, 224, 224, 768, 16, 16, 16, 0}: {38469648, 0, 57344144},
	{FP16, 32, 64, 56, 56, 64, 1, 1, 1, 0}:      {272, 0, 524288},
	{FP16, 32, 64, 56, 56, 64, 3, 3, 1, 1}:      {25763987, 25763987, 27681447},
	{FP16, 32, 64, 56, 56, 128, 1, 1, 2, 0}:     {256, 19267731, 20021392},
	{FP16, 32, 64, 56, 56, 128, 3, 3, 2, 1}:     {19415187, 19415187, 23249575},
	{FP16, 32, 64, 56, 56, 256, 1, 1, 1, 0}:     {0, 0, 2097152},
	{FP16, 32, 128, 28, 28, 128, 3, 3, 1, 1}:    {13139984, 13139984, 16679519},
	{FP16, 32, 128, 28, 28, 256, 1, 1, 2, 0}:    {9633808, 9633939, 9633808},
	{FP16, 32, 128, 28, 28, 256, 3, 3, 2, 1}:    {10223632, 10223763, 10223632},
	{FP16, 32, 128, 28, 28, 512, 1, 1, 1, 0}:    {0, 272, 8388608},
	{FP16, 32, 128, 56, 56, 128, 3, 3, 2, 1}:    {32407568, 32407699, 35947103},
	{FP16, 32, 256, 14, 14, 256, 3, 3, 1, 1}:    {7602192, 7602192, 7602192},
	{FP16, 32, 256, 14, 14, 512, 1, 1, 2, 0}:    {4816912, 4816912, 4816912},
	{FP16, 32, 256, 14, 14, 512, 3, 3, 2, 1}:    {7176339, 7176339, 10453367},
	{FP16, 32, 256, 14, 14, 1024, 1, 1, 1, 0}:   {0, 0, 16056336},
	{FP16, 32, 256, 28, 28, 256, 3, 3, 2, 1}:    {17235984, 17236115, 17235984},
	{FP16, 32, 256, 56, 56, 64, 1, 1, 1, 0}:     {0, 0, 2097152},
	{FP16, 32, 256, 56, 56, 128, 1, 1, 1, 0}:    {0, 0, 4194304},
	{FP16, 32, 256, 56, 56, 512, 1, 1, 2, 0}:    {77070483, 77070483, 78643759},
	{FP16, 32, 512, 7, 7, 512, 3, 3, 1, 1}:      {7929872, 7929872, 7930003},
	{FP16, 32, 512, 7, 7, 2048, 1, 1, 1, 0}:     {8028176, 8028176, 8028176},
	{FP16, 32, 512, 14, 14, 512, 3, 3, 2, 1}:    {12746768, 12746899, 12746899},
	{FP16, 32, 512, 28, 28, 128, 1, 1, 1, 0}:    {0, 0, 8388608},
	{FP16, 32, 512, 28, 28, 256, 1, 1, 1, 0}:    {0, 0, 16777216},
	{FP16, 32, 512, 28, 28, 1024, 1, 1, 2, 0}:   {38535315, 38535315, 38535184},
	{FP16, 32, 1024, 14, 14, 256, 1, 1, 1, 0}:   {0, 0, 16056336},
	{FP16, 32, 1024, 14, 14, 512, 1, 1, 1, 0}:   {0, 0, 19267600},
	{FP16, 32, 1024, 14, 14, 2048, 1, 1, 2, 0}:  {19267600, 19267731, 19267600},
	{FP16, 32, 2048, 7, 7, 512, 1, 1, 1, 0}:     {8028176, 8028176, 8028176},
	{FP16, 64, 3, 224, 224, 64, 7, 7, 2, 3}:     {128475664, 0, 128877679},
	{FP16, 64, 3, 224, 224, 768, 16, 16, 16, 0}: {73793552, 0, 92668048},
	{FP16, 64, 64, 56, 56, 64, 1, 1, 1, 0}:      {0, 0, 1048576},
	{FP16, 64, 64, 56, 56, 64, 3, 3, 1, 1}:      {51454099, 51454099, 53371559},
	{FP16, 64, 64, 56, 56, 128, 1, 1, 2, 0}:     {256, 38535315, 42369168},
	{FP16, 64, 64, 56, 56, 128, 3, 3, 2, 1}:     {38682771, 38682771, 42517159},
	{FP16, 64, 64, 56, 56, 256, 1, 1, 1, 0}:     {272, 0, 4194576},
	{FP16, 64, 128, 28, 28, 128, 3, 3, 1, 1}:    {25985171, 25985171, 29524575},
	{FP16, 64, 128, 28, 28, 256, 1, 1, 2, 0}:    {19267600, 19267731, 23068816},
	{FP16, 64, 128, 28, 28, 256, 3, 3, 2, 1}:    {19857424, 19857555, 19857424},
	{FP16, 64, 128, 28, 28, 512, 1, 1, 1, 0}:    {0, 0, 16777216},
	{FP16, 64, 128, 56, 56, 128, 3, 3, 2, 1}:    {64520339, 64520339, 68059743},
	{FP16, 64, 256, 14, 14, 256, 3, 3, 1, 1}:    {14024720, 14024720, 14024720},
	{FP16, 64, 256, 14, 14, 512, 1, 1, 2, 0}:    {9633808, 9633939, 9633808},
	{FP16, 64, 256, 14, 14, 512, 3, 3, 2, 1}:    {11993235, 11993235, 15270263},
	{FP16, 64, 256, 14, 14, 1024, 1, 1, 1, 0}:   {0, 0, 35258927},
	{FP16, 64, 256, 28, 28, 256, 3, 3, 2, 1}:    {33292304, 33292435, 33292304},
	{FP16, 64, 256, 56, 56, 64, 1, 1, 1, 0}:     {0, 272, 4194304},
	{FP16, 64, 256, 56, 56, 128, 1, 1, 1, 0}:    {272, 272, 8388880},
	{FP16, 64, 256, 56, 56, 512, 1, 1, 2, 0}:    {154140819, 154140819, 155714095},
	{FP16, 64, 512, 7, 7, 512, 3, 3, 1, 1}:      {11141136, 11141136, 11141267},
	{FP16, 64, 512, 7, 7, 2048, 1, 1, 1, 0}:     {16056467, 16056336, 16056336},
	{FP16, 64, 512, 14, 14, 512, 3, 3, 2, 1}:    {20774928, 20775059, 20775059},
	{FP16, 64, 512, 28, 28, 128, 1, 1, 1, 0}:    {0, 0, 16777216},
	{FP16, 64, 512, 28, 28, 256, 1, 1, 1, 0}:    {0, 0, 33554432},
	{FP16, 64, 512, 28, 28, 1024, 1, 1, 2, 0}:   {77070483, 77070483, 77070352},
	{FP16, 64, 1024, 14, 14, 256, 1, 1, 1, 0}:   {0, 0, 35258927},
	{FP16, 64, 1024, 14, 14, 512, 1, 1, 1, 0}:   {38535315, 38535315, 38535184},
	{FP16, 64, 1024, 14, 14, 2048, 1, 1, 2, 0}:  {38535315, 38535315, 38535184},
	{FP16, 64, 2048, 7, 7, 512, 1, 1, 1, 0}:     {16056336, 16056467, 16056336},
	{FP16, 128, 3, 224, 224, 64, 7, 7, 2, 3}:    {256926224, 0, 257328239},
	{FP16, 128, 64, 56, 56, 64, 1, 1, 1, 0}:     {0, 0, 2097152},
	{FP16, 128, 64, 56, 56, 64, 3, 3, 1, 1}:     {102834323, 102834323, 104751783},
	{FP16, 128, 64, 56, 56, 128, 1, 1, 2, 0}:    {256, 77070483, 78643711},
	{FP16, 128, 64, 56, 56, 128, 3, 3, 2, 1}:    {77217939, 77217939, 81052327},
	{FP16, 128, 64, 56, 56, 256, 1, 1, 1, 0}:    {272, 272, 8388608},
	{FP16, 128, 128, 28, 28, 128, 3, 3, 1, 1}:   {51675283, 51675283, 59343527},
	{FP16, 128, 128, 28, 28, 256, 1, 1, 2, 0}:   {38535315, 38535315, 42467983},
	{FP16, 128, 128, 28, 28, 256, 3, 3, 2, 1}:   {39125139, 39125139, 43057807},
	{FP16, 128, 128, 28, 28, 512, 1, 1, 1, 0}:   {0, 0, 33554432},
	{FP16, 128, 128, 56, 56, 128, 3, 3, 2, 1}:   {128745619, 128745619, 136413863},
	{FP16, 128, 256, 14, 14, 256, 3, 3, 1, 1}:   {26869907, 26869907, 33948255},
	{FP16, 128, 256, 14, 14, 512, 1, 1, 2, 0}:   {19267600, 19267731, 22938223},
	{FP16, 128, 256, 14, 14, 512, 3, 3, 2, 1}:   {21626896, 21627027, 24904055},
	{FP16, 128, 256, 14, 14, 1024, 1, 1, 1, 0}:  {0, 0, 67371567},
	{FP16, 128, 256, 28, 28, 256, 3, 3, 2, 1}:   {65405075, 65405075, 72483423},
	{FP16, 128, 256, 56, 56, 64, 1, 1, 1, 0}:    {0, 272, 8388880},
	{FP16, 128, 256, 56, 56, 128, 1, 1, 1, 0}:   {272, 272, 16777216},
	{FP16, 128, 256, 56, 56, 512, 1, 1, 2, 0}:   {308281491, 308281491, 311951983},
	{FP16, 128, 512, 7, 7, 512, 3, 3, 1, 1}:     {25952687, 17563664, 25428719},
	{FP16, 128, 512, 7, 7, 2048, 1, 1, 1, 0}:    {32112787, 32112656, 32112656},
	{FP16, 128, 512, 14, 14, 512, 3, 3, 2, 1}:   {36831248, 36831379, 44696303},
	{FP16, 128, 512, 28, 28, 128, 1, 1, 1, 0}:   {272, 0, 33554432},
	{FP16, 128, 512, 28, 28, 256, 1, 1, 1, 0}:   {272, 0, 67108864},
	{FP16, 128, 512, 28, 28, 1024, 1, 1, 2, 0}:  {154140819, 154140819, 160432687},
	{FP16, 128, 1024, 14, 14, 256, 1, 1, 1, 0}:  {0, 0, 67371567},
	{FP16, 128, 1024, 14, 14, 512, 1, 1, 1, 0}:  {77070483, 78119123, 83362351},
	{FP16, 128, 1024, 14, 14, 2048, 1, 1, 2, 0}: {77070483, 77070483, 77070352},
	{FP16, 128, 2048, 7, 7, 512, 1, 1, 1, 0}:    {32112656, 32112787, 35783279},
	{FP32, 4, 3, 224, 224, 768, 16, 16, 16, 0}:  {0, 0, 8765584},
	{FP32, 8, 3, 224, 224, 64, 7, 7, 2, 3}:      {30544656, 0, 34872464},
	{FP32, 8, 64, 56, 56, 64, 1, 1, 1, 0}:       {400, 0, 131072},
	{FP32, 8, 64, 56, 56, 64, 3, 3, 1, 1}:       {6570000, 12992528, 15057575},
	{FP32, 8, 64, 56, 56, 128, 1, 1, 2, 0}:      {0, 0, 9928848},
	{FP32, 8, 64, 56, 56, 128, 3, 3, 2, 1}:      {6717456, 9928851, 12550599},
	{FP32, 8, 64, 56, 56, 256, 1, 1, 1, 0}:      {0, 0, 524288},
	{FP32, 8, 128, 28, 28, 128, 3, 3, 1, 1}:     {7012368, 7012368, 16809984},
	{FP32, 8, 128, 28, 28, 256, 1, 1, 2, 0}:     {4816912, 4817043, 5079231},
	{FP32, 8, 128, 28, 28, 256, 3, 3, 2, 1}:     {9666847, 5996560, 7176336},
	{FP32, 8, 128, 28, 28, 512, 1, 1, 1, 0}:     {0, 0, 2097152},
	{FP32, 8, 128, 56, 56, 128, 3, 3, 2, 1}:     {16646160, 16646291, 20775056},
	{FP32, 8, 256, 14, 14, 256, 3, 3, 1, 1}:     {5570576, 5570576, 18874368},
	{FP32, 8, 256, 14, 14, 512, 1, 1, 2, 0}:     {2408464, 2408595, 1024},
	{FP32, 8, 256, 14, 14, 512, 3, 3, 2, 1}:     {7127056, 7127187, 7127056},
	{FP32, 8, 256, 14, 14, 1024, 1, 1, 1, 0}:    {0, 0, 8388608},
	{FP32, 8, 256, 28, 28, 256, 3, 3, 2, 1}:     {10387472, 10387603, 10387472},
	{FP32, 8, 256, 56, 56, 64, 1, 1, 1, 0}:      {0, 0, 524288},
	{FP32, 8, 256, 56, 56, 128, 1, 1, 1, 0}:     {400, 0, 1048576},
	{FP32, 8, 256, 56, 56, 512, 1, 1, 2, 0}:     {38535184, 38535315, 42205328},
	{FP32, 8, 512, 7, 7, 512, 3, 3, 1, 1}:       {11042832, 14582367, 11042832},
	{FP32, 8, 512, 7, 7, 2048, 1, 1, 1, 0}:      {0, 6373695, 4014096},
	{FP32, 8, 512, 14, 14, 512, 3, 3, 2, 1}:     {13451280, 13451411, 13451280},
	{FP32, 8, 512, 28, 28, 128, 1, 1, 1, 0}:     {0, 400, 2097552},
	{FP32, 8, 512, 28, 28, 256, 1, 1, 1, 0}:     {400, 400, 4194704},
	{FP32, 8, 512, 28, 28, 1024, 1, 1, 2, 0}:    {19267600, 19267731, 19267600},
	{FP32, 8, 1024, 14, 14, 256, 1, 1, 1, 0}:    {0, 400, 8388608},
	{FP32, 8, 1024, 14, 14, 512, 1, 1, 1, 0}:    {0, 0, 16777216},
	{FP32, 8, 1024, 14, 14, 2048, 1, 1, 2, 0}:   {9633808, 9633939, 9633936},
	{FP32, 8, 2048, 7, 7, 512, 1, 1, 1, 0}:      {4014096, 0, 4014224},
	{FP32, 16, 3, 224, 224, 64, 7, 7, 2, 3}:     {61051664, 0, 67185808},
	{FP32, 16, 64, 56, 56, 64, 1, 1, 1, 0}:      {400, 400, 262144},
	{FP32, 16, 64, 56, 56, 64, 3, 3, 1, 1}:      {12992528, 25837584, 27902631},
	{FP32, 16, 64, 56, 56, 128, 1, 1, 2, 0}:     {0, 0, 19562640},
	{FP32, 16, 64, 56, 56, 128, 3, 3, 2, 1}:     {13139984, 19562643, 23167631},
	{FP32, 16, 64, 56, 56, 256, 1, 1, 1, 0}:     {0, 0, 1048576},
	{FP32, 16, 128, 28, 28, 128, 3, 3, 1, 1}:    {13434896, 13434896, 17564327},
	{FP32, 16, 128, 28, 28, 256, 1, 1, 2, 0}:    {9633808, 0, 10158303},
	{FP32, 16, 128, 28, 28, 256, 3, 3, 2, 1}:    {17629567, 10813456, 14352991},
	{FP32, 16, 128, 28, 28, 512, 1, 1, 1, 0}:    {0, 0, 4194304},
	{FP32, 16, 128, 56, 56, 128, 3, 3, 2, 1}:    {32702480, 32702611, 36831911},
	{FP32, 16, 256, 14, 14, 256, 3, 3, 1, 1}:    {8781840, 8781840, 15860319},
	{FP32, 16, 256, 14, 14, 512, 1, 1, 2, 0}:    {4816912, 4817043, 7438480},
	{FP32, 16, 256, 14, 14, 512, 3, 3, 2, 1}:    {9535504, 9535635, 9535504},
	{FP32, 16, 256, 14, 14, 1024, 1, 1, 1, 0}:   {400, 0, 16777216},
	{FP32, 16, 256, 28, 28, 256, 3, 3, 2, 1}:    {18415632, 18415763, 25494111},
	{FP32, 16, 256, 56, 56, 64, 1, 1, 1, 0}:     {0, 400, 1048576},
	{FP32, 16, 256, 56, 56, 128, 1, 1, 1, 0}:    {400, 400, 2097152},
	{FP32, 16, 256, 56, 56, 512, 1, 1, 2, 0}:    {51904528, 77070483, 80740496},
	{FP32, 16, 512, 7, 7, 512, 3, 3, 1, 1}:      {12648464, 12648464, 14221535},
	{FP32, 16, 512, 7, 7, 2048, 1, 1, 1, 0}:     {8028176, 8028176, 8028176},
	{FP32, 16, 512, 14, 14, 512, 3, 3, 2, 1}:    {17465360, 17465491, 19038431},
	{FP32, 16, 512, 28, 28, 128, 1, 1, 1, 0}:    {400, 400, 4194704},
	{FP32, 16, 512, 28, 28, 256, 1, 1, 1, 0}:    {400, 400, 8389008},
	{FP32, 16, 512, 28, 28, 1024, 1, 1, 2, 0}:   {38535184, 38535315, 42729903},
	{FP32, 16, 1024, 14, 14, 256, 1, 1, 1, 0}:   {400, 400, 16777216},
	{FP32, 16, 1024, 14, 14, 512, 1, 1, 1, 0}:   {0, 400, 33554432},
	{FP32, 16, 1024, 14, 14, 2048, 1, 1, 2, 0}:  {19267600, 19267731, 19267600},
	{FP32, 16, 2048, 7, 7, 512, 1, 1, 1, 0}:     {8028176, 8028176, 8028176},
	{FP32, 32, 3, 224, 224, 64, 7, 7, 2, 3}:     {122065680, 0, 134522000},
	{FP32, 32, 3, 224, 224, 768, 16, 16, 16, 0}: {0, 0, 48103568},
	{FP32, 32, 64, 56, 56, 64, 1, 1, 1, 0}:      {400, 400, 524288},
	{FP32, 32, 64, 56, 56, 64, 3, 3, 1, 1}:      {25837584, 51527696, 53592743},
	{FP32, 32, 64, 56, 56, 128, 1, 1, 2, 0}:     {0, 0, 41484432},
	{FP32, 32, 64, 56, 56, 128, 3, 3, 2, 1}:     {25985040, 38830227, 43090655},
	{FP32, 32, 64, 56, 56, 256, 1, 1, 1, 0}:     {0, 0, 2097152},
	{FP32, 32, 128, 28, 28, 128, 3, 3, 1, 1}:    {26279952, 26279952, 34538151},
	{FP32, 32, 128, 28, 28, 256, 1, 1, 2, 0}:    {19267600, 0, 20316447},
	{FP32, 32, 128, 28, 28, 256, 3, 3, 2, 1}:    {20447248, 20447379, 23986783},
	{FP32, 32, 128, 28, 28, 512, 1, 1, 1, 0}:    {0, 0, 8388608},
	{FP32, 32, 128, 56, 56, 128, 3, 3, 2, 1}:    {64815120, 64815251, 73073319},
	{FP32, 32, 256, 14, 14, 256, 3, 3, 1, 1}:    {15204368, 15204368, 22282847},
	{FP32, 32, 256, 14, 14, 512, 1, 1, 2, 0}:    {9633808, 9633939, 12255376},
	{FP32, 32, 256, 14, 14, 512, 3, 3, 2, 1}:    {21692815, 14352531, 14352400},
	{FP32, 32, 256, 14, 14, 1024, 1, 1, 1, 0}:   {400, 0, 33554432},
	{FP32, 32, 256, 28, 28, 256, 3, 3, 2, 1}:    {34471952, 34472083, 41550431},
	{FP32, 32, 256, 56, 56, 64, 1, 1, 1, 0}:     {400, 400, 2097152},
	{FP32, 32, 256, 56, 56, 128, 1, 1, 1, 0}:    {400, 400, 4194704},
	{FP32, 32, 256, 56, 56, 512, 1, 1, 2, 0}:    {103284752, 154140819, 162529935},
	{FP32, 32, 512, 7, 7, 512, 3, 3, 1, 1}:      {15859728, 15859728, 21365247},
	{FP32, 32, 512, 7, 7, 2048, 1, 1, 1, 0}:     {16056336, 16056336, 16056336},
	{FP32, 32, 512, 14, 14, 512, 3, 3, 2, 1}:    {32833935, 25493651, 30999039},
	{FP32, 32, 512, 28, 28, 128, 1, 1, 1, 0}:    {400, 400, 8388608},
	{FP32, 32, 512, 28, 28, 256, 1, 1, 1, 0}:    {400, 400, 16777216},
	{FP32, 32, 512, 28, 28, 1024, 1, 1, 2, 0}:   {77070483, 77070483, 81265071},
	{FP32, 32, 1024, 14, 14, 256, 1, 1, 1, 0}:   {400, 400, 33554432},
	{FP32, 32, 1024, 14, 14, 512, 1, 1, 1, 0}:   {0, 400, 46924335},
	{FP32, 32, 1024, 14, 14, 2048, 1, 1, 2, 0}:  {38535184, 38535315, 38535184},
	{FP32, 32, 2048, 7, 7, 512, 1, 1, 1, 0}:     {16056336, 16056336, 16056336},
	{FP32, 64, 3, 128, 128, 32, 3, 3, 1, 1}:     {0, 0, 0},
	{FP32, 64, 3, 224, 224, 64, 7, 7, 2, 3}:     {244093712, 0, 262972560},
	{FP32, 64, 3, 224, 224, 768, 16, 16, 16, 0}: {93061136, 0, 93061264},
	{FP32, 64, 32, 64, 64, 32, 3, 3, 1, 1}:      {67145875, 67145875, 71160983},
	{FP32, 64, 32, 64, 64, 64, 3, 3, 2, 1}:      {33628176, 50405523, 55345296},
	{FP32, 64, 64, 32, 32, 64, 3, 3, 1, 1}:      {33701904, 33701904, 35766951},
	{FP32, 64, 64, 56, 56, 64, 1, 1, 1, 0}:      {400, 400, 1048576},
	{FP32, 64, 64, 56, 56, 64, 3, 3, 1, 1}:      {102908051, 102908051, 104972967},
	{FP32, 64, 64, 56, 56, 128, 1, 1, 2, 0}:     {0, 0, 80576656},
	{FP32, 64, 64, 56, 56, 128, 3, 3, 2, 1}:     {51675152, 77365395, 81625823},
	{FP32, 64, 64, 56, 56, 256, 1, 1, 1, 0}:     {400, 0, 4194704},
	{FP32, 64, 128, 28, 28, 128, 3, 3, 1, 1}:    {51970195, 51970195, 60228263},
	{FP32, 64, 128, 28, 28, 256, 1, 1, 2, 0}:    {38535315, 0, 39977327},
	{FP32, 64, 128, 28, 28, 256, 3, 3, 2, 1}:    {48103855, 39714963, 43254367},
	{FP32, 64, 128, 28, 28, 512, 1, 1, 1, 0}:    {400, 0, 16777216},
	{FP32, 64, 128, 56, 56, 128, 3, 3, 2, 1}:    {129040531, 129040531, 137298599},
	{FP32, 64, 256, 14, 14, 256, 3, 3, 1, 1}:    {36438447, 28049424, 35127903},
	{FP32, 64, 256, 14, 14, 512, 1, 1, 2, 0}:    {19267600, 19267731, 21365007},
	{FP32, 64, 256, 14, 14, 512, 3, 3, 2, 1}:    {23986192, 23986323, 23986192},
	{FP32, 64, 256, 14, 14, 1024, 1, 1, 1, 0}:   {400, 400, 67108864},
	{FP32, 64, 256, 28, 28, 256, 3, 3, 2, 1}:    {74973615, 66584723, 73663071},
	{FP32, 64, 256, 56, 56, 64, 1, 1, 1, 0}:     {400, 400, 4194704},
	{FP32, 64, 256, 56, 56, 128, 1, 1, 1, 0}:    {400, 400, 8389008},
	{FP32, 64, 256, 56, 56, 512, 1, 1, 2, 0}:    {206045200, 308281491, 316670607},
	{FP32, 64, 512, 7, 7, 512, 3, 3, 1, 1}:      {22282256, 22282256, 30933743},
	{FP32, 64, 512, 7, 7, 2048, 1, 1, 1, 0}:     {32112656, 32112656, 32112656},
	{FP32, 64, 512, 14, 14, 512, 3, 3, 2, 1}:    {41549840, 41549971, 50201327},
	{FP32, 64, 512, 28, 28, 128, 1, 1, 1, 0}:    {400, 400, 16777216},
	{FP32, 64, 512, 28, 28, 256, 1, 1, 1, 0}:    {400, 400, 33554432},
	{FP32, 64, 512, 28, 28, 1024, 1, 1, 2, 0}:   {154140819, 154140819, 162529839},
	{FP32, 64, 1024, 14, 14, 256, 1, 1, 1, 0}:   {0, 400, 67108864},
	{FP32, 64, 1024, 14, 14, 512, 1, 1, 1, 0}:   {0, 400, 85459503},
	{FP32, 64, 1024, 14, 14, 2048, 1, 1, 2, 0}:  {77070483, 77070483, 77070352},
	{FP32, 64, 2048, 7, 7, 512, 1, 1, 1, 0}:     {32112656, 32112787, 40501679},
	{FP32, 128, 3, 224, 224, 64, 7, 7, 2, 3}:    {488149776, 0, 519873680},
	{FP32, 128, 64, 56, 56, 64, 1, 1, 1, 0}:     {0, 400, 2097552},
	{FP32, 128, 64, 56, 56, 64, 3, 3, 1, 1}:     {205668499, 205668499, 207733415},
	{FP32, 128, 64, 56, 56, 128, 1, 1, 2, 0}:    {0, 0, 156106896},
	{FP32, 128, 64, 56, 56, 128, 3, 3, 2, 1}:    {103055376, 154435731, 158696159},
	{FP32, 128, 64, 56, 56, 256, 1, 1, 1, 0}:    {400, 400, 8389008},
	{FP32, 128, 128, 28, 28, 128, 3, 3, 1, 1}:   {103350419, 103350419, 111608487},
	{FP32, 128, 128, 28, 28, 256, 1, 1, 2, 0}:   {77070483, 0, 80085551},
	{FP32, 128, 128, 28, 28, 256, 3, 3, 2, 1}:   {78250131, 78250131, 86508199},
	{FP32, 128, 128, 28, 28, 512, 1, 1, 1, 0}:   {400, 400, 33554832},
	{FP32, 128, 128, 56, 56, 128, 3, 3, 2, 1}:   {257491091, 257491091, 265749159},
	{FP32, 128, 256, 14, 14, 256, 3, 3, 1, 1}:   {53739667, 53739667, 60818015},
	{FP32, 128, 256, 14, 14, 512, 1, 1, 2, 0}:   {38535184, 38535315, 42729871},
	{FP32, 128, 256, 14, 14, 512, 3, 3, 2, 1}:   {43253776, 43253907, 43253776},
	{FP32, 128, 256, 14, 14, 1024, 1, 1, 1, 0}:  {400, 400, 136839791},
	{FP32, 128, 256, 28, 28, 256, 3, 3, 2, 1}:   {130810003, 130810003, 137888351},
	{FP32, 128, 256, 56, 56, 64, 1, 1, 1, 0}:    {0, 400, 8389008},
	{FP32, 128, 256, 56, 56, 128, 1, 1, 1, 0}:   {400, 400, 16777616},
	{FP32, 128, 256, 56, 56, 512, 1, 1, 2, 0}:   {411566096, 616562835, 624951951},
	{FP32, 128, 512, 7, 7, 512, 3, 3, 1, 1}:     {35127312, 35127312, 43778799},
	{FP32, 128, 512, 7, 7, 2048, 1, 1, 1, 0}:    {64225427, 64225296, 72614319},
	{FP32, 128, 512, 14, 14, 512, 3, 3, 2, 1}:   {73662480, 73662611, 82313967},
	{FP32, 128, 512, 28, 28, 128, 1, 1, 1, 0}:   {400, 400, 33554832},
	{FP32, 128, 512, 28, 28, 256, 1, 1, 1, 0}:   {400, 400, 67108864},
	{FP32, 128, 512, 28, 28, 1024, 1, 1, 2, 0}:  {308281491, 308281491, 316670511},
	{FP32, 128, 1024, 14, 14, 256, 1, 1, 1, 0}:  {400, 400, 136839791},
	{FP32, 128, 1024, 14, 14, 512, 1, 1, 1, 0}:  {400, 400, 162529839},
	{FP32, 128, 1024, 14, 14, 2048, 1, 1, 2, 0}: {154140819, 154140819, 154140688},
	{FP32, 128, 2048, 7, 7, 512, 1, 1, 1, 0}:    {64225296, 64225427, 72614319},
}
