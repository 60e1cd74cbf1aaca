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
	N, Cin, H, W, Cout, Ho, Wo, KH, KW, Stride, Groups int64
	DType                                              DType
}

// CuDNNConvWorkspace is the workspace PyTorch asks the caching allocator for
// around one cuDNN convolution call (at::native cudnn_convolution*: the v8
// API with heuristics, cudnn.benchmark off); it is freed when the call
// returns, so it shows only in peaks — and, since a backward-filter
// workspace that outgrows the freed backward-data one needs a new segment,
// in the reserved memory.
//
// cuDNN's heuristics pick the engine; which one cannot be derived from first
// principles, but its workspace follows from the engine class, and the class
// follows the geometry (measured on an H200 with cuDNN 9.19 over every conv
// of ResNet-18/34/50, a ViT patch embedding and a small convnet at batch 8 to
// 128, fp32 and bf16; each isolated call picked exactly the engine it picked
// inside the model):
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
// keep s extra fp32 copies of dW (s = 1 to 15 for ResNet shapes, chosen by
// the heuristics: 1–30 MiB); some strided forward engines need only x + w;
// a few 1×1 stride-2 and 3-channel convs need no workspace at all. Summed
// over the measurements the rule is off by 8–20 % of the workspace bytes.
func CuDNNConvWorkspace(pass ConvPass, g ConvGeometry) int64 {
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
	geo := ConvGeometry{N: xs[0], Cin: xs[1], H: xs[2], W: xs[3], Cout: ws[0], Ho: h, Wo: wd, KH: kh, KW: kw, Stride: a.Stride, Groups: a.Groups, DType: dt}
	inputGrad := b.Train() && b.T(x).RequiresGrad
	xv := x
	if inputGrad {
		xv = b.Emit(OpSpec{Kind: "conv2d_input", Name: name + ".input", Inputs: []TensorID{x}, Outputs: []TensorSpec{TS("out", dt, xs...)}, AliasOut: []int{0}, Flow: GradPassThrough})[0]
	}
	in := []TensorID{x}
	var params []TensorID
	for _, p := range []TensorID{w, bias} {
		if p == NoTensor {
			continue
		}
		if b.g.Tensors[p].Role == RoleParameter {
			params = append(params, p)
		} else {
			in = append(in, p)
		}
	}
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

// LinearAutocast is nn.Linear as the autocast wrapper runs it: the cached
// casts of bias and weight, then the input cast (C++ evaluates the wrapper's
// arguments right to left), then the GEMM. Without autocast it is Linear.
func (b *Builder) LinearAutocast(name string, x, w, bias TensorID) TensorID {
	if _, ok := b.autocastDType(); !ok {
		return b.Linear(name, x, w, bias)
	}
	if bias != NoTensor {
		bias = b.matmulIn(bias, "")
	}
	w = b.matmulIn(w, "")
	return b.gemm(name, x, w, bias, b.Shape(w)[0])
}

// EmbeddingLookup is F.embedding as PyTorch 2.11 runs it on CUDA. With
// contiguousIndex the indices are an expanded view (BERT's token_type_ids):
// index_select reshapes them into a contiguous int64 copy, in forward and
// again in backward. embedding_dense_backward sorts the indices (two int64
// copies) only above 3072 indices; below, a direct kernel needs none.
func (b *Builder) EmbeddingLookup(name string, idx, w TensorID, contiguousIndex bool) TensorID {
	shape := append(b.Shape(idx), b.Shape(w)[1])
	n := b.T(idx).Numel()
	s := OpSpec{Kind: "embedding", Name: name, Inputs: []TensorID{idx}, Params: []TensorID{w}, NoGradInputs: []int{0},
		Outputs: []TensorSpec{TS("out", b.DType(w), shape...)}, Saved: []TensorID{idx}}
	if contiguousIndex {
		s.Temps = []TensorSpec{TS("index_contiguous", Int64, n)}
		s.BackwardTemps = []TensorSpec{TS("index_contiguous", Int64, n)}
	}
	if n > 3072 {
		s.BackwardTemps = append(s.BackwardTemps, TS("sorted_indices", Int64, n), TS("orig_indices", Int64, n))
	}
	return b.Emit(s)[0]
}

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

// CrossEntropyAutocast is F.cross_entropy(logits, target) on low-precision
// logits under autocast: log_softmax runs in the logits' dtype (its output
// saved), the result is cast to fp32 for nll_loss (autocast's fp32 list),
// which saves that copy, the target and total_weight. Measured in BERT under
// autocast. Without autocast, or with fp32 logits, it is CrossEntropy.
func (b *Builder) CrossEntropyAutocast(name string, logits, target TensorID) TensorID {
	if _, ok := b.autocastDType(); !ok || b.DType(logits) == FP32 {
		return b.CrossEntropy(name, logits, target)
	}
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
