package spec

// Catalog ops for the vision families (torchvision ResNets, ViT) and the HF
// encoders (BERT, ViT): cuDNN convolution workspaces, in-place residual adds,
// global average pooling, the encoder SDPA kernels as PyTorch 2.11 runs them
// on sm90, autocast-ordered linears and cross entropy. Each function's
// comment says what PyTorch executes and what was measured on an H200
// (torch 2.11.0+cu130, cuDNN 9.19, transformers 5.17, torchvision 0.26).

import (
	"fmt"
	"math"
	"slices"
)

// ConvPass is one of the three cuDNN convolution calls of a Conv2d.
type ConvPass int

// The passes: forward, backward data (the input gradient) and backward
// filter (the weight gradient).
const (
	ConvForward ConvPass = iota
	ConvBackwardData
	ConvBackwardFilter
)

func (p ConvPass) String() string {
	switch p {
	case ConvForward:
		return "forward"
	case ConvBackwardData:
		return "backward-data"
	case ConvBackwardFilter:
		return "backward-filter"
	}
	return fmt.Sprintf("ConvPass(%d)", int(p))
}

// ConvTableBatches are the batch sizes the built-in table holds for every
// geometry, which `memplan calibrate --convs` measures too: between them a
// workspace is interpolated.
func ConvTableBatches() []int64 { return measuredConvBatches[:] }

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
// conv of ResNet-18/34/50/101/152 at 224×224, the ViT-B/16 patch embedding
// and a small convnet, at 14 batch sizes from 1 to 256, in fp32, bf16 and
// fp16: probe/measure_conv_workspaces.py) the measured sizes are used
// (measuredConvWorkspaces): each isolated call picked exactly the engine it
// picked inside the model. A measured geometry at another batch size is
// interpolated between the measured batches around it (convTable.interpolate:
// a workspace is affine in the batch while the engine holds). Elsewhere a
// rule follows the engine class, which follows the geometry:
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
//   - A transposing engine asks for 16 bytes beyond its operands
//     (transposeEngineExtra).
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
	v, _ := builtinConvWorkspace(pass, g)
	return v
}

// ConvWorkspaceSource says where a convolution's workspace size came from.
type ConvWorkspaceSource int

const (
	// ConvFromProfile: measured on the target GPU (its profile's table,
	// from `memplan calibrate --convs`), or interpolated between batches
	// measured there.
	ConvFromProfile ConvWorkspaceSource = iota
	// ConvFromH200Table: the built-in table measured on an H200
	// (measuredConvWorkspaces), or interpolated in it.
	ConvFromH200Table
	// ConvFromRule: the engine-class rule (convWorkspaceRule).
	ConvFromRule
)

func (s ConvWorkspaceSource) String() string {
	switch s {
	case ConvFromProfile:
		return "measured on this GPU"
	case ConvFromH200Table:
		return "the built-in H200 table"
	case ConvFromRule:
		return "the engine-class rule"
	}
	return fmt.Sprintf("ConvWorkspaceSource(%d)", int(s))
}

// builtinConvWorkspace sizes a workspace from the built-in H200
// measurements (exact, then interpolated in the batch), else the rule.
func builtinConvWorkspace(pass ConvPass, g ConvGeometry) (int64, ConvWorkspaceSource) {
	key := keyOf(g)
	if v, ok := measuredConvWorkspaces[key]; ok {
		return v[pass], ConvFromH200Table
	}
	if v, ok := tracedConvForwardWorkspaces[key]; ok && pass == ConvForward {
		return v, ConvFromH200Table
	}
	if v, ok := measuredConvWorkspaces.interpolate(pass, key); ok {
		return v, ConvFromH200Table
	}
	return convWorkspaceRule(pass, g), ConvFromRule
}

// ConvWorkspaceTable holds the cuDNN workspaces measured on one GPU type
// (`memplan calibrate --convs`), by geometry: forward, backward-data and
// backward-filter bytes as PyTorch asks the caching allocator for them. A
// GPU profile carries one; the expansion consults it before the built-in
// H200 table and the rule, and interpolates it between measured batches
// as it does the built-in table.
type ConvWorkspaceTable struct{ t convTable }

// Set records the three workspaces of a geometry.
func (t *ConvWorkspaceTable) Set(g ConvGeometry, ws [3]int64) {
	if t.t == nil {
		t.t = convTable{}
	}
	t.t[keyOf(g)] = ws
}

// Len is how many geometries the table holds.
func (t *ConvWorkspaceTable) Len() int {
	if t == nil {
		return 0
	}
	return len(t.t)
}

// lookup sizes a workspace from the table: the geometry as measured, or
// interpolated between measured batches.
func (t *ConvWorkspaceTable) lookup(pass ConvPass, g ConvGeometry) (int64, bool) {
	if t.Len() == 0 {
		return 0, false
	}
	key := keyOf(g)
	if v, ok := t.t[key]; ok {
		return v[pass], true
	}
	return t.t.interpolate(pass, key)
}

// ConvWorkspace sizes a workspace for the target GPU: its profile's table
// first (Training.ConvWorkspaces), then the built-in H200 table, then the
// rule; the source is noted on the graph (Graph.Convs).
func (b *Builder) ConvWorkspace(pass ConvPass, g ConvGeometry) int64 {
	v, src := int64(0), ConvFromProfile
	if w, ok := b.t.ConvWorkspaces.lookup(pass, g); ok {
		v = w
	} else {
		v, src = builtinConvWorkspace(pass, g)
	}
	b.g.noteConv(g, src)
	return v
}

// convWorkspaceRule sizes a workspace by the engine class the geometry
// implies (see CuDNNConvWorkspace).
func convWorkspaceRule(pass ConvPass, g ConvGeometry) int64 {
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
			return x + y + w + transposeEngineExtra
		}
		return x + y + transposeEngineExtra
	default:
		if pointwise {
			return min(g.N*g.Cout*(g.Cin/groups)*4, x+y+w+transposeEngineExtra)
		}
		return x + y + w + transposeEngineExtra
	}
}

// transposeEngineExtra is what a transposing engine's workspace holds
// beyond its operands: in every measured workspace the operand sum
// explains (779 forward and backward-data, 160 backward-filter), the
// request was the sum plus 16 bytes — never the sum alone.
const transposeEngineExtra = 16

// measuredConvBatches are the batch sizes measuredConvWorkspaces holds for
// every geometry it holds.
var measuredConvBatches = [...]int64{1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256}

// interpolate sizes the workspace of a measured geometry at a batch size
// the table lacks. For one engine a workspace is affine in
// the batch (operands transposed per image plus a fixed part), and the
// heuristics keep the engine over ranges of batch sizes: between two
// measured batches the workspace is interpolated (leaving each measured
// batch out in turn and interpolating it from its neighbours reproduces
// 80% of the 2,617 workspaces above 1 MiB to the byte and 87% within 5%,
// where the rule gets 74% within 5%). Above the largest measured batch the
// line through the last two is extended only when the last three lie on it
// (the same engine over that range); otherwise the rule sizes it.
func (t convTable) interpolate(pass ConvPass, key convKey) (int64, bool) {
	at := func(n int64) (float64, bool) {
		k := key
		k.n = n
		v, ok := t[k]
		return float64(v[pass]), ok
	}
	bs := measuredConvBatches[:]
	i, found := slices.BinarySearch(bs, key.n)
	lo, hi := i-1, i
	if found {
		hi++
	}
	if hi == len(bs) {
		lo, hi = i-2, i-1
		a, okA := at(bs[i-3])
		b, okB := at(bs[lo])
		c, okC := at(bs[hi])
		if !okA || !okB || !okC || math.Abs((c-b)*float64(bs[lo]-bs[i-3])-(b-a)*float64(bs[hi]-bs[lo])) > 512*float64(bs[hi]-bs[i-3]) {
			return 0, false
		}
	}
	if lo < 0 {
		return 0, false
	}
	a, okA := at(bs[lo])
	b, okB := at(bs[hi])
	if !okA || !okB {
		return 0, false
	}
	v := a + (b-a)*float64(key.n-bs[lo])/float64(bs[hi]-bs[lo])
	return max(0, int64(math.Round(v))), true
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
	if fwd := b.ConvWorkspace(ConvForward, geo); fwd > 0 {
		s.Temps = []TensorSpec{TS("cudnn_workspace", UInt8, fwd)}
	}
	if o.GradOutputCopy {
		// made before the weight's gradient (measured)
		s.BackwardTemps = append(s.BackwardTemps, TS("grad_output_contiguous", dt, xs[0], ws[0], h, wd))
		s.BackwardTempsFirst = 1
	}
	if filter := b.ConvWorkspace(ConvBackwardFilter, geo); filter > 0 {
		s.BackwardTemps = append(s.BackwardTemps, TS("cudnn_workspace_filter", UInt8, filter))
	}
	if bias != NoTensor && b.T(bias).RequiresGrad {
		// The bias gradient, grad_output.sum((0, 2, 3)), comes after the
		// weight pass has freed its buffers, with a sum's staging buffer
		// (measured on ViT's patch embedding: SumStaging(N·Ho·Wo, Cout)).
		red := stagingTemps(xs[0]*h*wd, ws[0])
		s.BackwardTemps = append(s.BackwardTemps, red...)
		s.ReduceTemps, s.ReduceAfterTemps = len(red), true
	}
	y := b.Emit(s)[0]
	if !inputGrad {
		return y
	}
	ig := OpSpec{Kind: "conv2d_input_grad", Name: name + ".input_grad", Inputs: []TensorID{xv, y}, NoGradInputs: []int{1},
		Outputs: []TensorSpec{TS("out", dt, b.Shape(y)...)}, AliasOut: []int{1}}
	if data := b.ConvWorkspace(ConvBackwardData, geo); data > 0 {
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
// (ViT's [CLS] token): a new tensor in the promoted dtype; the gradient of x
// is a slice of the incoming one (no memory) — cast by the engine to x's
// dtype, a new tensor, when the cat promoted it — and p's gradient a new
// reduced tensor.
func (b *Builder) CatParam(name string, p, x TensorID, dim int) TensorID {
	shape := b.Shape(x)
	shape[dim] += b.Shape(p)[dim]
	dt := promote(b.DType(x), b.DType(p))
	out := b.Emit(OpSpec{Kind: "cat", Name: name, Inputs: []TensorID{x}, Params: []TensorID{p}, Outputs: []TensorSpec{TS("out", dt, shape...)}, Flow: GradPassThrough})[0]
	if b.err == nil && b.DType(x) != dt && b.T(x).RequiresGrad {
		op := &b.g.Ops[len(b.g.Ops)-1]
		if len(op.GradInputs) > 0 {
			t := b.g.Tensors[x]
			op.GradInputs[0] = b.newTensor(b.join("grad(", t.Name, ")"), t.Shape, t.DType, RoleActivationGradient)
			b.g.Tensors[op.GradInputs[0]].Op = len(b.g.Ops) - 1
		}
	}
	return out
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
//     stays on the CPU. Backward: dq, dk, dv, then delta and the kernel's
//     workspace (efficientBackwardTemps) — measured at S = 128 and 197.
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
	spec := OpSpec{Name: name, Inputs: []TensorID{q, k, v}, ExtraAfterOutputs: true,
		Outputs: []TensorSpec{TS("out", dt, bsz, heads, s, d)},
		Saved:   []TensorID{q, k, v}, SaveOut: []int{0}}
	bhs4 := bsz * heads * s * 4
	switch PickSDPA(dt, false) {
	case SDPAEfficient:
		spec.Kind = "sdpa_efficient"
		spec.Extra = []TensorSpec{TS("logsumexp", FP32, bsz, heads, (s+31)/32*32)}
		spec.SaveExtra = []int{0}
		spec.BackwardTemps, spec.BackwardTempsFreedBy = efficientBackwardTemps(bsz, heads, s, d)
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
	dt                                              DType
	n, cin, h, w, cout, kh, kw, stride, pad, groups int64
}

// keyOf is the table key of a geometry (Ho and Wo follow from the rest).
func keyOf(g ConvGeometry) convKey {
	return convKey{g.DType, g.N, g.Cin, g.H, g.W, g.Cout, g.KH, g.KW, g.Stride, g.Pad, max(g.Groups, 1)}
}

// convTable holds measured workspaces (forward, backward-data,
// backward-filter; bytes requested) by geometry.
type convTable map[convKey][3]int64

// tracedConvForwardWorkspaces are forward workspaces read from the
// allocator traces of measured inference runs (testdata/measured/h200),
// for geometries measuredConvWorkspaces does not hold.
var tracedConvForwardWorkspaces = map[convKey]int64{
	{FP32, 512, 3, 224, 224, 768, 16, 16, 16, 0, 1}: 414187536, // vit-fp32-infer-b512
}

// measuredConvWorkspaces are the workspaces (forward, backward-data,
// backward-filter; bytes requested) cuDNN 9.19 asked for on an H200 with
// torch 2.11, one isolated call per geometry: the 34 convolution shapes of
// ResNet-18/34/50/101/152, the ViT-B/16 patch embedding and the bundled
// small convnet, each at batch 1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128,
// 192 and 256, in fp32, bf16 and fp16 (backward-data is 0 where the
// input needs no gradient; probe/measure_conv_workspaces.py, which
// reproduces every bf16 entry). bf16 entries hold for autocast and pure
// bf16, fp16 ones for amp-fp16 and pure fp16: cuDNN's heuristics pick other
// engines for fp16 in 27 of the 148 geometries (the stem among them: at
// batch 128 its forward takes 245 MiB in fp16, 294 MiB in bf16).
var measuredConvWorkspaces = convTable{
	{BF16, 4, 3, 224, 224, 768, 16, 16, 16, 0, 1}:   {7561232, 0, 7561232},
	{BF16, 8, 3, 224, 224, 64, 7, 7, 2, 3, 1}:       {19317776, 0, 25138320},
	{BF16, 8, 64, 56, 56, 64, 1, 1, 1, 0, 1}:        {0, 0, 131072},
	{BF16, 8, 64, 56, 56, 64, 3, 3, 1, 1, 1}:        {6496272, 6496272, 8413863},
	{BF16, 8, 64, 56, 56, 128, 1, 1, 2, 0, 1}:       {4816912, 4816912, 5832848},
	{BF16, 8, 64, 56, 56, 128, 3, 3, 2, 1, 1}:       {4964368, 4964499, 4964368},
	{BF16, 8, 64, 56, 56, 256, 1, 1, 1, 0, 1}:       {0, 272, 524288},
	{BF16, 8, 128, 28, 28, 128, 3, 3, 1, 1, 1}:      {3506192, 3506192, 3506192},
	{BF16, 8, 128, 28, 28, 256, 1, 1, 2, 0, 1}:      {2408464, 2408464, 2408464},
	{BF16, 8, 128, 28, 28, 256, 3, 3, 2, 1, 1}:      {2998288, 2998419, 2998288},
	{BF16, 8, 128, 28, 28, 512, 1, 1, 1, 0, 1}:      {0, 0, 2097152},
	{BF16, 8, 128, 56, 56, 128, 3, 3, 2, 1, 1}:      {8323088, 8323219, 8323088},
	{BF16, 8, 256, 14, 14, 256, 3, 3, 1, 1, 1}:      {2785296, 2785296, 2785296},
	{BF16, 8, 256, 14, 14, 512, 1, 1, 2, 0, 1}:      {1204240, 1204240, 1204240},
	{BF16, 8, 256, 14, 14, 512, 3, 3, 2, 1, 1}:      {3563536, 3563536, 3563536},
	{BF16, 8, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:     {0, 0, 8388608},
	{BF16, 8, 256, 28, 28, 256, 3, 3, 2, 1, 1}:      {5193744, 5193875, 5193744},
	{BF16, 8, 256, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 0, 524288},
	{BF16, 8, 256, 56, 56, 128, 1, 1, 1, 0, 1}:      {0, 0, 1048576},
	{BF16, 8, 256, 56, 56, 512, 1, 1, 2, 0, 1}:      {19267600, 19267731, 19267600},
	{BF16, 8, 512, 7, 7, 512, 3, 3, 1, 1, 1}:        {5521424, 5521424, 5521424},
	{BF16, 8, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:       {2007056, 2007056, 2007056},
	{BF16, 8, 512, 14, 14, 512, 3, 3, 2, 1, 1}:      {6725648, 6725648, 6725648},
	{BF16, 8, 512, 28, 28, 128, 1, 1, 1, 0, 1}:      {0, 0, 2097152},
	{BF16, 8, 512, 28, 28, 256, 1, 1, 1, 0, 1}:      {0, 0, 4194304},
	{BF16, 8, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:     {9633808, 9633939, 9633808},
	{BF16, 8, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:     {0, 0, 4014096},
	{BF16, 8, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:     {0, 0, 4816912},
	{BF16, 8, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:    {4816912, 4817043, 4816912},
	{BF16, 8, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:       {2007056, 2007056, 2007056},
	{BF16, 16, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {38585360, 0, 44606608},
	{BF16, 16, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 0, 262144},
	{BF16, 16, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {12918800, 12918800, 14836391},
	{BF16, 16, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {9633808, 9633939, 10649744},
	{BF16, 16, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {9781264, 9781395, 9781264},
	{BF16, 16, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {0, 0, 1048576},
	{BF16, 16, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {6717456, 6717456, 6717456},
	{BF16, 16, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {4816912, 4817043, 4816912},
	{BF16, 16, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {5406736, 5406867, 5406736},
	{BF16, 16, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {0, 0, 4194304},
	{BF16, 16, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {16351248, 16351379, 16351248},
	{BF16, 16, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {4390928, 4390928, 4390928},
	{BF16, 16, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {2408464, 2408464, 2408464},
	{BF16, 16, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {4767760, 4767891, 4767760},
	{BF16, 16, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {0, 0, 8028176},
	{BF16, 16, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {9207824, 9207955, 9207824},
	{BF16, 16, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 0, 1048576},
	{BF16, 16, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {0, 0, 2097152},
	{BF16, 16, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {38535315, 38535315, 38535184},
	{BF16, 16, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {6324240, 6324240, 6324240},
	{BF16, 16, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {4014096, 4014096, 4014096},
	{BF16, 16, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {8732688, 8732819, 8732688},
	{BF16, 16, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {0, 0, 4194304},
	{BF16, 16, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {0, 0, 8388608},
	{BF16, 16, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {19267600, 19267731, 19267600},
	{BF16, 16, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {0, 0, 16777216},
	{BF16, 16, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {0, 0, 9633808},
	{BF16, 16, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {9633808, 9633939, 9633808},
	{BF16, 16, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {4014096, 4014096, 4014096},
	{BF16, 32, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {77120528, 0, 83242128},
	{BF16, 32, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {38469648, 0, 57344144},
	{BF16, 32, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {272, 0, 524288},
	{BF16, 32, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {25763987, 25763987, 27681447},
	{BF16, 32, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {256, 19267731, 20021392},
	{BF16, 32, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {19415187, 19415187, 23249575},
	{BF16, 32, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {0, 0, 2097152},
	{BF16, 32, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {13139984, 13139984, 15499655},
	{BF16, 32, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {9633808, 9633939, 9633808},
	{BF16, 32, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {10223632, 10223763, 10223632},
	{BF16, 32, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {0, 272, 8388608},
	{BF16, 32, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {32407568, 32407699, 34767239},
	{BF16, 32, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {7602192, 7602192, 7602192},
	{BF16, 32, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {4816912, 4816912, 4816912},
	{BF16, 32, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {7176339, 7176339, 7176208},
	{BF16, 32, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {0, 0, 16056336},
	{BF16, 32, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {17235984, 17236115, 17235984},
	{BF16, 32, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 0, 2097152},
	{BF16, 32, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {0, 0, 4194304},
	{BF16, 32, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {77070483, 77070483, 78119215},
	{BF16, 32, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {7929872, 7929872, 7930003},
	{BF16, 32, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {8028176, 8028176, 8028176},
	{BF16, 32, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {12746768, 12746899, 12746899},
	{BF16, 32, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {0, 0, 8388608},
	{BF16, 32, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {0, 0, 16777216},
	{BF16, 32, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {38535315, 38535315, 38535184},
	{BF16, 32, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {0, 0, 16056336},
	{BF16, 32, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {0, 0, 19267600},
	{BF16, 32, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {19267600, 19267731, 19267600},
	{BF16, 32, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {8028176, 8028176, 8028176},
	{BF16, 64, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {154190864, 0, 160312464},
	{BF16, 64, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {73793552, 0, 92668048},
	{BF16, 64, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 0, 1048576},
	{BF16, 64, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {51454099, 51454099, 53371559},
	{BF16, 64, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {256, 38535315, 42369168},
	{BF16, 64, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {38682771, 38682771, 42517159},
	{BF16, 64, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {272, 0, 4194576},
	{BF16, 64, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {25985171, 25985171, 28344711},
	{BF16, 64, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {19267600, 19267731, 23068816},
	{BF16, 64, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {19857424, 19857555, 19857424},
	{BF16, 64, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {0, 0, 16777216},
	{BF16, 64, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {64520339, 64520339, 66879879},
	{BF16, 64, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {14024720, 14024720, 14024720},
	{BF16, 64, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {9633808, 9633939, 9633808},
	{BF16, 64, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {11993235, 11993235, 11993104},
	{BF16, 64, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {0, 0, 34210095},
	{BF16, 64, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {33292304, 33292435, 33292304},
	{BF16, 64, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 272, 4194304},
	{BF16, 64, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {272, 272, 8388880},
	{BF16, 64, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {154140819, 154140819, 155714095},
	{BF16, 64, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {11141136, 11141136, 11141267},
	{BF16, 64, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {16056467, 16056336, 16056336},
	{BF16, 64, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {20774928, 20775059, 20775059},
	{BF16, 64, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {0, 0, 16777216},
	{BF16, 64, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {0, 0, 33554432},
	{BF16, 64, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {77070483, 77070483, 77070352},
	{BF16, 64, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {0, 0, 34210095},
	{BF16, 64, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {38535315, 38535315, 38535184},
	{BF16, 64, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {38535315, 38535315, 38535184},
	{BF16, 64, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {16056336, 16056467, 16056336},
	{BF16, 128, 3, 224, 224, 64, 7, 7, 2, 3, 1}:     {308331536, 0, 314453136},
	{BF16, 128, 64, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 0, 2097152},
	{BF16, 128, 64, 56, 56, 64, 3, 3, 1, 1, 1}:      {102834323, 102834323, 104751783},
	{BF16, 128, 64, 56, 56, 128, 1, 1, 2, 0, 1}:     {256, 77070483, 78643711},
	{BF16, 128, 64, 56, 56, 128, 3, 3, 2, 1, 1}:     {77217939, 77217939, 81052327},
	{BF16, 128, 64, 56, 56, 256, 1, 1, 1, 0, 1}:     {272, 272, 8388608},
	{BF16, 128, 128, 28, 28, 128, 3, 3, 1, 1, 1}:    {51675283, 51675283, 59343527},
	{BF16, 128, 128, 28, 28, 256, 1, 1, 2, 0, 1}:    {38535315, 38535315, 42467983},
	{BF16, 128, 128, 28, 28, 256, 3, 3, 2, 1, 1}:    {39125139, 39125139, 41746767},
	{BF16, 128, 128, 28, 28, 512, 1, 1, 1, 0, 1}:    {0, 0, 33554432},
	{BF16, 128, 128, 56, 56, 128, 3, 3, 2, 1, 1}:    {128745619, 128745619, 136413863},
	{BF16, 128, 256, 14, 14, 256, 3, 3, 1, 1, 1}:    {26869907, 26869907, 33948255},
	{BF16, 128, 256, 14, 14, 512, 1, 1, 2, 0, 1}:    {19267600, 19267731, 19267600},
	{BF16, 128, 256, 14, 14, 512, 3, 3, 2, 1, 1}:    {21626896, 21627027, 24904055},
	{BF16, 128, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:   {0, 0, 66322735},
	{BF16, 128, 256, 28, 28, 256, 3, 3, 2, 1, 1}:    {65405075, 65405075, 72483423},
	{BF16, 128, 256, 56, 56, 64, 1, 1, 1, 0, 1}:     {0, 272, 8388880},
	{BF16, 128, 256, 56, 56, 128, 1, 1, 1, 0, 1}:    {272, 272, 16777216},
	{BF16, 128, 256, 56, 56, 512, 1, 1, 2, 0, 1}:    {308281491, 308281491, 311951983},
	{BF16, 128, 512, 7, 7, 512, 3, 3, 1, 1, 1}:      {25952687, 17563664, 20709647},
	{BF16, 128, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:     {32112787, 32112656, 32112656},
	{BF16, 128, 512, 14, 14, 512, 3, 3, 2, 1, 1}:    {36831248, 36831379, 39977231},
	{BF16, 128, 512, 28, 28, 128, 1, 1, 1, 0, 1}:    {272, 0, 33554432},
	{BF16, 128, 512, 28, 28, 256, 1, 1, 1, 0, 1}:    {272, 0, 67108864},
	{BF16, 128, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:   {154140819, 154140819, 160432687},
	{BF16, 128, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:   {0, 0, 66322735},
	{BF16, 128, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:   {77070483, 77070483, 83362351},
	{BF16, 128, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:  {77070483, 77070483, 77070352},
	{BF16, 128, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:     {32112656, 32112787, 32637135},
	{FP16, 4, 3, 224, 224, 768, 16, 16, 16, 0, 1}:   {7561232, 0, 7561232},
	{FP16, 8, 3, 224, 224, 64, 7, 7, 2, 3, 1}:       {16081424, 0, 25138320},
	{FP16, 8, 64, 56, 56, 64, 1, 1, 1, 0, 1}:        {0, 0, 131072},
	{FP16, 8, 64, 56, 56, 64, 3, 3, 1, 1, 1}:        {6496272, 6496272, 8413863},
	{FP16, 8, 64, 56, 56, 128, 1, 1, 2, 0, 1}:       {4816912, 4816912, 5832848},
	{FP16, 8, 64, 56, 56, 128, 3, 3, 2, 1, 1}:       {4964368, 4964499, 4964368},
	{FP16, 8, 64, 56, 56, 256, 1, 1, 1, 0, 1}:       {0, 272, 524288},
	{FP16, 8, 128, 28, 28, 128, 3, 3, 1, 1, 1}:      {3506192, 3506192, 3506192},
	{FP16, 8, 128, 28, 28, 256, 1, 1, 2, 0, 1}:      {2408464, 2408464, 2408464},
	{FP16, 8, 128, 28, 28, 256, 3, 3, 2, 1, 1}:      {2998288, 2998419, 2998288},
	{FP16, 8, 128, 28, 28, 512, 1, 1, 1, 0, 1}:      {0, 0, 2097152},
	{FP16, 8, 128, 56, 56, 128, 3, 3, 2, 1, 1}:      {8323088, 8323219, 8323088},
	{FP16, 8, 256, 14, 14, 256, 3, 3, 1, 1, 1}:      {2785296, 2785296, 2785296},
	{FP16, 8, 256, 14, 14, 512, 1, 1, 2, 0, 1}:      {1204240, 1204240, 1204240},
	{FP16, 8, 256, 14, 14, 512, 3, 3, 2, 1, 1}:      {3563536, 3563536, 3563536},
	{FP16, 8, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:     {0, 0, 8388608},
	{FP16, 8, 256, 28, 28, 256, 3, 3, 2, 1, 1}:      {5193744, 5193875, 5193744},
	{FP16, 8, 256, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 0, 524288},
	{FP16, 8, 256, 56, 56, 128, 1, 1, 1, 0, 1}:      {0, 0, 1048576},
	{FP16, 8, 256, 56, 56, 512, 1, 1, 2, 0, 1}:      {19267600, 19267731, 19267600},
	{FP16, 8, 512, 7, 7, 512, 3, 3, 1, 1, 1}:        {5521424, 5521424, 5521424},
	{FP16, 8, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:       {2007056, 2007056, 2007056},
	{FP16, 8, 512, 14, 14, 512, 3, 3, 2, 1, 1}:      {6725648, 6725648, 6725648},
	{FP16, 8, 512, 28, 28, 128, 1, 1, 1, 0, 1}:      {0, 0, 2097152},
	{FP16, 8, 512, 28, 28, 256, 1, 1, 1, 0, 1}:      {0, 0, 4194304},
	{FP16, 8, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:     {9633808, 9633939, 9633808},
	{FP16, 8, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:     {0, 0, 4014096},
	{FP16, 8, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:     {0, 0, 4816912},
	{FP16, 8, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:    {4816912, 4817043, 4816912},
	{FP16, 8, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:       {2007056, 2007056, 2007056},
	{FP16, 16, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {32137744, 0, 32338831},
	{FP16, 16, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 0, 262144},
	{FP16, 16, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {12918800, 12918800, 14836391},
	{FP16, 16, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {9633808, 9633939, 10649744},
	{FP16, 16, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {9781264, 9781395, 11354575},
	{FP16, 16, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {0, 0, 1048576},
	{FP16, 16, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {6717456, 6717456, 8487519},
	{FP16, 16, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {4816912, 4817043, 4816912},
	{FP16, 16, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {5406736, 5406867, 5406736},
	{FP16, 16, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {0, 0, 4194304},
	{FP16, 16, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {16351248, 16351379, 18317967},
	{FP16, 16, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {4390928, 4390928, 4390928},
	{FP16, 16, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {2408464, 2408464, 2408464},
	{FP16, 16, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {4767760, 4767891, 8044919},
	{FP16, 16, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {0, 0, 8028176},
	{FP16, 16, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {9207824, 9207955, 9207824},
	{FP16, 16, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 0, 1048576},
	{FP16, 16, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {0, 0, 2097152},
	{FP16, 16, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {38535315, 38535315, 40108591},
	{FP16, 16, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {6324240, 6324240, 6324240},
	{FP16, 16, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {4014096, 4014096, 4014096},
	{FP16, 16, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {8732688, 8732819, 8732688},
	{FP16, 16, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {0, 0, 4194304},
	{FP16, 16, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {0, 0, 8388608},
	{FP16, 16, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {19267600, 19267731, 19267600},
	{FP16, 16, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {0, 0, 16777216},
	{FP16, 16, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {0, 0, 9633808},
	{FP16, 16, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {9633808, 9633939, 9633808},
	{FP16, 16, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {4014096, 4014096, 4014096},
	{FP16, 32, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {64250384, 0, 64451471},
	{FP16, 32, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {38469648, 0, 57344144},
	{FP16, 32, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {272, 0, 524288},
	{FP16, 32, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {25763987, 25763987, 27681447},
	{FP16, 32, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {256, 19267731, 20021392},
	{FP16, 32, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {19415187, 19415187, 23249575},
	{FP16, 32, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {0, 0, 2097152},
	{FP16, 32, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {13139984, 13139984, 16679519},
	{FP16, 32, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {9633808, 9633939, 9633808},
	{FP16, 32, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {10223632, 10223763, 10223632},
	{FP16, 32, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {0, 272, 8388608},
	{FP16, 32, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {32407568, 32407699, 35947103},
	{FP16, 32, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {7602192, 7602192, 7602192},
	{FP16, 32, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {4816912, 4816912, 4816912},
	{FP16, 32, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {7176339, 7176339, 10453367},
	{FP16, 32, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {0, 0, 16056336},
	{FP16, 32, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {17235984, 17236115, 17235984},
	{FP16, 32, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 0, 2097152},
	{FP16, 32, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {0, 0, 4194304},
	{FP16, 32, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {77070483, 77070483, 78643759},
	{FP16, 32, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {7929872, 7929872, 7930003},
	{FP16, 32, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {8028176, 8028176, 8028176},
	{FP16, 32, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {12746768, 12746899, 12746899},
	{FP16, 32, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {0, 0, 8388608},
	{FP16, 32, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {0, 0, 16777216},
	{FP16, 32, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {38535315, 38535315, 38535184},
	{FP16, 32, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {0, 0, 16056336},
	{FP16, 32, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {0, 0, 19267600},
	{FP16, 32, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {19267600, 19267731, 19267600},
	{FP16, 32, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {8028176, 8028176, 8028176},
	{FP16, 64, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {128475664, 0, 128877679},
	{FP16, 64, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {73793552, 0, 92668048},
	{FP16, 64, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 0, 1048576},
	{FP16, 64, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {51454099, 51454099, 53371559},
	{FP16, 64, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {256, 38535315, 42369168},
	{FP16, 64, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {38682771, 38682771, 42517159},
	{FP16, 64, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {272, 0, 4194576},
	{FP16, 64, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {25985171, 25985171, 29524575},
	{FP16, 64, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {19267600, 19267731, 23068816},
	{FP16, 64, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {19857424, 19857555, 19857424},
	{FP16, 64, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {0, 0, 16777216},
	{FP16, 64, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {64520339, 64520339, 68059743},
	{FP16, 64, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {14024720, 14024720, 14024720},
	{FP16, 64, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {9633808, 9633939, 9633808},
	{FP16, 64, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {11993235, 11993235, 15270263},
	{FP16, 64, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {0, 0, 35258927},
	{FP16, 64, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {33292304, 33292435, 33292304},
	{FP16, 64, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 272, 4194304},
	{FP16, 64, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {272, 272, 8388880},
	{FP16, 64, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {154140819, 154140819, 155714095},
	{FP16, 64, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {11141136, 11141136, 11141267},
	{FP16, 64, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {16056467, 16056336, 16056336},
	{FP16, 64, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {20774928, 20775059, 20775059},
	{FP16, 64, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {0, 0, 16777216},
	{FP16, 64, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {0, 0, 33554432},
	{FP16, 64, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {77070483, 77070483, 77070352},
	{FP16, 64, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {0, 0, 35258927},
	{FP16, 64, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {38535315, 38535315, 38535184},
	{FP16, 64, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {38535315, 38535315, 38535184},
	{FP16, 64, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {16056336, 16056467, 16056336},
	{FP16, 128, 3, 224, 224, 64, 7, 7, 2, 3, 1}:     {256926224, 0, 257328239},
	{FP16, 128, 64, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 0, 2097152},
	{FP16, 128, 64, 56, 56, 64, 3, 3, 1, 1, 1}:      {102834323, 102834323, 104751783},
	{FP16, 128, 64, 56, 56, 128, 1, 1, 2, 0, 1}:     {256, 77070483, 78643711},
	{FP16, 128, 64, 56, 56, 128, 3, 3, 2, 1, 1}:     {77217939, 77217939, 81052327},
	{FP16, 128, 64, 56, 56, 256, 1, 1, 1, 0, 1}:     {272, 272, 8388608},
	{FP16, 128, 128, 28, 28, 128, 3, 3, 1, 1, 1}:    {51675283, 51675283, 59343527},
	{FP16, 128, 128, 28, 28, 256, 1, 1, 2, 0, 1}:    {38535315, 38535315, 42467983},
	{FP16, 128, 128, 28, 28, 256, 3, 3, 2, 1, 1}:    {39125139, 39125139, 43057807},
	{FP16, 128, 128, 28, 28, 512, 1, 1, 1, 0, 1}:    {0, 0, 33554432},
	{FP16, 128, 128, 56, 56, 128, 3, 3, 2, 1, 1}:    {128745619, 128745619, 136413863},
	{FP16, 128, 256, 14, 14, 256, 3, 3, 1, 1, 1}:    {26869907, 26869907, 33948255},
	{FP16, 128, 256, 14, 14, 512, 1, 1, 2, 0, 1}:    {19267600, 19267731, 22938223},
	{FP16, 128, 256, 14, 14, 512, 3, 3, 2, 1, 1}:    {21626896, 21627027, 24904055},
	{FP16, 128, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:   {0, 0, 67371567},
	{FP16, 128, 256, 28, 28, 256, 3, 3, 2, 1, 1}:    {65405075, 65405075, 72483423},
	{FP16, 128, 256, 56, 56, 64, 1, 1, 1, 0, 1}:     {0, 272, 8388880},
	{FP16, 128, 256, 56, 56, 128, 1, 1, 1, 0, 1}:    {272, 272, 16777216},
	{FP16, 128, 256, 56, 56, 512, 1, 1, 2, 0, 1}:    {308281491, 308281491, 311951983},
	{FP16, 128, 512, 7, 7, 512, 3, 3, 1, 1, 1}:      {25952687, 17563664, 25428719},
	{FP16, 128, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:     {32112787, 32112656, 32112656},
	{FP16, 128, 512, 14, 14, 512, 3, 3, 2, 1, 1}:    {36831248, 36831379, 44696303},
	{FP16, 128, 512, 28, 28, 128, 1, 1, 1, 0, 1}:    {272, 0, 33554432},
	{FP16, 128, 512, 28, 28, 256, 1, 1, 1, 0, 1}:    {272, 0, 67108864},
	{FP16, 128, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:   {154140819, 154140819, 160432687},
	{FP16, 128, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:   {0, 0, 67371567},
	{FP16, 128, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:   {77070483, 78119123, 83362351},
	{FP16, 128, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:  {77070483, 77070483, 77070352},
	{FP16, 128, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:     {32112656, 32112787, 35783279},
	{FP32, 4, 3, 224, 224, 768, 16, 16, 16, 0, 1}:   {0, 0, 8765584},
	{FP32, 8, 3, 224, 224, 64, 7, 7, 2, 3, 1}:       {30544656, 0, 34872464},
	{FP32, 8, 64, 56, 56, 64, 1, 1, 1, 0, 1}:        {400, 0, 131072},
	{FP32, 8, 64, 56, 56, 64, 3, 3, 1, 1, 1}:        {6570000, 12992528, 15057575},
	{FP32, 8, 64, 56, 56, 128, 1, 1, 2, 0, 1}:       {0, 0, 9928848},
	{FP32, 8, 64, 56, 56, 128, 3, 3, 2, 1, 1}:       {6717456, 9928851, 12550599},
	{FP32, 8, 64, 56, 56, 256, 1, 1, 1, 0, 1}:       {0, 0, 524288},
	{FP32, 8, 128, 28, 28, 128, 3, 3, 1, 1, 1}:      {7012368, 7012368, 16809984},
	{FP32, 8, 128, 28, 28, 256, 1, 1, 2, 0, 1}:      {4816912, 4817043, 5079231},
	{FP32, 8, 128, 28, 28, 256, 3, 3, 2, 1, 1}:      {9666847, 5996560, 7176336},
	{FP32, 8, 128, 28, 28, 512, 1, 1, 1, 0, 1}:      {0, 0, 2097152},
	{FP32, 8, 128, 56, 56, 128, 3, 3, 2, 1, 1}:      {16646160, 16646291, 20775056},
	{FP32, 8, 256, 14, 14, 256, 3, 3, 1, 1, 1}:      {5570576, 5570576, 18874368},
	{FP32, 8, 256, 14, 14, 512, 1, 1, 2, 0, 1}:      {2408464, 2408595, 1024},
	{FP32, 8, 256, 14, 14, 512, 3, 3, 2, 1, 1}:      {7127056, 7127187, 7127056},
	{FP32, 8, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:     {0, 0, 8388608},
	{FP32, 8, 256, 28, 28, 256, 3, 3, 2, 1, 1}:      {10387472, 10387603, 10387472},
	{FP32, 8, 256, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 0, 524288},
	{FP32, 8, 256, 56, 56, 128, 1, 1, 1, 0, 1}:      {400, 0, 1048576},
	{FP32, 8, 256, 56, 56, 512, 1, 1, 2, 0, 1}:      {38535184, 38535315, 42205328},
	{FP32, 8, 512, 7, 7, 512, 3, 3, 1, 1, 1}:        {11042832, 14582367, 11042832},
	{FP32, 8, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:       {0, 6373695, 4014096},
	{FP32, 8, 512, 14, 14, 512, 3, 3, 2, 1, 1}:      {13451280, 13451411, 13451280},
	{FP32, 8, 512, 28, 28, 128, 1, 1, 1, 0, 1}:      {0, 400, 2097552},
	{FP32, 8, 512, 28, 28, 256, 1, 1, 1, 0, 1}:      {400, 400, 4194704},
	{FP32, 8, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:     {19267600, 19267731, 19267600},
	{FP32, 8, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:     {0, 400, 8388608},
	{FP32, 8, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:     {0, 0, 16777216},
	{FP32, 8, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:    {9633808, 9633939, 9633936},
	{FP32, 8, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:       {4014096, 0, 4014224},
	{FP32, 16, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {61051664, 0, 67185808},
	{FP32, 16, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {400, 400, 262144},
	{FP32, 16, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {12992528, 25837584, 27902631},
	{FP32, 16, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {0, 0, 19562640},
	{FP32, 16, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {13139984, 19562643, 23167631},
	{FP32, 16, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {0, 0, 1048576},
	{FP32, 16, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {13434896, 13434896, 17564327},
	{FP32, 16, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {9633808, 0, 10158303},
	{FP32, 16, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {17629567, 10813456, 14352991},
	{FP32, 16, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {0, 0, 4194304},
	{FP32, 16, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {32702480, 32702611, 36831911},
	{FP32, 16, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {8781840, 8781840, 15860319},
	{FP32, 16, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {4816912, 4817043, 7438480},
	{FP32, 16, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {9535504, 9535635, 9535504},
	{FP32, 16, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {400, 0, 16777216},
	{FP32, 16, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {18415632, 18415763, 25494111},
	{FP32, 16, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 400, 1048576},
	{FP32, 16, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {400, 400, 2097152},
	{FP32, 16, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {51904528, 77070483, 80740496},
	{FP32, 16, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {12648464, 12648464, 14221535},
	{FP32, 16, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {8028176, 8028176, 8028176},
	{FP32, 16, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {17465360, 17465491, 19038431},
	{FP32, 16, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {400, 400, 4194704},
	{FP32, 16, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {400, 400, 8389008},
	{FP32, 16, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {38535184, 38535315, 42729903},
	{FP32, 16, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {400, 400, 16777216},
	{FP32, 16, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {0, 400, 33554432},
	{FP32, 16, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {19267600, 19267731, 19267600},
	{FP32, 16, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {8028176, 8028176, 8028176},
	{FP32, 32, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {122065680, 0, 134522000},
	{FP32, 32, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {0, 0, 48103568},
	{FP32, 32, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {400, 400, 524288},
	{FP32, 32, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {25837584, 51527696, 53592743},
	{FP32, 32, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {0, 0, 41484432},
	{FP32, 32, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {25985040, 38830227, 43090655},
	{FP32, 32, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {0, 0, 2097152},
	{FP32, 32, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {26279952, 26279952, 34538151},
	{FP32, 32, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {19267600, 0, 20316447},
	{FP32, 32, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {20447248, 20447379, 23986783},
	{FP32, 32, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {0, 0, 8388608},
	{FP32, 32, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {64815120, 64815251, 73073319},
	{FP32, 32, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {15204368, 15204368, 22282847},
	{FP32, 32, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {9633808, 9633939, 12255376},
	{FP32, 32, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {21692815, 14352531, 14352400},
	{FP32, 32, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {400, 0, 33554432},
	{FP32, 32, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {34471952, 34472083, 41550431},
	{FP32, 32, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {400, 400, 2097152},
	{FP32, 32, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {400, 400, 4194704},
	{FP32, 32, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {103284752, 154140819, 162529935},
	{FP32, 32, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {15859728, 15859728, 21365247},
	{FP32, 32, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {16056336, 16056336, 16056336},
	{FP32, 32, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {32833935, 25493651, 30999039},
	{FP32, 32, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {400, 400, 8388608},
	{FP32, 32, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {400, 400, 16777216},
	{FP32, 32, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {77070483, 77070483, 81265071},
	{FP32, 32, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {400, 400, 33554432},
	{FP32, 32, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {0, 400, 46924335},
	{FP32, 32, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {38535184, 38535315, 38535184},
	{FP32, 32, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {16056336, 16056336, 16056336},
	{FP32, 64, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 0},
	{FP32, 64, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {244093712, 0, 262972560},
	{FP32, 64, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {93061136, 0, 93061264},
	{FP32, 64, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {67145875, 67145875, 71160983},
	{FP32, 64, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {33628176, 50405523, 55345296},
	{FP32, 64, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {33701904, 33701904, 35766951},
	{FP32, 64, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {400, 400, 1048576},
	{FP32, 64, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {102908051, 102908051, 104972967},
	{FP32, 64, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {0, 0, 80576656},
	{FP32, 64, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {51675152, 77365395, 81625823},
	{FP32, 64, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {400, 0, 4194704},
	{FP32, 64, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {51970195, 51970195, 60228263},
	{FP32, 64, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {38535315, 0, 39977327},
	{FP32, 64, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {48103855, 39714963, 43254367},
	{FP32, 64, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {400, 0, 16777216},
	{FP32, 64, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {129040531, 129040531, 137298599},
	{FP32, 64, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {36438447, 28049424, 35127903},
	{FP32, 64, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {19267600, 19267731, 21365007},
	{FP32, 64, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {23986192, 23986323, 23986192},
	{FP32, 64, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {400, 400, 67108864},
	{FP32, 64, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {74973615, 66584723, 73663071},
	{FP32, 64, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {400, 400, 4194704},
	{FP32, 64, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {400, 400, 8389008},
	{FP32, 64, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {206045200, 308281491, 316670607},
	{FP32, 64, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {22282256, 22282256, 30933743},
	{FP32, 64, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {32112656, 32112656, 32112656},
	{FP32, 64, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {41549840, 41549971, 50201327},
	{FP32, 64, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {400, 400, 16777216},
	{FP32, 64, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {400, 400, 33554432},
	{FP32, 64, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {154140819, 154140819, 162529839},
	{FP32, 64, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {0, 400, 67108864},
	{FP32, 64, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {0, 400, 85459503},
	{FP32, 64, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {77070483, 77070483, 77070352},
	{FP32, 64, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {32112656, 32112787, 40501679},
	{FP32, 128, 3, 224, 224, 64, 7, 7, 2, 3, 1}:     {488149776, 0, 519873680},
	{FP32, 128, 64, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 400, 2097552},
	{FP32, 128, 64, 56, 56, 64, 3, 3, 1, 1, 1}:      {205668499, 205668499, 207733415},
	{FP32, 128, 64, 56, 56, 128, 1, 1, 2, 0, 1}:     {0, 0, 156106896},
	{FP32, 128, 64, 56, 56, 128, 3, 3, 2, 1, 1}:     {103055376, 154435731, 158696159},
	{FP32, 128, 64, 56, 56, 256, 1, 1, 1, 0, 1}:     {400, 400, 8389008},
	{FP32, 128, 128, 28, 28, 128, 3, 3, 1, 1, 1}:    {103350419, 103350419, 111608487},
	{FP32, 128, 128, 28, 28, 256, 1, 1, 2, 0, 1}:    {77070483, 0, 80085551},
	{FP32, 128, 128, 28, 28, 256, 3, 3, 2, 1, 1}:    {78250131, 78250131, 86508199},
	{FP32, 128, 128, 28, 28, 512, 1, 1, 1, 0, 1}:    {400, 400, 33554832},
	{FP32, 128, 128, 56, 56, 128, 3, 3, 2, 1, 1}:    {257491091, 257491091, 265749159},
	{FP32, 128, 256, 14, 14, 256, 3, 3, 1, 1, 1}:    {53739667, 53739667, 60818015},
	{FP32, 128, 256, 14, 14, 512, 1, 1, 2, 0, 1}:    {38535184, 38535315, 42729871},
	{FP32, 128, 256, 14, 14, 512, 3, 3, 2, 1, 1}:    {43253776, 43253907, 43253776},
	{FP32, 128, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:   {400, 400, 136839791},
	{FP32, 128, 256, 28, 28, 256, 3, 3, 2, 1, 1}:    {130810003, 130810003, 137888351},
	{FP32, 128, 256, 56, 56, 64, 1, 1, 1, 0, 1}:     {0, 400, 8389008},
	{FP32, 128, 256, 56, 56, 128, 1, 1, 1, 0, 1}:    {400, 400, 16777616},
	{FP32, 128, 256, 56, 56, 512, 1, 1, 2, 0, 1}:    {411566096, 616562835, 624951951},
	{FP32, 128, 512, 7, 7, 512, 3, 3, 1, 1, 1}:      {35127312, 35127312, 43778799},
	{FP32, 128, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:     {64225427, 64225296, 72614319},
	{FP32, 128, 512, 14, 14, 512, 3, 3, 2, 1, 1}:    {73662480, 73662611, 82313967},
	{FP32, 128, 512, 28, 28, 128, 1, 1, 1, 0, 1}:    {400, 400, 33554832},
	{FP32, 128, 512, 28, 28, 256, 1, 1, 1, 0, 1}:    {400, 400, 67108864},
	{FP32, 128, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:   {308281491, 308281491, 316670511},
	{FP32, 128, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:   {400, 400, 136839791},
	{FP32, 128, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:   {400, 400, 162529839},
	{FP32, 128, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:  {154140819, 154140819, 154140688},
	{FP32, 128, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:     {64225296, 64225427, 72614319},
	{FP32, 1, 3, 128, 128, 32, 3, 3, 1, 1, 1}:       {0, 0, 2516112},
	{FP32, 1, 3, 224, 224, 64, 7, 7, 2, 3, 1}:       {0, 0, 5870736},
	{FP32, 1, 3, 224, 224, 768, 16, 16, 16, 0, 1}:   {0, 0, 0},
	{FP32, 1, 32, 64, 64, 32, 3, 3, 1, 1, 1}:        {0, 0, 2506752},
	{FP32, 1, 32, 64, 64, 64, 3, 3, 2, 1, 1}:        {0, 0, 1155967},
	{FP32, 1, 64, 32, 32, 64, 3, 3, 1, 1, 1}:        {409616, 0, 1769472},
	{FP32, 1, 64, 56, 56, 64, 1, 1, 1, 0, 1}:        {0, 0, 557312},
	{FP32, 1, 64, 56, 56, 64, 3, 3, 1, 1, 1}:        {950288, 1753104, 4202496},
	{FP32, 1, 64, 56, 56, 128, 1, 1, 2, 0, 1}:       {0, 0, 1467119},
	{FP32, 1, 64, 56, 56, 128, 3, 3, 2, 1, 1}:       {1097744, 0, 2678928},
	{FP32, 1, 64, 56, 56, 256, 1, 1, 1, 0, 1}:       {0, 464, 3277056},
	{FP32, 1, 128, 28, 28, 128, 3, 3, 1, 1, 1}:      {991248, 1392656, 4165632},
	{FP32, 1, 128, 28, 28, 256, 1, 1, 2, 0, 1}:      {0, 0, 602128},
	{FP32, 1, 128, 28, 28, 256, 3, 3, 2, 1, 1}:      {1581072, 0, 0},
	{FP32, 1, 128, 28, 28, 512, 1, 1, 1, 0, 1}:      {480, 368, 262464},
	{FP32, 1, 128, 56, 56, 128, 3, 3, 2, 1, 1}:      {2195472, 2597011, 2596880},
	{FP32, 1, 256, 14, 14, 256, 3, 3, 1, 1, 1}:      {2822575, 0, 10616832},
	{FP32, 1, 256, 14, 14, 512, 1, 1, 2, 0, 1}:      {301072, 301203, 1024},
	{FP32, 1, 256, 14, 14, 512, 3, 3, 2, 1, 1}:      {5050671, 0, 9216},
	{FP32, 1, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:     {384, 3211520, 1048576},
	{FP32, 1, 256, 28, 28, 256, 3, 3, 2, 1, 1}:      {3424687, 3362832, 0},
	{FP32, 1, 256, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 0, 2228480},
	{FP32, 1, 256, 56, 56, 128, 1, 1, 1, 0, 1}:      {0, 0, 4456704},
	{FP32, 1, 256, 56, 56, 512, 1, 1, 2, 0, 1}:      {0, 4817043, 6914192},
	{FP32, 1, 512, 7, 7, 512, 3, 3, 1, 1, 1}:        {9668911, 0, 18432},
	{FP32, 1, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:       {1605888, 3211520, 4194304},
	{FP32, 1, 512, 14, 14, 512, 3, 3, 2, 1, 1}:      {11019055, 0, 18432},
	{FP32, 1, 512, 28, 28, 128, 1, 1, 1, 0, 1}:      {0, 0, 2883840},
	{FP32, 1, 512, 28, 28, 256, 1, 1, 1, 0, 1}:      {464, 480, 524672},
	{FP32, 1, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:     {2408464, 2408595, 2408464},
	{FP32, 1, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:     {3211520, 0, 1048576},
	{FP32, 1, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:     {6422784, 0, 2097152},
	{FP32, 1, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:    {1204240, 1204371, 1204368},
	{FP32, 1, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:       {3211520, 2007296, 4194304},
	{FP32, 2, 3, 128, 128, 32, 3, 3, 1, 1, 1}:       {0, 0, 4875408},
	{FP32, 2, 3, 224, 224, 64, 7, 7, 2, 3, 1}:       {7664400, 0, 9884816},
	{FP32, 2, 3, 224, 224, 768, 16, 16, 16, 0, 1}:   {0, 0, 0},
	{FP32, 2, 32, 64, 64, 32, 3, 3, 1, 1, 1}:        {1085456, 0, 4866048},
	{FP32, 2, 32, 64, 64, 64, 3, 3, 2, 1, 1}:        {1122320, 0, 1942399},
	{FP32, 2, 64, 32, 32, 64, 3, 3, 1, 1, 1}:        {671760, 0, 2949120},
	{FP32, 2, 64, 56, 56, 64, 1, 1, 1, 0, 1}:        {0, 0, 32768},
	{FP32, 2, 64, 56, 56, 64, 3, 3, 1, 1, 1}:        {1753104, 3358736, 7815168},
	{FP32, 2, 64, 56, 56, 128, 1, 1, 2, 0, 1}:       {0, 2408595, 2671055},
	{FP32, 2, 64, 56, 56, 128, 3, 3, 2, 1, 1}:       {1900560, 0, 3883152},
	{FP32, 2, 64, 56, 56, 256, 1, 1, 1, 0, 1}:       {0, 0, 131072},
	{FP32, 2, 128, 28, 28, 128, 3, 3, 1, 1, 1}:      {1392656, 2195472, 5971968},
	{FP32, 2, 128, 28, 28, 256, 1, 1, 2, 0, 1}:      {1204240, 0, 1204240},
	{FP32, 2, 128, 28, 28, 256, 3, 3, 2, 1, 1}:      {1982480, 0, 2383888},
	{FP32, 2, 128, 28, 28, 512, 1, 1, 1, 0, 1}:      {0, 0, 524288},
	{FP32, 2, 128, 56, 56, 128, 3, 3, 2, 1, 1}:      {3801104, 4603920, 8732816},
	{FP32, 2, 256, 14, 14, 256, 3, 3, 1, 1, 1}:      {3220079, 3162128, 11796480},
	{FP32, 2, 256, 14, 14, 512, 1, 1, 2, 0, 1}:      {602128, 602259, 1024},
	{FP32, 2, 256, 14, 14, 512, 3, 3, 2, 1, 1}:      {5382575, 0, 5321136},
	{FP32, 2, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:     {0, 0, 2097152},
	{FP32, 2, 256, 28, 28, 256, 3, 3, 2, 1, 1}:      {4424303, 4366352, 4366352},
	{FP32, 2, 256, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 400, 131072},
	{FP32, 2, 256, 56, 56, 128, 1, 1, 1, 0, 1}:      {0, 400, 262144},
	{FP32, 2, 256, 56, 56, 512, 1, 1, 2, 0, 1}:      {9633808, 9633939, 13303952},
	{FP32, 2, 512, 7, 7, 512, 3, 3, 1, 1, 1}:        {9900463, 0, 9838736},
	{FP32, 2, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:       {0, 0, 8388608},
	{FP32, 2, 512, 14, 14, 512, 3, 3, 2, 1, 1}:      {10502575, 0, 10440848},
	{FP32, 2, 512, 28, 28, 128, 1, 1, 1, 0, 1}:      {0, 0, 524288},
	{FP32, 2, 512, 28, 28, 256, 1, 1, 1, 0, 1}:      {0, 0, 1048576},
	{FP32, 2, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:     {4816912, 4817043, 4816912},
	{FP32, 2, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:     {0, 0, 2097152},
	{FP32, 2, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:     {0, 0, 4194304},
	{FP32, 2, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:    {2408464, 2408595, 2408592},
	{FP32, 2, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:       {1003536, 0, 1003664},
	{FP32, 4, 3, 128, 128, 32, 3, 3, 1, 1, 1}:       {0, 0, 9607824},
	{FP32, 4, 3, 224, 224, 64, 7, 7, 2, 3, 1}:       {15291152, 0, 18816144},
	{FP32, 4, 32, 64, 64, 32, 3, 3, 1, 1, 1}:        {2134032, 0, 6296231},
	{FP32, 4, 32, 64, 64, 64, 3, 3, 2, 1, 1}:        {0, 3219472, 3588240},
	{FP32, 4, 64, 32, 32, 64, 3, 3, 1, 1, 1}:        {1196048, 2244624, 3555623},
	{FP32, 4, 64, 56, 56, 64, 1, 1, 1, 0, 1}:        {0, 400, 65536},
	{FP32, 4, 64, 56, 56, 64, 3, 3, 1, 1, 1}:        {3358736, 6570000, 15040512},
	{FP32, 4, 64, 56, 56, 128, 1, 1, 2, 0, 1}:       {0, 0, 5111952},
	{FP32, 4, 64, 56, 56, 128, 3, 3, 2, 1, 1}:       {3506192, 5111955, 6291600},
	{FP32, 4, 64, 56, 56, 256, 1, 1, 1, 0, 1}:       {0, 0, 262144},
	{FP32, 4, 128, 28, 28, 128, 3, 3, 1, 1, 1}:      {3801104, 3801104, 9584640},
	{FP32, 4, 128, 28, 28, 256, 1, 1, 2, 0, 1}:      {2408464, 0, 2408464},
	{FP32, 4, 128, 28, 28, 256, 3, 3, 2, 1, 1}:      {3588112, 3588243, 3588112},
	{FP32, 4, 128, 28, 28, 512, 1, 1, 1, 0, 1}:      {400, 0, 1048576},
	{FP32, 4, 128, 56, 56, 128, 3, 3, 2, 1, 1}:      {8618000, 8618000, 12746896},
	{FP32, 4, 256, 14, 14, 256, 3, 3, 1, 1, 1}:      {3964944, 3964944, 14155776},
	{FP32, 4, 256, 14, 14, 512, 1, 1, 2, 0, 1}:      {1204240, 1204371, 1024},
	{FP32, 4, 256, 14, 14, 512, 3, 3, 2, 1, 1}:      {6046383, 5922963, 5923248},
	{FP32, 4, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:     {0, 0, 4194704},
	{FP32, 4, 256, 28, 28, 256, 3, 3, 2, 1, 1}:      {6373392, 6373392, 6373392},
	{FP32, 4, 256, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 400, 262144},
	{FP32, 4, 256, 56, 56, 128, 1, 1, 1, 0, 1}:      {0, 400, 524288},
	{FP32, 4, 256, 56, 56, 512, 1, 1, 2, 0, 1}:      {19267600, 19267731, 22937744},
	{FP32, 4, 512, 7, 7, 512, 3, 3, 1, 1, 1}:        {10363567, 12599687, 10240144},
	{FP32, 4, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:       {0, 0, 2007184},
	{FP32, 4, 512, 14, 14, 512, 3, 3, 2, 1, 1}:      {11567791, 11444371, 11444368},
	{FP32, 4, 512, 28, 28, 128, 1, 1, 1, 0, 1}:      {0, 400, 1048576},
	{FP32, 4, 512, 28, 28, 256, 1, 1, 1, 0, 1}:      {0, 400, 2097152},
	{FP32, 4, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:     {9633808, 9633939, 9633808},
	{FP32, 4, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:     {0, 0, 4194304},
	{FP32, 4, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:     {0, 0, 8388608},
	{FP32, 4, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:    {4816912, 4817043, 4817040},
	{FP32, 4, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:       {2007056, 0, 2007184},
	{FP32, 12, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 0},
	{FP32, 12, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {45798160, 0, 50928784},
	{FP32, 12, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {0, 0, 20005008},
	{FP32, 12, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {12619792, 12619792, 16635031},
	{FP32, 12, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {6365200, 9511059, 0},
	{FP32, 12, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {3293200, 6438928, 14745600},
	{FP32, 12, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {400, 0, 196608},
	{FP32, 12, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {9781264, 19415056, 21480103},
	{FP32, 12, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {0, 0, 14745744},
	{FP32, 12, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {9928720, 14745747, 17367495},
	{FP32, 12, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {0, 0, 786432},
	{FP32, 12, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {10223632, 10223632, 14353063},
	{FP32, 12, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {7225360, 7225491, 7749855},
	{FP32, 12, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {13648207, 8405008, 13123728},
	{FP32, 12, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {0, 0, 3145728},
	{FP32, 12, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {24674320, 24674451, 28803751},
	{FP32, 12, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {7176208, 7176208, 11895103},
	{FP32, 12, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {3612688, 3612819, 6234256},
	{FP32, 12, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {8331280, 8331411, 8331280},
	{FP32, 12, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {400, 0, 12582912},
	{FP32, 12, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {14401552, 14401683, 14401552},
	{FP32, 12, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 0, 786432},
	{FP32, 12, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {400, 0, 1572864},
	{FP32, 12, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {57802899, 57802899, 61472912},
	{FP32, 12, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {11845648, 14795107, 13418719},
	{FP32, 12, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {0, 8970595, 6021136},
	{FP32, 12, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {15458320, 15458451, 17031391},
	{FP32, 12, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {0, 400, 3146128},
	{FP32, 12, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {400, 400, 6291856},
	{FP32, 12, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {31523071, 28901523, 37290543},
	{FP32, 12, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {0, 400, 12582912},
	{FP32, 12, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {0, 0, 25165824},
	{FP32, 12, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {14450835, 14450835, 14450704},
	{FP32, 12, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {6021136, 6021136, 6021136},
	{FP32, 24, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 0},
	{FP32, 24, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {91558672, 0, 102409360},
	{FP32, 24, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {0, 0, 36864144},
	{FP32, 24, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {25202835, 25202704, 29217943},
	{FP32, 24, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {12656656, 18948243, 0},
	{FP32, 24, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {12730384, 12730384, 14795431},
	{FP32, 24, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {400, 400, 393216},
	{FP32, 24, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {19415056, 38682640, 40747687},
	{FP32, 24, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {0, 0, 31850640},
	{FP32, 24, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {19562512, 29196435, 33456863},
	{FP32, 24, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {0, 0, 1572864},
	{FP32, 24, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {19857555, 19857424, 28115623},
	{FP32, 24, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {14450704, 14450835, 15499551},
	{FP32, 24, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {15630352, 15630352, 19169887},
	{FP32, 24, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {0, 0, 6291456},
	{FP32, 24, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {55050799, 48758931, 57016999},
	{FP32, 24, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {11993104, 11993104, 19071583},
	{FP32, 24, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {7225360, 7225491, 9846928},
	{FP32, 24, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {11943952, 11944083, 11943952},
	{FP32, 24, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {0, 0, 25165824},
	{FP32, 24, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {26443792, 26443923, 26443792},
	{FP32, 24, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 400, 1572864},
	{FP32, 24, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {400, 400, 3146128},
	{FP32, 24, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {77594640, 115605651, 119275664},
	{FP32, 24, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {14254096, 14254096, 17400127},
	{FP32, 24, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {12042256, 12042256, 12042256},
	{FP32, 24, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {21479440, 21479571, 24625471},
	{FP32, 24, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {400, 400, 6291856},
	{FP32, 24, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {400, 400, 12583312},
	{FP32, 24, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {61997363, 57802899, 66191919},
	{FP32, 24, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {0, 400, 25165824},
	{FP32, 24, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {28901392, 400, 50331648},
	{FP32, 24, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {28901392, 28901523, 28901392},
	{FP32, 24, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {14008975, 12042256, 12042256},
	{FP32, 48, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 0},
	{FP32, 48, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {183079696, 0, 198747280},
	{FP32, 48, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {0, 0, 70582416},
	{FP32, 48, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {50368659, 50368659, 54383767},
	{FP32, 48, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {25239568, 37822611, 39223440},
	{FP32, 48, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {25313296, 25313296, 27378343},
	{FP32, 48, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {400, 400, 786432},
	{FP32, 48, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {77217939, 77217939, 79282855},
	{FP32, 48, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {0, 0, 60031120},
	{FP32, 48, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {38830096, 58097811, 62358239},
	{FP32, 48, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {400, 0, 3145728},
	{FP32, 48, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {46465427, 39125139, 47383207},
	{FP32, 48, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {28901523, 0, 30998943},
	{FP32, 48, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {34275695, 30081171, 33620575},
	{FP32, 48, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {400, 0, 12582912},
	{FP32, 48, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {104268179, 96927891, 105185959},
	{FP32, 48, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {30016111, 21626896, 28705375},
	{FP32, 48, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {14450704, 14450835, 15499567},
	{FP32, 48, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {19169296, 19169427, 19169296},
	{FP32, 48, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {400, 400, 50331648},
	{FP32, 48, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {58917487, 50528403, 57606751},
	{FP32, 48, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {400, 400, 3146128},
	{FP32, 48, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {400, 400, 6291856},
	{FP32, 48, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {154664976, 231211155, 239600271},
	{FP32, 48, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {19071123, 22610311, 27722479},
	{FP32, 48, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {24084627, 27623815, 24084496},
	{FP32, 48, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {33521680, 33521811, 42173167},
	{FP32, 48, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {400, 400, 12582912},
	{FP32, 48, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {400, 400, 25165824},
	{FP32, 48, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {123994547, 115605651, 119800239},
	{FP32, 48, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {400, 400, 50331648},
	{FP32, 48, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {0, 400, 66191919},
	{FP32, 48, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {57802899, 57802899, 57802768},
	{FP32, 48, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {24084627, 24084627, 24084496},
	{FP32, 96, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 0},
	{FP32, 96, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {366121744, 0, 391423120},
	{FP32, 96, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {138018832, 0, 138019152},
	{FP32, 96, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {100700307, 100700307, 104715415},
	{FP32, 96, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {50405392, 75571347, 79586455},
	{FP32, 96, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {25313296, 50479120, 52544167},
	{FP32, 96, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {400, 400, 1573264},
	{FP32, 96, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {154288275, 154288275, 156353191},
	{FP32, 96, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {0, 0, 119341200},
	{FP32, 96, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {77365264, 115900563, 120160991},
	{FP32, 96, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {400, 400, 6291856},
	{FP32, 96, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {77660307, 77660307, 85918375},
	{FP32, 96, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {57802899, 0, 60031471},
	{FP32, 96, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {66847259, 58982547, 67240615},
	{FP32, 96, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {400, 0, 25166224},
	{FP32, 96, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {193265811, 193265811, 201523879},
	{FP32, 96, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {40894611, 40894611, 47972959},
	{FP32, 96, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {28901392, 28901523, 33096079},
	{FP32, 96, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {39911983, 33620115, 33619984},
	{FP32, 96, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {400, 400, 104727151},
	{FP32, 96, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {98697363, 98697363, 105775711},
	{FP32, 96, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 400, 6291856},
	{FP32, 96, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {0, 400, 12583312},
	{FP32, 96, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {308805648, 462422163, 470811279},
	{FP32, 96, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {34996783, 28704784, 37356271},
	{FP32, 96, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {48169107, 56033935, 56557999},
	{FP32, 96, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {63898159, 57606291, 66257647},
	{FP32, 96, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {400, 400, 25166224},
	{FP32, 96, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {400, 400, 50331648},
	{FP32, 96, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {231211155, 231211155, 239600175},
	{FP32, 96, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {400, 400, 104727151},
	{FP32, 96, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {0, 400, 123994671},
	{FP32, 96, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {115605651, 115605651, 115605520},
	{FP32, 96, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {54460975, 48169107, 56557999},
	{FP32, 192, 3, 128, 128, 32, 3, 3, 1, 1, 1}:     {0, 0, 0},
	{FP32, 192, 3, 224, 224, 64, 7, 7, 2, 3, 1}:     {732205840, 0, 776774800},
	{FP32, 192, 3, 224, 224, 768, 16, 16, 16, 0, 1}: {272891920, 0, 272892240},
	{FP32, 192, 32, 64, 64, 32, 3, 3, 1, 1, 1}:      {201363603, 201363603, 203428519},
	{FP32, 192, 32, 64, 64, 64, 3, 3, 2, 1, 1}:      {100737040, 151068819, 155083927},
	{FP32, 192, 64, 32, 32, 64, 3, 3, 1, 1, 1}:      {100810899, 100810899, 102875815},
	{FP32, 192, 64, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 400, 3146128},
	{FP32, 192, 64, 56, 56, 64, 3, 3, 1, 1, 1}:      {308428947, 308428947, 310493863},
	{FP32, 192, 64, 56, 56, 128, 1, 1, 2, 0, 1}:     {0, 0, 0},
	{FP32, 192, 64, 56, 56, 128, 3, 3, 2, 1, 1}:     {154435600, 231506067, 235766495},
	{FP32, 192, 64, 56, 56, 256, 1, 1, 1, 0, 1}:     {400, 400, 12583312},
	{FP32, 192, 128, 28, 28, 128, 3, 3, 1, 1, 1}:    {154730643, 154730643, 162988711},
	{FP32, 192, 128, 28, 28, 256, 1, 1, 2, 0, 1}:    {115605651, 0, 124257023},
	{FP32, 192, 128, 28, 28, 256, 3, 3, 2, 1, 1}:    {124649891, 116785299, 125043367},
	{FP32, 192, 128, 28, 28, 512, 1, 1, 1, 0, 1}:    {400, 400, 50332048},
	{FP32, 192, 128, 56, 56, 128, 3, 3, 2, 1, 1}:    {385941651, 385941651, 394199719},
	{FP32, 192, 256, 14, 14, 256, 3, 3, 1, 1, 1}:    {79429779, 79429779, 86508127},
	{FP32, 192, 256, 14, 14, 512, 1, 1, 2, 0, 1}:    {57802899, 57802899, 66192015},
	{FP32, 192, 256, 14, 14, 512, 3, 3, 2, 1, 1}:    {79299183, 62521491, 66847471},
	{FP32, 192, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:   {400, 400, 201065071},
	{FP32, 192, 256, 28, 28, 256, 3, 3, 2, 1, 1}:    {195035283, 195035283, 202113631},
	{FP32, 192, 256, 56, 56, 64, 1, 1, 1, 0, 1}:     {0, 400, 12583312},
	{FP32, 192, 256, 56, 56, 128, 1, 1, 1, 0, 1}:    {400, 400, 25166224},
	{FP32, 192, 256, 56, 56, 512, 1, 1, 2, 0, 1}:    {617086992, 924844179, 933233295},
	{FP32, 192, 512, 7, 7, 512, 3, 3, 1, 1, 1}:      {64750191, 64750191, 56623855},
	{FP32, 192, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:     {96338067, 96338067, 104726959},
	{FP32, 192, 512, 14, 14, 512, 3, 3, 2, 1, 1}:    {122552943, 105775251, 114426607},
	{FP32, 192, 512, 28, 28, 128, 1, 1, 1, 0, 1}:    {400, 400, 50331648},
	{FP32, 192, 512, 28, 28, 256, 1, 1, 1, 0, 1}:    {400, 400, 100663296},
	{FP32, 192, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:   {462422163, 462422163, 470811183},
	{FP32, 192, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:   {400, 400, 201065071},
	{FP32, 192, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:   {0, 400, 239600175},
	{FP32, 192, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:  {231211155, 231211155, 231211024},
	{FP32, 192, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:     {96338067, 96338067, 104726959},
	{FP32, 256, 3, 128, 128, 32, 3, 3, 1, 1, 1}:     {0, 0, 0},
	{FP32, 256, 3, 224, 224, 64, 7, 7, 2, 3, 1}:     {976261904, 0, 1033675920},
	{FP32, 256, 3, 224, 224, 768, 16, 16, 16, 0, 1}: {208666640, 0, 362807632},
	{FP32, 256, 32, 64, 64, 32, 3, 3, 1, 1, 1}:      {268472467, 268472467, 270537383},
	{FP32, 256, 32, 64, 64, 64, 3, 3, 2, 1, 1}:      {134291472, 201400467, 205415575},
	{FP32, 256, 64, 32, 32, 64, 3, 3, 1, 1, 1}:      {134365331, 134365331, 136430247},
	{FP32, 256, 64, 56, 56, 64, 1, 1, 1, 0, 1}:      {400, 400, 4194704},
	{FP32, 256, 64, 56, 56, 64, 3, 3, 1, 1, 1}:      {411189395, 411189395, 413254311},
	{FP32, 256, 64, 56, 56, 128, 1, 1, 2, 0, 1}:     {0, 0, 0},
	{FP32, 256, 64, 56, 56, 128, 3, 3, 2, 1, 1}:     {205815824, 308576403, 312836831},
	{FP32, 256, 64, 56, 56, 256, 1, 1, 1, 0, 1}:     {400, 400, 16777616},
	{FP32, 256, 128, 28, 28, 128, 3, 3, 1, 1, 1}:    {208208147, 206110867, 214368935},
	{FP32, 256, 128, 28, 28, 256, 1, 1, 2, 0, 1}:    {0, 0, 162792191},
	{FP32, 256, 128, 28, 28, 256, 3, 3, 2, 1, 1}:    {155320467, 155320467, 163578535},
	{FP32, 256, 128, 28, 28, 512, 1, 1, 1, 0, 1}:    {400, 400, 67109264},
	{FP32, 256, 128, 56, 56, 128, 3, 3, 2, 1, 1}:    {516489491, 514392211, 522650279},
	{FP32, 256, 256, 14, 14, 256, 3, 3, 1, 1, 1}:    {105119891, 105119891, 112198239},
	{FP32, 256, 256, 14, 14, 512, 1, 1, 2, 0, 1}:    {51904528, 77070483, 82838063},
	{FP32, 256, 256, 14, 14, 512, 3, 3, 2, 1, 1}:    {81789075, 81789075, 86115055},
	{FP32, 256, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:   {400, 400, 265290351},
	{FP32, 256, 256, 28, 28, 256, 3, 3, 2, 1, 1}:    {259260563, 259260563, 266338911},
	{FP32, 256, 256, 56, 56, 64, 1, 1, 1, 0, 1}:     {400, 400, 16777616},
	{FP32, 256, 256, 56, 56, 128, 1, 1, 1, 0, 1}:    {400, 400, 33554832},
	{FP32, 256, 256, 56, 56, 512, 1, 1, 2, 0, 1}:    {822607888, 1233125523, 1241514639},
	{FP32, 256, 512, 7, 7, 512, 3, 3, 1, 1, 1}:      {60817555, 77595055, 69468911},
	{FP32, 256, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:     {128450707, 128450707, 136839599},
	{FP32, 256, 512, 14, 14, 512, 3, 3, 2, 1, 1}:    {137887891, 137887891, 146539247},
	{FP32, 256, 512, 28, 28, 128, 1, 1, 1, 0, 1}:    {400, 400, 67108864},
	{FP32, 256, 512, 28, 28, 256, 1, 1, 1, 0, 1}:    {400, 400, 134217728},
	{FP32, 256, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:   {616562835, 616562835, 624951855},
	{FP32, 256, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:   {0, 400, 265290351},
	{FP32, 256, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:   {0, 400, 316670511},
	{FP32, 256, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:  {308281491, 308281491, 308281360},
	{FP32, 256, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:     {128450707, 128450707, 136839599},
	{BF16, 1, 3, 128, 128, 32, 3, 3, 1, 1, 1}:       {0, 0, 2511831},
	{BF16, 1, 3, 224, 224, 64, 7, 7, 2, 3, 1}:       {0, 0, 4365456},
	{BF16, 1, 3, 224, 224, 768, 16, 16, 16, 0, 1}:   {4249616, 0, 4249744},
	{BF16, 1, 32, 64, 64, 32, 3, 3, 1, 1, 1}:        {542736, 542736, 542736},
	{BF16, 1, 32, 64, 64, 64, 3, 3, 2, 1, 1}:        {430096, 430096, 430096},
	{BF16, 1, 64, 32, 32, 64, 3, 3, 1, 1, 1}:        {335888, 335888, 335888},
	{BF16, 1, 64, 56, 56, 64, 1, 1, 1, 0, 1}:        {0, 0, 16384},
	{BF16, 1, 64, 56, 56, 64, 3, 3, 1, 1, 1}:        {876560, 876560, 4202496},
	{BF16, 1, 64, 56, 56, 128, 1, 1, 2, 0, 1}:       {602128, 602128, 602128},
	{BF16, 1, 64, 56, 56, 128, 3, 3, 2, 1, 1}:       {749584, 749584, 749584},
	{BF16, 1, 64, 56, 56, 256, 1, 1, 1, 0, 1}:       {272, 0, 65536},
	{BF16, 1, 128, 28, 28, 128, 3, 3, 1, 1, 1}:      {696336, 696336, 696336},
	{BF16, 1, 128, 28, 28, 256, 1, 1, 2, 0, 1}:      {301072, 301072, 301072},
	{BF16, 1, 128, 28, 28, 256, 3, 3, 2, 1, 1}:      {890896, 890896, 890896},
	{BF16, 1, 128, 28, 28, 512, 1, 1, 1, 0, 1}:      {0, 0, 262144},
	{BF16, 1, 128, 56, 56, 128, 3, 3, 2, 1, 1}:      {1298448, 1298448, 1298448},
	{BF16, 1, 256, 14, 14, 256, 3, 3, 1, 1, 1}:      {1380368, 1380368, 1380496},
	{BF16, 1, 256, 14, 14, 512, 1, 1, 2, 0, 1}:      {150544, 150544, 150544},
	{BF16, 1, 256, 14, 14, 512, 3, 3, 2, 1, 1}:      {2509840, 2509840, 2509968},
	{BF16, 1, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:     {0, 3211520, 4194560},
	{BF16, 1, 256, 28, 28, 256, 3, 3, 2, 1, 1}:      {1681424, 1681424, 1681552},
	{BF16, 1, 256, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 0, 65536},
	{BF16, 1, 256, 56, 56, 128, 1, 1, 1, 0, 1}:      {0, 0, 131072},
	{BF16, 1, 256, 56, 56, 512, 1, 1, 2, 0, 1}:      {2408464, 2408464, 2408464},
	{BF16, 1, 512, 7, 7, 512, 3, 3, 1, 1, 1}:        {4818960, 4818960, 4819088},
	{BF16, 1, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:       {803072, 2408704, 250896},
	{BF16, 1, 512, 14, 14, 512, 3, 3, 2, 1, 1}:      {4969488, 4969488, 4969616},
	{BF16, 1, 512, 28, 28, 128, 1, 1, 1, 0, 1}:      {0, 0, 262144},
	{BF16, 1, 512, 28, 28, 256, 1, 1, 1, 0, 1}:      {0, 0, 524288},
	{BF16, 1, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:     {1204240, 1204240, 1204368},
	{BF16, 1, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:     {3211520, 0, 1048960},
	{BF16, 1, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:     {3211520, 3211520, 602128},
	{BF16, 1, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:    {602128, 602128, 602256},
	{BF16, 1, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:       {1605888, 1405184, 250896},
	{BF16, 2, 3, 128, 128, 32, 3, 3, 1, 1, 1}:       {0, 0, 3822551},
	{BF16, 2, 3, 224, 224, 64, 7, 7, 2, 3, 1}:       {0, 0, 7175312},
	{BF16, 2, 3, 224, 224, 768, 16, 16, 16, 0, 1}:   {5353488, 0, 5353488},
	{BF16, 2, 32, 64, 64, 32, 3, 3, 1, 1, 1}:        {1067024, 1067024, 1067024},
	{BF16, 2, 32, 64, 64, 64, 3, 3, 2, 1, 1}:        {823312, 823312, 823312},
	{BF16, 2, 64, 32, 32, 64, 3, 3, 1, 1, 1}:        {598032, 598032, 598032},
	{BF16, 2, 64, 56, 56, 64, 1, 1, 1, 0, 1}:        {0, 0, 32768},
	{BF16, 2, 64, 56, 56, 64, 3, 3, 1, 1, 1}:        {1679376, 1679376, 1679376},
	{BF16, 2, 64, 56, 56, 128, 1, 1, 2, 0, 1}:       {1204240, 1204240, 2220176},
	{BF16, 2, 64, 56, 56, 128, 3, 3, 2, 1, 1}:       {1351696, 1351696, 1351696},
	{BF16, 2, 64, 56, 56, 256, 1, 1, 1, 0, 1}:       {272, 0, 131072},
	{BF16, 2, 128, 28, 28, 128, 3, 3, 1, 1, 1}:      {1097744, 1097744, 1097744},
	{BF16, 2, 128, 28, 28, 256, 1, 1, 2, 0, 1}:      {602128, 602128, 602128},
	{BF16, 2, 128, 28, 28, 256, 3, 3, 2, 1, 1}:      {1191952, 1191952, 1191952},
	{BF16, 2, 128, 28, 28, 512, 1, 1, 1, 0, 1}:      {0, 0, 524288},
	{BF16, 2, 128, 56, 56, 128, 3, 3, 2, 1, 1}:      {2301968, 2301968, 2301968},
	{BF16, 2, 256, 14, 14, 256, 3, 3, 1, 1, 1}:      {1581072, 1581072, 1581072},
	{BF16, 2, 256, 14, 14, 512, 1, 1, 2, 0, 1}:      {301072, 301072, 301072},
	{BF16, 2, 256, 14, 14, 512, 3, 3, 2, 1, 1}:      {2660368, 2660368, 2660496},
	{BF16, 2, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:     {0, 0, 2097152},
	{BF16, 2, 256, 28, 28, 256, 3, 3, 2, 1, 1}:      {2183184, 2183184, 2183184},
	{BF16, 2, 256, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 0, 131072},
	{BF16, 2, 256, 56, 56, 128, 1, 1, 1, 0, 1}:      {0, 0, 262144},
	{BF16, 2, 256, 56, 56, 512, 1, 1, 2, 0, 1}:      {4816912, 4816912, 4816912},
	{BF16, 2, 512, 7, 7, 512, 3, 3, 1, 1, 1}:        {4919312, 4919312, 4919440},
	{BF16, 2, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:       {0, 501776, 501776},
	{BF16, 2, 512, 14, 14, 512, 3, 3, 2, 1, 1}:      {5220368, 5220368, 5220496},
	{BF16, 2, 512, 28, 28, 128, 1, 1, 1, 0, 1}:      {0, 0, 524288},
	{BF16, 2, 512, 28, 28, 256, 1, 1, 1, 0, 1}:      {0, 0, 1048576},
	{BF16, 2, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:     {2408464, 2408464, 2408592},
	{BF16, 2, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:     {0, 0, 2097152},
	{BF16, 2, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:     {0, 0, 4194304},
	{BF16, 2, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:    {1204240, 1204240, 1204368},
	{BF16, 2, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:       {501776, 501776, 501776},
	{BF16, 4, 3, 128, 128, 32, 3, 3, 1, 1, 1}:       {0, 0, 5804859},
	{BF16, 4, 3, 224, 224, 64, 7, 7, 2, 3, 1}:       {9683984, 0, 12594320},
	{BF16, 4, 32, 64, 64, 32, 3, 3, 1, 1, 1}:        {2115600, 2115600, 3442832},
	{BF16, 4, 32, 64, 64, 64, 3, 3, 2, 1, 1}:        {1609744, 1609744, 3231888},
	{BF16, 4, 64, 32, 32, 64, 3, 3, 1, 1, 1}:        {1122320, 1122320, 1122320},
	{BF16, 4, 64, 56, 56, 64, 1, 1, 1, 0, 1}:        {272, 272, 65536},
	{BF16, 4, 64, 56, 56, 64, 3, 3, 1, 1, 1}:        {3285008, 3285008, 3285008},
	{BF16, 4, 64, 56, 56, 128, 1, 1, 2, 0, 1}:       {2408464, 2408464, 3424400},
	{BF16, 4, 64, 56, 56, 128, 3, 3, 2, 1, 1}:       {2555920, 2556051, 2555920},
	{BF16, 4, 64, 56, 56, 256, 1, 1, 1, 0, 1}:       {272, 272, 262144},
	{BF16, 4, 128, 28, 28, 128, 3, 3, 1, 1, 1}:      {1900560, 1900560, 1900560},
	{BF16, 4, 128, 28, 28, 256, 1, 1, 2, 0, 1}:      {1204240, 1204240, 1204240},
	{BF16, 4, 128, 28, 28, 256, 3, 3, 2, 1, 1}:      {1794064, 1794064, 1794064},
	{BF16, 4, 128, 28, 28, 512, 1, 1, 1, 0, 1}:      {0, 0, 1048576},
	{BF16, 4, 128, 56, 56, 128, 3, 3, 2, 1, 1}:      {4309008, 4309008, 4309008},
	{BF16, 4, 256, 14, 14, 256, 3, 3, 1, 1, 1}:      {1982480, 1982480, 1982480},
	{BF16, 4, 256, 14, 14, 512, 1, 1, 2, 0, 1}:      {602128, 602128, 602128},
	{BF16, 4, 256, 14, 14, 512, 3, 3, 2, 1, 1}:      {2961424, 2961424, 2961552},
	{BF16, 4, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:     {0, 0, 4194304},
	{BF16, 4, 256, 28, 28, 256, 3, 3, 2, 1, 1}:      {3186704, 3186704, 3186704},
	{BF16, 4, 256, 56, 56, 64, 1, 1, 1, 0, 1}:       {272, 272, 262144},
	{BF16, 4, 256, 56, 56, 128, 1, 1, 1, 0, 1}:      {0, 0, 524288},
	{BF16, 4, 256, 56, 56, 512, 1, 1, 2, 0, 1}:      {9633808, 9633808, 9633808},
	{BF16, 4, 512, 7, 7, 512, 3, 3, 1, 1, 1}:        {5120016, 5120016, 5120016},
	{BF16, 4, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:       {1003536, 1003536, 1003536},
	{BF16, 4, 512, 14, 14, 512, 3, 3, 2, 1, 1}:      {5722128, 5722128, 5722128},
	{BF16, 4, 512, 28, 28, 128, 1, 1, 1, 0, 1}:      {0, 0, 1048576},
	{BF16, 4, 512, 28, 28, 256, 1, 1, 1, 0, 1}:      {0, 0, 2097152},
	{BF16, 4, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:     {4816912, 4817043, 4816912},
	{BF16, 4, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:     {0, 0, 4194304},
	{BF16, 4, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:     {0, 0, 8388608},
	{BF16, 4, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:    {2408464, 2408595, 2408592},
	{BF16, 4, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:       {1003536, 1003536, 1003536},
	{BF16, 12, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 17781927},
	{BF16, 12, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {28951568, 0, 31962256},
	{BF16, 12, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {16392208, 0, 16392208},
	{BF16, 12, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {6309904, 6309904, 13875847},
	{BF16, 12, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {4755472, 4755603, 6451344},
	{BF16, 12, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {3219472, 3219472, 3219472},
	{BF16, 12, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 0, 196608},
	{BF16, 12, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {9707536, 9707536, 11625127},
	{BF16, 12, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {7225360, 7225360, 8241296},
	{BF16, 12, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {7372816, 7372947, 7372816},
	{BF16, 12, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {0, 0, 786432},
	{BF16, 12, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {5111824, 5111824, 5111824},
	{BF16, 12, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {3612688, 3612819, 3612688},
	{BF16, 12, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {4202512, 4202512, 4202512},
	{BF16, 12, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {272, 272, 3145728},
	{BF16, 12, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {12337168, 12337299, 12337168},
	{BF16, 12, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {3588112, 3588112, 3588112},
	{BF16, 12, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {1806352, 1806352, 1806352},
	{BF16, 12, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {4165648, 4165779, 4165648},
	{BF16, 12, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {6021136, 0, 12582912},
	{BF16, 12, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {7200784, 7200915, 7200784},
	{BF16, 12, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 0, 786432},
	{BF16, 12, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {0, 0, 1572864},
	{BF16, 12, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {28901523, 28901523, 28901392},
	{BF16, 12, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {5922832, 5922832, 5922832},
	{BF16, 12, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {400, 3010576, 3010576},
	{BF16, 12, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {7729168, 7729299, 7729168},
	{BF16, 12, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {272, 0, 3145728},
	{BF16, 12, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {272, 0, 6291456},
	{BF16, 12, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {14450704, 14450835, 14450704},
	{BF16, 12, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {0, 0, 6021136},
	{BF16, 12, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {0, 0, 7225360},
	{BF16, 12, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {7225360, 7225491, 7225360},
	{BF16, 12, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {0, 3010576, 3010576},
	{BF16, 24, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 33510567},
	{BF16, 24, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {57852944, 0, 63974544},
	{BF16, 24, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {29638672, 0, 48513168},
	{BF16, 24, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {12601360, 12601491, 14850192},
	{BF16, 24, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {9474064, 9474195, 11276943},
	{BF16, 24, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {6365200, 6365200, 8282791},
	{BF16, 24, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 0, 393216},
	{BF16, 24, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {19341459, 19341459, 21258919},
	{BF16, 24, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {256, 14450835, 15204496},
	{BF16, 24, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {14598291, 14598291, 18432679},
	{BF16, 24, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {0, 0, 1572864},
	{BF16, 24, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {9928720, 9928720, 12288391},
	{BF16, 24, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {7225360, 7225491, 7225360},
	{BF16, 24, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {7815184, 7815315, 7815184},
	{BF16, 24, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {0, 0, 6291728},
	{BF16, 24, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {24379408, 24379539, 26739079},
	{BF16, 24, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {5996560, 5996560, 5996560},
	{BF16, 24, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {3612688, 3612688, 3612688},
	{BF16, 24, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {5971984, 5972115, 5971984},
	{BF16, 24, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {12042256, 0, 12042256},
	{BF16, 24, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {13221904, 13222035, 13221904},
	{BF16, 24, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 48169107, 1572864},
	{BF16, 24, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {0, 57802899, 3145728},
	{BF16, 24, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {57802899, 57802899, 58851631},
	{BF16, 24, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {7127056, 7127056, 7127056},
	{BF16, 24, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {6021267, 6021136, 6021136},
	{BF16, 24, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {10739728, 10739859, 10739728},
	{BF16, 24, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {0, 0, 6291456},
	{BF16, 24, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {0, 0, 12582912},
	{BF16, 24, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {28901523, 28901523, 28901392},
	{BF16, 24, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {12042256, 0, 12042256},
	{BF16, 24, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {14450704, 0, 14450704},
	{BF16, 24, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {14450704, 14450835, 14450704},
	{BF16, 24, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {6021136, 6021136, 6021136},
	{BF16, 48, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 64885907},
	{BF16, 48, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {115655696, 0, 121676944},
	{BF16, 48, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {56131600, 0, 75006096},
	{BF16, 48, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {25184403, 25184403, 29166727},
	{BF16, 48, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {18911248, 18911379, 20714127},
	{BF16, 48, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {12656656, 12656787, 14574247},
	{BF16, 48, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 0, 786432},
	{BF16, 48, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {38609043, 38609043, 40526503},
	{BF16, 48, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {256, 28901523, 29655184},
	{BF16, 48, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {29048979, 29048979, 32883367},
	{BF16, 48, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {272, 0, 3146000},
	{BF16, 48, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {19562643, 19562643, 21922183},
	{BF16, 48, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {14450704, 14450835, 14450704},
	{BF16, 48, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {15040528, 15040659, 15040528},
	{BF16, 48, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {0, 0, 12582912},
	{BF16, 48, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {48464019, 48464019, 50823559},
	{BF16, 48, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {10813456, 10813587, 10813456},
	{BF16, 48, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {7225360, 7225491, 7225360},
	{BF16, 48, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {9584787, 9584787, 9584656},
	{BF16, 48, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {0, 0, 24084496},
	{BF16, 48, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {25264144, 25264275, 25264144},
	{BF16, 48, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 0, 3146000},
	{BF16, 48, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {272, 0, 6291728},
	{BF16, 48, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {115605651, 115605651, 116654383},
	{BF16, 48, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {9535504, 9535504, 9535635},
	{BF16, 48, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {12042387, 12042256, 12042256},
	{BF16, 48, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {16760848, 16760979, 16760979},
	{BF16, 48, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {272, 0, 12582912},
	{BF16, 48, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {272, 0, 25165824},
	{BF16, 48, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {57802899, 57802899, 57802768},
	{BF16, 48, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {0, 0, 24084496},
	{BF16, 48, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {0, 0, 28901392},
	{BF16, 48, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {28901523, 28901523, 28901392},
	{BF16, 48, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {12042256, 0, 12042256},
	{BF16, 96, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 127800467},
	{BF16, 96, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {231261200, 0, 237382800},
	{BF16, 96, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {109117456, 0, 134283408},
	{BF16, 96, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {50350227, 50350227, 54332551},
	{BF16, 96, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {37785747, 37785747, 41555035},
	{BF16, 96, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {25239699, 25239699, 27157159},
	{BF16, 96, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 0, 1572864},
	{BF16, 96, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {77144211, 77144211, 79061671},
	{BF16, 96, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {256, 57802899, 59376127},
	{BF16, 96, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {57950355, 57950355, 61784743},
	{BF16, 96, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {272, 272, 6291728},
	{BF16, 96, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {38830227, 38830227, 46498471},
	{BF16, 96, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {28901523, 28901523, 32834191},
	{BF16, 96, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {29491347, 29491347, 32112975},
	{BF16, 96, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {0, 0, 25165824},
	{BF16, 96, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {96632979, 96632979, 104301223},
	{BF16, 96, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {20447379, 20447379, 25166143},
	{BF16, 96, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {14450704, 14450835, 14450704},
	{BF16, 96, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {16810000, 16810131, 20087159},
	{BF16, 96, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {0, 0, 50266415},
	{BF16, 96, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {49348755, 49348755, 54067519},
	{BF16, 96, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 272, 6291728},
	{BF16, 96, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {272, 272, 12583184},
	{BF16, 96, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {231211155, 231211155, 234881647},
	{BF16, 96, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {19595599, 14352531, 17498383},
	{BF16, 96, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {24084627, 24084627, 24084496},
	{BF16, 96, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {34046287, 28803219, 31949071},
	{BF16, 96, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {272, 0, 25165824},
	{BF16, 96, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {272, 0, 50331648},
	{BF16, 96, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {115605651, 115605651, 119800111},
	{BF16, 96, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {0, 0, 50266415},
	{BF16, 96, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {57802899, 57802899, 57802768},
	{BF16, 96, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {57802899, 57802899, 57802768},
	{BF16, 96, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {24084627, 24084627, 24084496},
	{BF16, 192, 3, 128, 128, 32, 3, 3, 1, 1, 1}:     {0, 0, 253711527},
	{BF16, 192, 3, 224, 224, 64, 7, 7, 2, 3, 1}:     {462472208, 0, 468593808},
	{BF16, 192, 3, 224, 224, 768, 16, 16, 16, 0, 1}: {215089168, 0, 240255120},
	{BF16, 192, 32, 64, 64, 32, 3, 3, 1, 1, 1}:      {100681875, 100681875, 104664199},
	{BF16, 192, 32, 64, 64, 64, 3, 3, 2, 1, 1}:      {75534483, 75534483, 79303771},
	{BF16, 192, 64, 32, 32, 64, 3, 3, 1, 1, 1}:      {50405523, 50405523, 52322983},
	{BF16, 192, 64, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 272, 3146000},
	{BF16, 192, 64, 56, 56, 64, 3, 3, 1, 1, 1}:      {154214547, 154214547, 156132007},
	{BF16, 192, 64, 56, 56, 128, 1, 1, 2, 0, 1}:     {256, 115605651, 117178879},
	{BF16, 192, 64, 56, 56, 128, 3, 3, 2, 1, 1}:     {115753107, 115753107, 119587495},
	{BF16, 192, 64, 56, 56, 256, 1, 1, 1, 0, 1}:     {272, 272, 12582912},
	{BF16, 192, 128, 28, 28, 128, 3, 3, 1, 1, 1}:    {77365395, 77365395, 85033639},
	{BF16, 192, 128, 28, 28, 256, 1, 1, 2, 0, 1}:    {57802899, 57802899, 61735567},
	{BF16, 192, 128, 28, 28, 256, 3, 3, 2, 1, 1}:    {58392723, 58392723, 62325391},
	{BF16, 192, 128, 28, 28, 512, 1, 1, 1, 0, 1}:    {272, 272, 50331648},
	{BF16, 192, 128, 56, 56, 128, 3, 3, 2, 1, 1}:    {192970899, 192970899, 200639143},
	{BF16, 192, 256, 14, 14, 256, 3, 3, 1, 1, 1}:    {39714963, 39714963, 46793311},
	{BF16, 192, 256, 14, 14, 512, 1, 1, 2, 0, 1}:    {28901523, 28901523, 29950191},
	{BF16, 192, 256, 14, 14, 512, 3, 3, 2, 1, 1}:    {31260819, 31260819, 34013527},
	{BF16, 192, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:   {0, 0, 99484207},
	{BF16, 192, 256, 28, 28, 256, 3, 3, 2, 1, 1}:    {97517715, 97517715, 104596063},
	{BF16, 192, 256, 56, 56, 64, 1, 1, 1, 0, 1}:     {0, 272, 12583184},
	{BF16, 192, 256, 56, 56, 128, 1, 1, 1, 0, 1}:    {272, 272, 25165824},
	{BF16, 192, 256, 56, 56, 512, 1, 1, 2, 0, 1}:    {462422163, 462422163, 466092655},
	{BF16, 192, 512, 7, 7, 512, 3, 3, 1, 1, 1}:      {23986323, 23986323, 30278095},
	{BF16, 192, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:     {48169107, 48169107, 48168976},
	{BF16, 192, 512, 14, 14, 512, 3, 3, 2, 1, 1}:    {52887699, 52887699, 59179471},
	{BF16, 192, 512, 28, 28, 128, 1, 1, 1, 0, 1}:    {272, 272, 50331648},
	{BF16, 192, 512, 28, 28, 256, 1, 1, 1, 0, 1}:    {272, 272, 100663296},
	{BF16, 192, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:   {231211155, 231211155, 237503023},
	{BF16, 192, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:   {0, 0, 99484207},
	{BF16, 192, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:   {115605651, 115605651, 121897519},
	{BF16, 192, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:  {115605651, 115605651, 115605520},
	{BF16, 192, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:     {48169107, 48169107, 49217807},
	{BF16, 256, 3, 128, 128, 32, 3, 3, 1, 1, 1}:     {0, 0, 337597607},
	{BF16, 256, 3, 224, 224, 64, 7, 7, 2, 3, 1}:     {616612880, 0, 622734480},
	{BF16, 256, 3, 224, 224, 768, 16, 16, 16, 0, 1}: {285736976, 0, 310902928},
	{BF16, 256, 32, 64, 64, 32, 3, 3, 1, 1, 1}:      {134236307, 134236307, 138218631},
	{BF16, 256, 32, 64, 64, 64, 3, 3, 2, 1, 1}:      {100700307, 100700307, 104469595},
	{BF16, 256, 64, 32, 32, 64, 3, 3, 1, 1, 1}:      {67182739, 67182739, 69100199},
	{BF16, 256, 64, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 272, 4194576},
	{BF16, 256, 64, 56, 56, 64, 3, 3, 1, 1, 1}:      {205594771, 205594771, 207512231},
	{BF16, 256, 64, 56, 56, 128, 1, 1, 2, 0, 1}:     {256, 154140819, 155714047},
	{BF16, 256, 64, 56, 56, 128, 3, 3, 2, 1, 1}:     {154288275, 154288275, 158122663},
	{BF16, 256, 64, 56, 56, 256, 1, 1, 1, 0, 1}:     {272, 272, 16777216},
	{BF16, 256, 128, 28, 28, 128, 3, 3, 1, 1, 1}:    {103055507, 103055507, 110723751},
	{BF16, 256, 128, 28, 28, 256, 1, 1, 2, 0, 1}:    {77070483, 77070483, 81003151},
	{BF16, 256, 128, 28, 28, 256, 3, 3, 2, 1, 1}:    {77660307, 77660307, 81592975},
	{BF16, 256, 128, 28, 28, 512, 1, 1, 1, 0, 1}:    {272, 272, 67108864},
	{BF16, 256, 128, 56, 56, 128, 3, 3, 2, 1, 1}:    {257196179, 257196179, 264864423},
	{BF16, 256, 256, 14, 14, 256, 3, 3, 1, 1, 1}:    {52560019, 52560019, 69075623},
	{BF16, 256, 256, 14, 14, 512, 1, 1, 2, 0, 1}:    {38535315, 38535315, 39583983},
	{BF16, 256, 256, 14, 14, 512, 3, 3, 2, 1, 1}:    {40894611, 40894611, 44827279},
	{BF16, 256, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:   {0, 0, 131596847},
	{BF16, 256, 256, 28, 28, 256, 3, 3, 2, 1, 1}:    {129630355, 129630355, 146145959},
	{BF16, 256, 256, 56, 56, 64, 1, 1, 1, 0, 1}:     {0, 272, 16777488},
	{BF16, 256, 256, 56, 56, 128, 1, 1, 1, 0, 1}:    {272, 272, 33554432},
	{BF16, 256, 256, 56, 56, 512, 1, 1, 2, 0, 1}:    {616562835, 616562835, 620233327},
	{BF16, 256, 512, 7, 7, 512, 3, 3, 1, 1, 1}:      {30408851, 30408851, 38273775},
	{BF16, 256, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:     {64225427, 64225427, 64225296},
	{BF16, 256, 512, 14, 14, 512, 3, 3, 2, 1, 1}:    {68944019, 68944019, 76808943},
	{BF16, 256, 512, 28, 28, 128, 1, 1, 1, 0, 1}:    {272, 272, 67108864},
	{BF16, 256, 512, 28, 28, 256, 1, 1, 1, 0, 1}:    {272, 272, 134217728},
	{BF16, 256, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:   {308281491, 308281491, 325059183},
	{BF16, 256, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:   {0, 0, 135791215},
	{BF16, 256, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:   {154140819, 154140819, 160432687},
	{BF16, 256, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:  {154140819, 154140819, 154140688},
	{BF16, 256, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:     {64225427, 64225427, 65274127},
	{FP16, 1, 3, 128, 128, 32, 3, 3, 1, 1, 1}:       {0, 0, 2511831},
	{FP16, 1, 3, 224, 224, 64, 7, 7, 2, 3, 1}:       {0, 0, 4365456},
	{FP16, 1, 3, 224, 224, 768, 16, 16, 16, 0, 1}:   {4249616, 0, 4249744},
	{FP16, 1, 32, 64, 64, 32, 3, 3, 1, 1, 1}:        {542736, 542736, 542736},
	{FP16, 1, 32, 64, 64, 64, 3, 3, 2, 1, 1}:        {430096, 430096, 430096},
	{FP16, 1, 64, 32, 32, 64, 3, 3, 1, 1, 1}:        {335888, 335888, 335888},
	{FP16, 1, 64, 56, 56, 64, 1, 1, 1, 0, 1}:        {0, 0, 16384},
	{FP16, 1, 64, 56, 56, 64, 3, 3, 1, 1, 1}:        {876560, 876560, 4202496},
	{FP16, 1, 64, 56, 56, 128, 1, 1, 2, 0, 1}:       {602128, 602128, 602128},
	{FP16, 1, 64, 56, 56, 128, 3, 3, 2, 1, 1}:       {749584, 749584, 749584},
	{FP16, 1, 64, 56, 56, 256, 1, 1, 1, 0, 1}:       {272, 0, 65536},
	{FP16, 1, 128, 28, 28, 128, 3, 3, 1, 1, 1}:      {696336, 696336, 696336},
	{FP16, 1, 128, 28, 28, 256, 1, 1, 2, 0, 1}:      {301072, 301072, 301072},
	{FP16, 1, 128, 28, 28, 256, 3, 3, 2, 1, 1}:      {890896, 890896, 890896},
	{FP16, 1, 128, 28, 28, 512, 1, 1, 1, 0, 1}:      {0, 0, 262144},
	{FP16, 1, 128, 56, 56, 128, 3, 3, 2, 1, 1}:      {1298448, 1298448, 1298448},
	{FP16, 1, 256, 14, 14, 256, 3, 3, 1, 1, 1}:      {1380368, 1380368, 1380496},
	{FP16, 1, 256, 14, 14, 512, 1, 1, 2, 0, 1}:      {150544, 150544, 150544},
	{FP16, 1, 256, 14, 14, 512, 3, 3, 2, 1, 1}:      {2509840, 2509840, 2509968},
	{FP16, 1, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:     {0, 3211520, 1048576},
	{FP16, 1, 256, 28, 28, 256, 3, 3, 2, 1, 1}:      {1681424, 1681424, 1681552},
	{FP16, 1, 256, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 0, 65536},
	{FP16, 1, 256, 56, 56, 128, 1, 1, 1, 0, 1}:      {0, 0, 131072},
	{FP16, 1, 256, 56, 56, 512, 1, 1, 2, 0, 1}:      {2408464, 2408464, 2408464},
	{FP16, 1, 512, 7, 7, 512, 3, 3, 1, 1, 1}:        {4818960, 4818960, 4819088},
	{FP16, 1, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:       {768, 3211520, 250896},
	{FP16, 1, 512, 14, 14, 512, 3, 3, 2, 1, 1}:      {4969488, 4969488, 4969616},
	{FP16, 1, 512, 28, 28, 128, 1, 1, 1, 0, 1}:      {0, 0, 262144},
	{FP16, 1, 512, 28, 28, 256, 1, 1, 1, 0, 1}:      {0, 0, 524288},
	{FP16, 1, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:     {1204240, 1204240, 1204368},
	{FP16, 1, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:     {3211520, 0, 1048576},
	{FP16, 1, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:     {3211520, 6422784, 602128},
	{FP16, 1, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:    {602128, 602128, 602256},
	{FP16, 1, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:       {3211520, 768, 250896},
	{FP16, 2, 3, 128, 128, 32, 3, 3, 1, 1, 1}:       {0, 0, 3822551},
	{FP16, 2, 3, 224, 224, 64, 7, 7, 2, 3, 1}:       {0, 0, 7175312},
	{FP16, 2, 3, 224, 224, 768, 16, 16, 16, 0, 1}:   {5353488, 0, 5353488},
	{FP16, 2, 32, 64, 64, 32, 3, 3, 1, 1, 1}:        {1067024, 1067024, 2902639},
	{FP16, 2, 32, 64, 64, 64, 3, 3, 2, 1, 1}:        {823312, 823312, 823312},
	{FP16, 2, 64, 32, 32, 64, 3, 3, 1, 1, 1}:        {598032, 598032, 598032},
	{FP16, 2, 64, 56, 56, 64, 1, 1, 1, 0, 1}:        {0, 0, 32768},
	{FP16, 2, 64, 56, 56, 64, 3, 3, 1, 1, 1}:        {1679376, 1679376, 2466111},
	{FP16, 2, 64, 56, 56, 128, 1, 1, 2, 0, 1}:       {1204240, 1204240, 2220176},
	{FP16, 2, 64, 56, 56, 128, 3, 3, 2, 1, 1}:       {1351696, 1351696, 1351696},
	{FP16, 2, 64, 56, 56, 256, 1, 1, 1, 0, 1}:       {272, 0, 131072},
	{FP16, 2, 128, 28, 28, 128, 3, 3, 1, 1, 1}:      {1097744, 1097744, 1097744},
	{FP16, 2, 128, 28, 28, 256, 1, 1, 2, 0, 1}:      {602128, 602128, 602128},
	{FP16, 2, 128, 28, 28, 256, 3, 3, 2, 1, 1}:      {1191952, 1191952, 1191952},
	{FP16, 2, 128, 28, 28, 512, 1, 1, 1, 0, 1}:      {0, 0, 524288},
	{FP16, 2, 128, 56, 56, 128, 3, 3, 2, 1, 1}:      {2301968, 2301968, 2301968},
	{FP16, 2, 256, 14, 14, 256, 3, 3, 1, 1, 1}:      {1581072, 1581072, 1581072},
	{FP16, 2, 256, 14, 14, 512, 1, 1, 2, 0, 1}:      {301072, 301072, 301072},
	{FP16, 2, 256, 14, 14, 512, 3, 3, 2, 1, 1}:      {2660368, 2660368, 2660496},
	{FP16, 2, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:     {0, 0, 2097152},
	{FP16, 2, 256, 28, 28, 256, 3, 3, 2, 1, 1}:      {2183184, 2183184, 2183184},
	{FP16, 2, 256, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 0, 131072},
	{FP16, 2, 256, 56, 56, 128, 1, 1, 1, 0, 1}:      {0, 0, 262144},
	{FP16, 2, 256, 56, 56, 512, 1, 1, 2, 0, 1}:      {4816912, 4816912, 4816912},
	{FP16, 2, 512, 7, 7, 512, 3, 3, 1, 1, 1}:        {4919312, 4919312, 4919440},
	{FP16, 2, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:       {0, 501776, 501776},
	{FP16, 2, 512, 14, 14, 512, 3, 3, 2, 1, 1}:      {5220368, 5220368, 5220496},
	{FP16, 2, 512, 28, 28, 128, 1, 1, 1, 0, 1}:      {0, 0, 524288},
	{FP16, 2, 512, 28, 28, 256, 1, 1, 1, 0, 1}:      {0, 0, 1048576},
	{FP16, 2, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:     {2408464, 2408464, 2408592},
	{FP16, 2, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:     {0, 0, 2097152},
	{FP16, 2, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:     {0, 0, 4194304},
	{FP16, 2, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:    {1204240, 1204240, 1204368},
	{FP16, 2, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:       {501776, 501776, 501776},
	{FP16, 4, 3, 128, 128, 32, 3, 3, 1, 1, 1}:       {0, 0, 5804859},
	{FP16, 4, 3, 224, 224, 64, 7, 7, 2, 3, 1}:       {8053264, 0, 12594320},
	{FP16, 4, 32, 64, 64, 32, 3, 3, 1, 1, 1}:        {2115600, 2115600, 3442832},
	{FP16, 4, 32, 64, 64, 64, 3, 3, 2, 1, 1}:        {1609744, 1609744, 3231888},
	{FP16, 4, 64, 32, 32, 64, 3, 3, 1, 1, 1}:        {1122320, 1122320, 1909055},
	{FP16, 4, 64, 56, 56, 64, 1, 1, 1, 0, 1}:        {272, 272, 65536},
	{FP16, 4, 64, 56, 56, 64, 3, 3, 1, 1, 1}:        {3285008, 3285008, 4858367},
	{FP16, 4, 64, 56, 56, 128, 1, 1, 2, 0, 1}:       {2408464, 2408464, 3424400},
	{FP16, 4, 64, 56, 56, 128, 3, 3, 2, 1, 1}:       {2555920, 2556051, 2555920},
	{FP16, 4, 64, 56, 56, 256, 1, 1, 1, 0, 1}:       {272, 272, 262144},
	{FP16, 4, 128, 28, 28, 128, 3, 3, 1, 1, 1}:      {1900560, 1900560, 1900560},
	{FP16, 4, 128, 28, 28, 256, 1, 1, 2, 0, 1}:      {1204240, 1204240, 1204240},
	{FP16, 4, 128, 28, 28, 256, 3, 3, 2, 1, 1}:      {1794064, 1794064, 1794064},
	{FP16, 4, 128, 28, 28, 512, 1, 1, 1, 0, 1}:      {0, 0, 1048576},
	{FP16, 4, 128, 56, 56, 128, 3, 3, 2, 1, 1}:      {4309008, 4309008, 4309008},
	{FP16, 4, 256, 14, 14, 256, 3, 3, 1, 1, 1}:      {1982480, 1982480, 1982480},
	{FP16, 4, 256, 14, 14, 512, 1, 1, 2, 0, 1}:      {602128, 602128, 602128},
	{FP16, 4, 256, 14, 14, 512, 3, 3, 2, 1, 1}:      {2961424, 2961424, 2961552},
	{FP16, 4, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:     {0, 0, 4194304},
	{FP16, 4, 256, 28, 28, 256, 3, 3, 2, 1, 1}:      {3186704, 3186704, 3186704},
	{FP16, 4, 256, 56, 56, 64, 1, 1, 1, 0, 1}:       {272, 272, 262144},
	{FP16, 4, 256, 56, 56, 128, 1, 1, 1, 0, 1}:      {0, 0, 524288},
	{FP16, 4, 256, 56, 56, 512, 1, 1, 2, 0, 1}:      {9633808, 9633808, 9633808},
	{FP16, 4, 512, 7, 7, 512, 3, 3, 1, 1, 1}:        {5120016, 5120016, 5120016},
	{FP16, 4, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:       {1003536, 1003536, 1003536},
	{FP16, 4, 512, 14, 14, 512, 3, 3, 2, 1, 1}:      {5722128, 5722128, 5722128},
	{FP16, 4, 512, 28, 28, 128, 1, 1, 1, 0, 1}:      {0, 0, 1048576},
	{FP16, 4, 512, 28, 28, 256, 1, 1, 1, 0, 1}:      {0, 0, 2097152},
	{FP16, 4, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:     {4816912, 4817043, 4816912},
	{FP16, 4, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:     {0, 0, 4194304},
	{FP16, 4, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:     {0, 0, 8388608},
	{FP16, 4, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:    {2408464, 2408595, 2408592},
	{FP16, 4, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:       {1003536, 1003536, 1003536},
	{FP16, 12, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 17781927},
	{FP16, 12, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {24109584, 0, 31962256},
	{FP16, 12, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {16392208, 0, 16392208},
	{FP16, 12, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {6309904, 6309904, 13875847},
	{FP16, 12, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {4755472, 4755603, 6451344},
	{FP16, 12, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {3219472, 3219472, 4792831},
	{FP16, 12, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 0, 196608},
	{FP16, 12, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {9707536, 9707536, 11625127},
	{FP16, 12, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {7225360, 7225360, 8241296},
	{FP16, 12, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {7372816, 7372947, 7372816},
	{FP16, 12, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {0, 0, 786432},
	{FP16, 12, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {5111824, 5111824, 5111824},
	{FP16, 12, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {3612688, 3612819, 3612688},
	{FP16, 12, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {4202512, 4202512, 4202512},
	{FP16, 12, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {272, 272, 3145728},
	{FP16, 12, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {12337168, 12337299, 12337168},
	{FP16, 12, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {3588112, 3588112, 3588112},
	{FP16, 12, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {1806352, 1806352, 1806352},
	{FP16, 12, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {4165648, 4165779, 7442807},
	{FP16, 12, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {6021136, 0, 12582912},
	{FP16, 12, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {7200784, 7200915, 7200784},
	{FP16, 12, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 0, 786432},
	{FP16, 12, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {0, 0, 1572864},
	{FP16, 12, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {28901523, 28901523, 28901392},
	{FP16, 12, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {5922832, 5922832, 5922832},
	{FP16, 12, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {0, 3010576, 3010576},
	{FP16, 12, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {7729168, 7729299, 7729168},
	{FP16, 12, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {272, 0, 3145728},
	{FP16, 12, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {272, 0, 6291456},
	{FP16, 12, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {14450704, 14450835, 14450704},
	{FP16, 12, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {0, 0, 6021136},
	{FP16, 12, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {0, 0, 7225360},
	{FP16, 12, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {7225360, 7225491, 7225360},
	{FP16, 12, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {0, 3010576, 3010576},
	{FP16, 24, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 33510567},
	{FP16, 24, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {48194064, 0, 48395151},
	{FP16, 24, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {29638672, 0, 48513168},
	{FP16, 24, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {12601360, 12601491, 14850192},
	{FP16, 24, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {9474064, 9474195, 11276943},
	{FP16, 24, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {6365200, 6365200, 8282791},
	{FP16, 24, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 0, 393216},
	{FP16, 24, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {19341459, 19341459, 21258919},
	{FP16, 24, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {256, 14450835, 15204496},
	{FP16, 24, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {14598291, 14598291, 18432679},
	{FP16, 24, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {0, 0, 1572864},
	{FP16, 24, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {16220719, 9928720, 13468255},
	{FP16, 24, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {7225360, 7225491, 7225360},
	{FP16, 24, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {7815184, 7815315, 7815184},
	{FP16, 24, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {0, 0, 6291728},
	{FP16, 24, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {24379408, 24379539, 27918943},
	{FP16, 24, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {5996560, 5996560, 5996560},
	{FP16, 24, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {3612688, 3612688, 3612688},
	{FP16, 24, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {5971984, 5972115, 9249143},
	{FP16, 24, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {12042256, 0, 12042256},
	{FP16, 24, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {13221904, 13222035, 13221904},
	{FP16, 24, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 48169107, 1572864},
	{FP16, 24, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {0, 57802899, 3145728},
	{FP16, 24, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {57802899, 57802899, 59376175},
	{FP16, 24, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {7127056, 7127056, 7127056},
	{FP16, 24, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {6021267, 6021136, 6021136},
	{FP16, 24, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {10739728, 10739859, 10739728},
	{FP16, 24, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {0, 0, 6291456},
	{FP16, 24, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {0, 0, 12582912},
	{FP16, 24, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {28901523, 28901523, 28901392},
	{FP16, 24, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {12042256, 0, 12042256},
	{FP16, 24, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {14450704, 0, 14450704},
	{FP16, 24, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {14450704, 14450835, 14450704},
	{FP16, 24, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {7987855, 6021136, 6021136},
	{FP16, 48, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 64885907},
	{FP16, 48, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {96363024, 0, 96564111},
	{FP16, 48, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {56131600, 0, 75006096},
	{FP16, 48, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {25184403, 25184403, 29166727},
	{FP16, 48, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {18911248, 18911379, 20714127},
	{FP16, 48, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {12656656, 12656787, 14574247},
	{FP16, 48, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 0, 786432},
	{FP16, 48, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {38609043, 38609043, 40526503},
	{FP16, 48, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {256, 28901523, 29655184},
	{FP16, 48, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {29048979, 29048979, 32883367},
	{FP16, 48, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {272, 0, 3146000},
	{FP16, 48, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {19562643, 26902931, 23102047},
	{FP16, 48, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {14450704, 14450835, 14450704},
	{FP16, 48, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {15040528, 15040659, 15040528},
	{FP16, 48, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {0, 0, 12582912},
	{FP16, 48, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {48464019, 48464019, 52003423},
	{FP16, 48, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {10813456, 10813587, 10813456},
	{FP16, 48, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {7225360, 7225491, 7225360},
	{FP16, 48, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {9584787, 9584787, 12861815},
	{FP16, 48, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {0, 0, 24084496},
	{FP16, 48, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {25264144, 25264275, 25264144},
	{FP16, 48, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 0, 3146000},
	{FP16, 48, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {272, 0, 6291728},
	{FP16, 48, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {115605651, 115605651, 117178927},
	{FP16, 48, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {9535504, 9535504, 9535635},
	{FP16, 48, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {12042387, 15975055, 12042256},
	{FP16, 48, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {16760848, 16760979, 16760979},
	{FP16, 48, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {272, 0, 12582912},
	{FP16, 48, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {272, 0, 25165824},
	{FP16, 48, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {57802899, 57802899, 57802768},
	{FP16, 48, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {0, 0, 24084496},
	{FP16, 48, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {0, 0, 28901392},
	{FP16, 48, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {28901523, 28901523, 28901392},
	{FP16, 48, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {15188527, 0, 12042256},
	{FP16, 96, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 127800467},
	{FP16, 96, 3, 224, 224, 64, 7, 7, 2, 3, 1}:      {192700944, 0, 193102959},
	{FP16, 96, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {109117456, 0, 134283408},
	{FP16, 96, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {50350227, 50350227, 54332551},
	{FP16, 96, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {37785747, 37785747, 41555035},
	{FP16, 96, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {25239699, 25239699, 27157159},
	{FP16, 96, 64, 56, 56, 64, 1, 1, 1, 0, 1}:       {0, 0, 1572864},
	{FP16, 96, 64, 56, 56, 64, 3, 3, 1, 1, 1}:       {77144211, 77144211, 79061671},
	{FP16, 96, 64, 56, 56, 128, 1, 1, 2, 0, 1}:      {256, 57802899, 59376127},
	{FP16, 96, 64, 56, 56, 128, 3, 3, 2, 1, 1}:      {57950355, 57950355, 61784743},
	{FP16, 96, 64, 56, 56, 256, 1, 1, 1, 0, 1}:      {272, 272, 6291728},
	{FP16, 96, 128, 28, 28, 128, 3, 3, 1, 1, 1}:     {38830227, 38830227, 46498471},
	{FP16, 96, 128, 28, 28, 256, 1, 1, 2, 0, 1}:     {28901523, 28901523, 32834191},
	{FP16, 96, 128, 28, 28, 256, 3, 3, 2, 1, 1}:     {29491216, 29491347, 33424015},
	{FP16, 96, 128, 28, 28, 512, 1, 1, 1, 0, 1}:     {0, 0, 25165824},
	{FP16, 96, 128, 56, 56, 128, 3, 3, 2, 1, 1}:     {96632979, 96632979, 104301223},
	{FP16, 96, 256, 14, 14, 256, 3, 3, 1, 1, 1}:     {20447379, 20447379, 27525727},
	{FP16, 96, 256, 14, 14, 512, 1, 1, 2, 0, 1}:     {14450704, 14450835, 14450704},
	{FP16, 96, 256, 14, 14, 512, 3, 3, 2, 1, 1}:     {16810000, 16810131, 20087159},
	{FP16, 96, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:    {0, 0, 51315247},
	{FP16, 96, 256, 28, 28, 256, 3, 3, 2, 1, 1}:     {49348624, 49348755, 56427103},
	{FP16, 96, 256, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 272, 6291728},
	{FP16, 96, 256, 56, 56, 128, 1, 1, 1, 0, 1}:     {272, 272, 12583184},
	{FP16, 96, 256, 56, 56, 512, 1, 1, 2, 0, 1}:     {231211155, 231211155, 234881647},
	{FP16, 96, 512, 7, 7, 512, 3, 3, 1, 1, 1}:       {14352400, 14352531, 22217455},
	{FP16, 96, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:      {24084627, 24084627, 24084496},
	{FP16, 96, 512, 14, 14, 512, 3, 3, 2, 1, 1}:     {28803088, 28803219, 36668143},
	{FP16, 96, 512, 28, 28, 128, 1, 1, 1, 0, 1}:     {272, 0, 25165824},
	{FP16, 96, 512, 28, 28, 256, 1, 1, 1, 0, 1}:     {272, 0, 50331648},
	{FP16, 96, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:    {115605651, 115605651, 121897519},
	{FP16, 96, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:    {0, 0, 51315247},
	{FP16, 96, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:    {57802899, 57802899, 57802768},
	{FP16, 96, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:   {57802899, 57802899, 57802768},
	{FP16, 96, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:      {24084496, 24084627, 24084496},
	{FP16, 192, 3, 128, 128, 32, 3, 3, 1, 1, 1}:     {0, 0, 253711527},
	{FP16, 192, 3, 224, 224, 64, 7, 7, 2, 3, 1}:     {385376784, 0, 385778799},
	{FP16, 192, 3, 224, 224, 768, 16, 16, 16, 0, 1}: {215089168, 0, 240255120},
	{FP16, 192, 32, 64, 64, 32, 3, 3, 1, 1, 1}:      {100681875, 100681875, 104664199},
	{FP16, 192, 32, 64, 64, 64, 3, 3, 2, 1, 1}:      {75534483, 75534483, 79303771},
	{FP16, 192, 64, 32, 32, 64, 3, 3, 1, 1, 1}:      {50405523, 50405523, 52322983},
	{FP16, 192, 64, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 272, 3146000},
	{FP16, 192, 64, 56, 56, 64, 3, 3, 1, 1, 1}:      {154214547, 154214547, 156132007},
	{FP16, 192, 64, 56, 56, 128, 1, 1, 2, 0, 1}:     {256, 115605651, 117178879},
	{FP16, 192, 64, 56, 56, 128, 3, 3, 2, 1, 1}:     {115753107, 115753107, 119587495},
	{FP16, 192, 64, 56, 56, 256, 1, 1, 1, 0, 1}:     {272, 272, 12582912},
	{FP16, 192, 128, 28, 28, 128, 3, 3, 1, 1, 1}:    {77365395, 77365395, 85033639},
	{FP16, 192, 128, 28, 28, 256, 1, 1, 2, 0, 1}:    {57802899, 57802899, 61735567},
	{FP16, 192, 128, 28, 28, 256, 3, 3, 2, 1, 1}:    {58392723, 58392723, 62325391},
	{FP16, 192, 128, 28, 28, 512, 1, 1, 1, 0, 1}:    {272, 272, 50331648},
	{FP16, 192, 128, 56, 56, 128, 3, 3, 2, 1, 1}:    {192970899, 192970899, 200639143},
	{FP16, 192, 256, 14, 14, 256, 3, 3, 1, 1, 1}:    {39714963, 39714963, 46793311},
	{FP16, 192, 256, 14, 14, 512, 1, 1, 2, 0, 1}:    {28901523, 28901523, 32572015},
	{FP16, 192, 256, 14, 14, 512, 3, 3, 2, 1, 1}:    {31260819, 31260819, 34013527},
	{FP16, 192, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:   {0, 0, 99484207},
	{FP16, 192, 256, 28, 28, 256, 3, 3, 2, 1, 1}:    {97517715, 97517715, 104596063},
	{FP16, 192, 256, 56, 56, 64, 1, 1, 1, 0, 1}:     {0, 272, 12583184},
	{FP16, 192, 256, 56, 56, 128, 1, 1, 1, 0, 1}:    {272, 272, 25165824},
	{FP16, 192, 256, 56, 56, 512, 1, 1, 2, 0, 1}:    {462422163, 462422163, 466092655},
	{FP16, 192, 512, 7, 7, 512, 3, 3, 1, 1, 1}:      {23986323, 23986323, 31851247},
	{FP16, 192, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:     {48169107, 48169107, 48168976},
	{FP16, 192, 512, 14, 14, 512, 3, 3, 2, 1, 1}:    {52887699, 52887699, 60752623},
	{FP16, 192, 512, 28, 28, 128, 1, 1, 1, 0, 1}:    {272, 272, 50331648},
	{FP16, 192, 512, 28, 28, 256, 1, 1, 1, 0, 1}:    {272, 272, 100663296},
	{FP16, 192, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:   {231211155, 231211155, 237503023},
	{FP16, 192, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:   {0, 0, 99484207},
	{FP16, 192, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:   {115605651, 115605651, 121897519},
	{FP16, 192, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:  {115605651, 115605651, 115605520},
	{FP16, 192, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:     {48169107, 48169107, 52101775},
	{FP16, 256, 3, 128, 128, 32, 3, 3, 1, 1, 1}:     {0, 0, 337597607},
	{FP16, 256, 3, 224, 224, 64, 7, 7, 2, 3, 1}:     {513827344, 0, 514229359},
	{FP16, 256, 3, 224, 224, 768, 16, 16, 16, 0, 1}: {285736976, 0, 310902928},
	{FP16, 256, 32, 64, 64, 32, 3, 3, 1, 1, 1}:      {134236307, 134236307, 138218631},
	{FP16, 256, 32, 64, 64, 64, 3, 3, 2, 1, 1}:      {100700307, 100700307, 104469595},
	{FP16, 256, 64, 32, 32, 64, 3, 3, 1, 1, 1}:      {67182739, 67182739, 69100199},
	{FP16, 256, 64, 56, 56, 64, 1, 1, 1, 0, 1}:      {0, 272, 4194576},
	{FP16, 256, 64, 56, 56, 64, 3, 3, 1, 1, 1}:      {205594771, 205594771, 207512231},
	{FP16, 256, 64, 56, 56, 128, 1, 1, 2, 0, 1}:     {256, 154140819, 155714047},
	{FP16, 256, 64, 56, 56, 128, 3, 3, 2, 1, 1}:     {154288275, 154288275, 158122663},
	{FP16, 256, 64, 56, 56, 256, 1, 1, 1, 0, 1}:     {272, 272, 16777216},
	{FP16, 256, 128, 28, 28, 128, 3, 3, 1, 1, 1}:    {103055507, 103055507, 110723751},
	{FP16, 256, 128, 28, 28, 256, 1, 1, 2, 0, 1}:    {77070483, 77070483, 81003151},
	{FP16, 256, 128, 28, 28, 256, 3, 3, 2, 1, 1}:    {77660307, 77660307, 81592975},
	{FP16, 256, 128, 28, 28, 512, 1, 1, 1, 0, 1}:    {272, 272, 67108864},
	{FP16, 256, 128, 56, 56, 128, 3, 3, 2, 1, 1}:    {257196179, 257196179, 264864423},
	{FP16, 256, 256, 14, 14, 256, 3, 3, 1, 1, 1}:    {52560019, 52560019, 69075623},
	{FP16, 256, 256, 14, 14, 512, 1, 1, 2, 0, 1}:    {38535315, 38535315, 42205807},
	{FP16, 256, 256, 14, 14, 512, 3, 3, 2, 1, 1}:    {40894611, 40894611, 44827279},
	{FP16, 256, 256, 14, 14, 1024, 1, 1, 1, 0, 1}:   {0, 0, 131596847},
	{FP16, 256, 256, 28, 28, 256, 3, 3, 2, 1, 1}:    {129630355, 129630355, 146145959},
	{FP16, 256, 256, 56, 56, 64, 1, 1, 1, 0, 1}:     {0, 272, 16777488},
	{FP16, 256, 256, 56, 56, 128, 1, 1, 1, 0, 1}:    {272, 272, 33554432},
	{FP16, 256, 256, 56, 56, 512, 1, 1, 2, 0, 1}:    {616562835, 616562835, 620233327},
	{FP16, 256, 512, 7, 7, 512, 3, 3, 1, 1, 1}:      {30408851, 30408851, 38273775},
	{FP16, 256, 512, 7, 7, 2048, 1, 1, 1, 0, 1}:     {64225427, 64225427, 64225296},
	{FP16, 256, 512, 14, 14, 512, 3, 3, 2, 1, 1}:    {68944019, 68944019, 76808943},
	{FP16, 256, 512, 28, 28, 128, 1, 1, 1, 0, 1}:    {272, 272, 67108864},
	{FP16, 256, 512, 28, 28, 256, 1, 1, 1, 0, 1}:    {272, 272, 134217728},
	{FP16, 256, 512, 28, 28, 1024, 1, 1, 2, 0, 1}:   {308281491, 308281491, 325059183},
	{FP16, 256, 1024, 14, 14, 256, 1, 1, 1, 0, 1}:   {0, 0, 135791215},
	{FP16, 256, 1024, 14, 14, 512, 1, 1, 1, 0, 1}:   {154140819, 154140819, 160432687},
	{FP16, 256, 1024, 14, 14, 2048, 1, 1, 2, 0, 1}:  {154140819, 154140819, 154140688},
	{FP16, 256, 2048, 7, 7, 512, 1, 1, 1, 0, 1}:     {64225427, 69468499, 67895919},
	{FP32, 8, 3, 128, 128, 32, 3, 3, 1, 1, 1}:       {0, 0, 0},
	{FP32, 8, 3, 224, 224, 768, 16, 16, 16, 0, 1}:   {0, 0, 14385296},
	{FP32, 8, 32, 64, 64, 32, 3, 3, 1, 1, 1}:        {4231184, 8425488, 10490535},
	{FP32, 8, 32, 64, 64, 64, 3, 3, 2, 1, 1}:        {4268048, 6365331, 0},
	{FP32, 8, 64, 32, 32, 64, 3, 3, 1, 1, 1}:        {2244624, 4341776, 6963655},
	{FP32, 16, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 0},
	{FP32, 16, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {0, 0, 25624720},
	{FP32, 16, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {16814227, 16814096, 20829335},
	{FP32, 16, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {8462352, 12656787, 0},
	{FP32, 16, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {4341776, 8536080, 10601127},
	{FP32, 32, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 0},
	{FP32, 32, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {33591443, 33591312, 37606551},
	{FP32, 32, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {16850960, 25239699, 0},
	{FP32, 32, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {16924688, 16924688, 18989735},
	{FP32, 128, 3, 128, 128, 32, 3, 3, 1, 1, 1}:     {0, 0, 0},
	{FP32, 128, 3, 224, 224, 768, 16, 16, 16, 0, 1}: {182976528, 0, 182976848},
	{FP32, 128, 32, 64, 64, 32, 3, 3, 1, 1, 1}:      {134254739, 134254739, 138269847},
	{FP32, 128, 32, 64, 64, 64, 3, 3, 2, 1, 1}:      {67182608, 100737171, 104752279},
	{FP32, 128, 64, 32, 32, 64, 3, 3, 1, 1, 1}:      {67256467, 67256336, 69321383},
	{BF16, 8, 3, 128, 128, 32, 3, 3, 1, 1, 1}:       {0, 0, 12031019},
	{BF16, 8, 3, 224, 224, 768, 16, 16, 16, 0, 1}:   {11976720, 0, 11976720},
	{BF16, 8, 32, 64, 64, 32, 3, 3, 1, 1, 1}:        {4212752, 4212752, 9681543},
	{BF16, 8, 32, 64, 64, 64, 3, 3, 2, 1, 1}:        {3182608, 3182739, 4878480},
	{BF16, 8, 64, 32, 32, 64, 3, 3, 1, 1, 1}:        {2170896, 2170896, 2170896},
	{BF16, 16, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 23024807},
	{BF16, 16, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {20807696, 0, 39682192},
	{BF16, 16, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {8407056, 8407187, 10209935},
	{BF16, 16, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {6328336, 6328467, 8131215},
	{BF16, 16, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {4268048, 4268048, 6185639},
	{BF16, 32, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 43914387},
	{BF16, 32, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {16795795, 16795795, 20778119},
	{BF16, 32, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {12619792, 12619923, 14422671},
	{BF16, 32, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {8462352, 8462483, 10379943},
	{BF16, 64, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 85857427},
	{BF16, 64, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {33573011, 33573011, 37555335},
	{BF16, 64, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {25202835, 25202835, 27005583},
	{BF16, 64, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {16851091, 16851091, 18768551},
	{BF16, 128, 3, 128, 128, 32, 3, 3, 1, 1, 1}:     {0, 0, 169825447},
	{BF16, 128, 3, 224, 224, 768, 16, 16, 16, 0, 1}: {144441360, 0, 169607312},
	{BF16, 128, 32, 64, 64, 32, 3, 3, 1, 1, 1}:      {67127443, 67127443, 71109767},
	{BF16, 128, 32, 64, 64, 64, 3, 3, 2, 1, 1}:      {50368659, 50368659, 54137947},
	{BF16, 128, 64, 32, 32, 64, 3, 3, 1, 1, 1}:      {33628307, 33628307, 35545767},
	{FP16, 8, 3, 128, 128, 32, 3, 3, 1, 1, 1}:       {0, 0, 12031019},
	{FP16, 8, 3, 224, 224, 768, 16, 16, 16, 0, 1}:   {11976720, 0, 11976720},
	{FP16, 8, 32, 64, 64, 32, 3, 3, 1, 1, 1}:        {4212752, 4212752, 9681543},
	{FP16, 8, 32, 64, 64, 64, 3, 3, 2, 1, 1}:        {3182608, 3182739, 4878480},
	{FP16, 8, 64, 32, 32, 64, 3, 3, 1, 1, 1}:        {2170896, 2170896, 3744255},
	{FP16, 16, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 23024807},
	{FP16, 16, 3, 224, 224, 768, 16, 16, 16, 0, 1}:  {20807696, 0, 39682192},
	{FP16, 16, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {8407056, 8407187, 10209935},
	{FP16, 16, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {6328336, 6328467, 8131215},
	{FP16, 16, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {4268048, 4792527, 6185639},
	{FP16, 32, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 43914387},
	{FP16, 32, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {16795795, 16795795, 20778119},
	{FP16, 32, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {12619792, 12619923, 14422671},
	{FP16, 32, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {8462352, 11673975, 10379943},
	{FP16, 64, 3, 128, 128, 32, 3, 3, 1, 1, 1}:      {0, 0, 85857427},
	{FP16, 64, 32, 64, 64, 32, 3, 3, 1, 1, 1}:       {33573011, 33573011, 37555335},
	{FP16, 64, 32, 64, 64, 64, 3, 3, 2, 1, 1}:       {25202835, 25202835, 27005583},
	{FP16, 64, 64, 32, 32, 64, 3, 3, 1, 1, 1}:       {16851091, 16851091, 18768551},
	{FP16, 128, 3, 128, 128, 32, 3, 3, 1, 1, 1}:     {0, 0, 169825447},
	{FP16, 128, 3, 224, 224, 768, 16, 16, 16, 0, 1}: {144441360, 0, 169607312},
	{FP16, 128, 32, 64, 64, 32, 3, 3, 1, 1, 1}:      {67127443, 67127443, 71109767},
	{FP16, 128, 32, 64, 64, 64, 3, 3, 2, 1, 1}:      {50368659, 50368659, 54137947},
	{FP16, 128, 64, 32, 32, 64, 3, 3, 1, 1, 1}:      {33628307, 33628307, 35545767},
}
