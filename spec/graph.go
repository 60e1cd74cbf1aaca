package spec

import (
	"fmt"
	"math/bits"
	"strings"
	"unsafe"

	"github.com/memplan/memplan/estimate/allocator"
)

// Role says what a tensor is for; every byte of an estimate is attributed to one.
type Role int

// The roles of the tensors of one training step.
const (
	RoleInvalid Role = iota
	RoleParameter
	RoleGradient
	RoleInput
	RoleActivation
	RoleSaved
	RoleAutocastCopy
	RoleOptimizerState
	RoleTemporary
	RoleWorkspace
	RoleOutput
	RoleActivationGradient
	// RoleCollective is a buffer of a collective (DDP buckets, FSDP
	// all-gather and reduce-scatter buffers).
	RoleCollective
)

var roleNames = [...]string{"invalid", "parameter", "gradient", "input", "activation", "saved", "autocast_copy", "optimizer_state", "temporary", "workspace", "output", "activation_gradient", "collective_buffer"}

// String returns the role's name as reports print it.
func (r Role) String() string {
	if r < 0 || int(r) >= len(roleNames) {
		return fmt.Sprintf("Role(%d)", int(r))
	}
	return roleNames[r]
}

// MarshalText makes roles read as names in JSON.
func (r Role) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// MarshalText makes dtypes read as names in JSON.
func (d DType) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// TensorID indexes Graph.Tensors.
type TensorID int32

// NoTensor marks an absent tensor.
const NoTensor TensorID = -1

// Tensor is one value the step creates or holds: its shape, dtype, bytes,
// role and the op that creates it.
type Tensor struct {
	ID    TensorID `json:"id"`
	Name  string   `json:"name"`
	Shape []int64  `json:"shape"`
	DType DType    `json:"dtype"`
	Bytes int64    `json:"bytes"`
	Role  Role     `json:"role"`
	// Op is the index in Graph.Ops of the op that creates the tensor; -1 for
	// parameters and inputs, which exist before the step.
	Op int `json:"op"`
	// RequiresGrad is true for trainable parameters and for activations that
	// depend on them; their gradients flow in backward.
	RequiresGrad bool `json:"requires_grad,omitempty"`
	// Alias, when not NoTensor, says this tensor shares the storage of another
	// (a view, a reshape, an in-place result): it costs no memory of its own.
	Alias TensorID `json:"alias,omitempty"`
	// Cached marks a tensor a cache holds until the end of the forward (the
	// autocast weight-cast cache), even when no later op reads it.
	Cached bool `json:"cached,omitempty"`
	// ConvPlan marks a cuDNN convolution's workspace: ConvPlanKey of its
	// geometry and pass (0 for any other tensor). PyTorch keeps one engine
	// per key and, when an engine's workspace cannot be allocated, runs the
	// next one (try_plans), which then serves every convolution of the
	// key. (It sits in Cached's padding, keeping Tensor's size.)
	ConvPlan int32 `json:"conv_plan,omitempty"`
	// HeldUntil, when >= 0, is the index of the op after which a Python local
	// stops holding the tensor (a variable that lives to the end of a
	// module's forward); until then it is not freed even when unused.
	HeldUntil int `json:"held_until,omitempty"`
}

// ConvPlanKey names the cuDNN engine a convolution of the graph's geometry
// Graph.Convs[i] uses in one pass: 1 + 3·i + pass.
func ConvPlanKey(i int, pass ConvPass) int32 { return int32(1 + 3*i + int(pass)) }

// Numel is the number of elements.
func (t *Tensor) Numel() int64 {
	n := int64(1)
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Matmul says which BLAS workspace an op's matrix product needs.
type Matmul int

// Matmul kinds: no BLAS, a cuBLAS GEMM, or a cuBLASLt GEMM with a fused bias (addmm).
const (
	MatmulNone Matmul = iota
	MatmulCublas
	MatmulCublasLt
)

// Op is one step of the forward pass, in execution order, with everything it
// allocates, keeps for backward and frees, forward and backward.
type Op struct {
	// Name is the module path ("transformer.h.0.attn.c_attn"), unique in the graph.
	Name string `json:"name"`
	// Kind is the catalog name of the op ("linear", "gelu", …).
	Kind string `json:"kind"`
	// Layer is the top-level layer the op belongs to, for per-layer tables.
	Layer string `json:"layer"`
	// Block is the index of the checkpointable block (a transformer layer, a
	// residual stage), or -1 when the op is outside every block.
	Block int `json:"block"`
	// Inputs are the activations the op reads (not parameters).
	Inputs []TensorID `json:"inputs,omitempty"`
	// Params are the parameters the op reads.
	Params []TensorID `json:"params,omitempty"`
	// Outputs are the tensors the op returns.
	Outputs []TensorID `json:"outputs,omitempty"`
	// Extra are tensors the op creates only to keep for backward (dropout
	// masks, normalisation statistics, autocast weight copies).
	Extra []TensorID `json:"extra,omitempty"`
	// Saved lists what autograd keeps for the op's backward; entries may be
	// inputs, outputs, params or extras. Empty in inference.
	Saved []TensorID `json:"saved,omitempty"`
	// Temps are forward temporaries, allocated in order after the outputs and
	// freed before the op returns (workspaces, intermediates of fused ops).
	Temps []TensorID `json:"temps,omitempty"`
	// BackwardTemps are allocated in order during the op's backward, after the
	// input gradients, and freed when it ends.
	BackwardTemps []TensorID `json:"backward_temps,omitempty"`
	// BackwardTempsFreedBy, where set, is aligned with BackwardTemps: a
	// value j > k frees temp k as soon as temp j is made (an intermediate
	// the backward's next step consumes), j = k (k > 0) frees it at once —
	// a library call's scratch, gone before the temps its making frees;
	// 0 keeps it to the end.
	BackwardTempsFreedBy []int `json:"backward_temps_freed_by,omitempty"`
	// ReduceTemps is how many of the last BackwardTemps the autograd engine
	// allocates after the backward function returns: the staging buffers of
	// the sum that reduces a broadcast gradient (a Linear's bias, a norm's
	// weight) to its input's shape (validate_outputs' sum_to).
	ReduceTemps int `json:"reduce_temps,omitempty"`
	// ReducedParams counts the last Params whose gradients that reduction
	// makes — the sum of a broadcast product (an RMSNorm weight's, a
	// Linear's bias) — after the backward's own temporaries, right before
	// the reduction's staging, where the others come with the function's
	// output.
	ReducedParams int `json:"reduced_params,omitempty"`
	// ReducedInputs is ReducedParams for the last Inputs: a bias's autocast
	// copy, whose gradient the engine (or the convolution's own sum) makes
	// by the same reduction.
	ReducedInputs int `json:"reduced_inputs,omitempty"`
	// GradInputs are the gradients the backward produces for Inputs that require
	// grad, aligned with Inputs (NoTensor where none flows).
	GradInputs []TensorID `json:"grad_inputs,omitempty"`
	// Matmul is the BLAS workspace the op's forward and backward need.
	Matmul Matmul `json:"matmul,omitempty"`
	// NoGrad marks ops outside autograd (index arithmetic, masks built without grad).
	NoGrad bool `json:"no_grad,omitempty"`
	// Flow says how the backward turns output gradients into input gradients.
	Flow GradFlow `json:"flow,omitempty"`
	// WeightGradFirst: the backward makes the weight's gradient (a parameter,
	// or its autocast copy among Inputs) before the input's — a bias-free GEMM.
	WeightGradFirst bool `json:"weight_grad_first,omitempty"`
	// GradInputViews: the input gradients reach the engine as views of a
	// tensor the backward made (a GEMM over a [..., S, K] input folds it to
	// 2-D and unfolds the gradient), so an input buffer holding one cannot be
	// added to in place: the view's base shares its storage.
	GradInputViews bool `json:"grad_input_views,omitempty"`
	// WeightGradView: the weight's gradient reaches its AccumulateGrad as a
	// view — F.linear multiplies by the weight transposed, and the transpose's
	// backward transposes the gradient back — so a tied weight's next
	// gradient is summed out of place.
	WeightGradView bool `json:"weight_grad_view,omitempty"`
	// GradProducts, where set, is aligned with Inputs: the backward computes
	// input k's gradient as a tensor of the output's shape and dtype
	// (GradProducts[k]; NoTensor: directly as GradInputs[k]), which the
	// engine then sums or casts to the input's (validate_outputs) — an
	// elementwise product with a broadcast or lower-precision operand.
	GradProducts []TensorID `json:"grad_products,omitempty"`
	// InputGradsReversed: the backward computes its input gradients last
	// input first (mul's generated backward: other, then self).
	InputGradsReversed bool `json:"input_grads_reversed,omitempty"`
	// ExtraAfter counts the last Extra the forward makes after its outputs
	// (attention kernels' logsumexp, layer_norm's statistics); the others
	// come before them (cuDNN attention's philox seed and offset).
	ExtraAfter int `json:"extra_after,omitempty"`
	// TempsFirst counts the leading Temps the forward makes before its
	// outputs: extras the kernel makes even when nothing is saved, where
	// they come first (cuDNN attention's philox seed and offset).
	TempsFirst int `json:"temps_first,omitempty"`
	// BackwardTempsFirst counts the leading BackwardTemps the backward makes
	// before the input gradients: conv's contiguous copy of the output
	// gradient; one expression's inner terms (pow's grad · (n · x.pow(n − 1))).
	BackwardTempsFirst int `json:"backward_temps_first,omitempty"`
	// ReduceAfterTemps: the op's own backward temps are freed before its
	// reduction temps (ReduceTemps) are made — a reduction the kernel runs
	// after its other work (conv's bias gradient, after the weight pass).
	ReduceAfterTemps bool `json:"reduce_after_temps,omitempty"`
	// BackwardScript, when not 0, is 1 + the index in Graph.BackwardScripts
	// of the order of everything the backward makes after its input
	// gradients — each backward temporary made or freed, each parameter's
	// gradient — for a kernel whose order the fields above cannot say
	// (layer_norm's blocked weight and bias sums); Graph.Script returns it.
	// The temporaries still live at its end go, last first. (An index, in
	// ReduceAfterTemps' padding, keeps Op's size.)
	BackwardScript int32 `json:"backward_script,omitempty"`
}

// Script returns op's backward script (Op.BackwardScript), nil for none.
func (g *Graph) Script(op *Op) []BackwardStep {
	if op.BackwardScript == 0 {
		return nil
	}
	return g.BackwardScripts[op.BackwardScript-1]
}

// BackwardStep is one step of an Op.BackwardScript.
type BackwardStep struct {
	Kind BackwardStepKind `json:"kind"`
	// Index is the backward temporary's (in Op.BackwardTemps) or the
	// parameter's (in Op.Params).
	Index int `json:"index"`
}

// BackwardStepKind is what a BackwardStep does.
type BackwardStepKind int

// The steps: make a backward temporary, free one, make a parameter's
// gradient.
const (
	StepMakeTemp BackwardStepKind = iota
	StepFreeTemp
	StepParamGrad
)

// DirectParams returns the parameters whose gradients the op's backward
// makes itself: all but the last ReducedParams, which the engine's
// reduction makes.
func (o *Op) DirectParams() []TensorID { return o.Params[:len(o.Params)-o.ReducedParams] }

// Graph is the expansion of a model: every tensor, and the ops in execution order.
type Graph struct {
	Tensors []Tensor `json:"tensors"`
	Ops     []Op     `json:"ops"`
	// Params lists the parameter tensors, in model.parameters() order.
	Params []TensorID `json:"params"`
	// Resident lists parameters and buffers in the order model.cuda() allocates them.
	Resident []TensorID `json:"resident"`
	// Inputs lists the batch tensors resident before the step.
	Inputs []TensorID `json:"inputs"`
	// Loss is the scalar the step keeps from the forward (training), and
	// Outputs the tensors kept after an inference forward.
	Loss TensorID `json:"loss"`
	// LossGrad is torch.ones_like(loss), the seed of backward.
	LossGrad TensorID   `json:"loss_grad"`
	Outputs  []TensorID `json:"outputs,omitempty"`
	// Blocks is the number of checkpointable blocks (Op.Block < Blocks).
	Blocks int `json:"blocks"`
	// BackwardScripts are the ops' backward scripts (Op.BackwardScript).
	BackwardScripts [][]BackwardStep `json:"backward_scripts,omitempty"`
	// Convs lists each distinct cuDNN convolution geometry of the graph,
	// in first-use order, with where its workspaces were sized from (the
	// least measured of its passes).
	Convs []ConvUse `json:"convs,omitempty"`
	// Warnings are what the expansion noticed but did not refuse (a config
	// key that looks like a misspelt one), for the estimate to pass on.
	Warnings []string `json:"warnings,omitempty"`
}

// ConvUse is one convolution geometry of a graph and the source of its
// workspace sizes.
type ConvUse struct {
	Geometry ConvGeometry        `json:"geometry"`
	Source   ConvWorkspaceSource `json:"source"`
	// Extrapolated: the batch is past the largest its table measured.
	Extrapolated bool `json:"extrapolated,omitempty"`
}

// noteConv records that a workspace of geometry c came from src, past the
// table's largest batch when beyond.
func (g *Graph) noteConv(c ConvGeometry, src ConvWorkspaceSource, beyond bool) int {
	for i := range g.Convs {
		if g.Convs[i].Geometry == c {
			g.Convs[i].Source = max(g.Convs[i].Source, src)
			g.Convs[i].Extrapolated = g.Convs[i].Extrapolated || beyond
			return i
		}
	}
	g.Convs = append(g.Convs, ConvUse{Geometry: c, Source: src, Extrapolated: beyond})
	return len(g.Convs) - 1
}

// Tensor returns the tensor with the given id.
func (g *Graph) Tensor(id TensorID) *Tensor { return &g.Tensors[id] }

// ParamCount is the number of trainable parameter elements.
func (g *Graph) ParamCount() int64 {
	var n int64
	for _, id := range g.Params {
		n += g.Tensors[id].Numel()
	}
	return n
}

// ParamBytes is the bytes the parameters occupy (before allocator rounding).
func (g *Graph) ParamBytes() int64 {
	var n int64
	for _, id := range g.Params {
		n += g.Tensors[id].Bytes
	}
	return n
}

// Storage returns the tensor that owns id's memory (following aliases).
func (g *Graph) Storage(id TensorID) TensorID {
	for g.Tensors[id].Alias != NoTensor && g.Tensors[id].Alias != id {
		id = g.Tensors[id].Alias
	}
	return id
}

// ShapeBytes multiplies dims by the element size, refusing overflow and
// non-positive dims; name identifies the tensor in the error.
func ShapeBytes(name string, shape []int64, dt DType) (int64, error) {
	n := uint64(1)
	for _, d := range shape {
		if d <= 0 {
			return 0, fmt.Errorf("tensor %s: dimension %d in %s is not positive", name, d, FormatShape(shape))
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo >= uint64(MaxTensorBytes) {
			return 0, &SizeOverflowError{Tensor: name, Shape: shape, DType: dt}
		}
		n = lo
	}
	hi, lo := bits.Mul64(n, uint64(dt.Size()))
	if hi != 0 || lo >= uint64(MaxTensorBytes) {
		return 0, &SizeOverflowError{Tensor: name, Shape: shape, DType: dt}
	}
	return int64(lo), nil
}

// MaxTensorBytes is the first tensor size refused: PyTorch's caching
// allocator refuses any single allocation of 2^60 bytes or more.
const MaxTensorBytes = allocator.MaxRequest

// SizeOverflowError is a tensor of MaxTensorBytes or more: a description's
// sizes beyond any device, which PyTorch would refuse to allocate.
type SizeOverflowError struct {
	Tensor string
	Shape  []int64
	DType  DType
}

// Error names the tensor, its shape and what to lower.
func (e *SizeOverflowError) Error() string {
	return fmt.Sprintf("tensor %s: shape %s of %s is 2^60 bytes or more, which PyTorch refuses to allocate (allowed: sizes that keep every tensor below that; lower the batch, sequence or image size, or the model's dimensions)", e.Tensor, FormatShape(e.Shape), e.DType)
}

// FormatShape prints a shape as [a, b, c].
func FormatShape(shape []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range shape {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, d)
	}
	b.WriteByte(']')
	return b.String()
}

// hasTrainable reports whether any parameter requires a gradient.
func (g *Graph) hasTrainable() bool {
	for _, p := range g.Params {
		if g.Tensors[p].RequiresGrad {
			return true
		}
	}
	return false
}

// SizeBytes is about how much memory g holds: its tensors and ops, their
// names and id lists.
func (g *Graph) SizeBytes() int64 {
	n := int64(len(g.Tensors))*int64(unsafe.Sizeof(Tensor{})) + int64(len(g.Ops))*int64(unsafe.Sizeof(Op{}))
	for i := range g.Tensors {
		t := &g.Tensors[i]
		n += int64(len(t.Name)) + 8*int64(len(t.Shape))
	}
	for i := range g.Ops {
		op := &g.Ops[i]
		n += int64(len(op.Name)+len(op.Kind)+len(op.Layer)) + 4*int64(len(op.Inputs)+len(op.Params)+len(op.Outputs)+len(op.Extra)+len(op.Saved)+len(op.Temps)+len(op.BackwardTemps)+len(op.GradInputs)+len(op.GradProducts)) + 8*int64(len(op.BackwardTempsFreedBy))
	}
	return n
}
