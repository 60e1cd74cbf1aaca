package spec

import (
	"cmp"
	"fmt"
	"slices"
	"unsafe"
)

// GradFlow says how an op's backward produces its input gradients.
type GradFlow int

// Gradient flows: a new tensor per input (the default), the output gradient
// passed through unchanged to every input (add, views), or none.
const (
	GradNew GradFlow = iota
	GradPassThrough
	GradNone
)

// Builder assembles a Graph op by op. Families and custom layers use it
// through the op catalog (ops.go); it tracks the module scope, the current
// layer and checkpoint block, requires-grad propagation and autocast casts.
type Builder struct {
	g        *Graph
	t        Training
	scope    []string
	layer    string
	block    int
	err      error
	castMemo map[TensorID]TensorID
	// shapes and ids are slabs the tensors' shapes and the ops' id lists are
	// carved from (capacity-limited), so a large model builds in few allocations.
	shapes []int64
	ids    []TensorID
	names  []byte
	// rec records the copy Repeat is building; literal makes Repeat build
	// every copy (repeat.go).
	rec     *copyPrint
	literal bool
	written int
}

// slabChunk is how many entries a slab takes at a time.
const slabChunk = 8192

// carve returns an empty slice with room for exactly n entries, cut from
// *slab (nil for 0). Entries appended to it stay in place: a full slab is
// replaced by a new one, never reused, so what was carved stays valid.
func carve[T any](slab *[]T, n int) []T {
	if n == 0 {
		return nil
	}
	if len(*slab)+n > cap(*slab) {
		*slab = make([]T, 0, max(slabChunk, n))
	}
	at := len(*slab)
	*slab = (*slab)[:at+n]
	return (*slab)[at : at : at+n]
}

// join concatenates parts into a string over bytes carved from the name
// slab, which are never written again; a large model's names take a few
// allocations instead of one each.
func (b *Builder) join(parts ...string) string {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	buf := carve(&b.names, n)
	for _, p := range parts {
		buf = append(buf, p...)
	}
	return unsafe.String(unsafe.SliceData(buf), n)
}

// carveShape copies shape into the shape slab.
func (b *Builder) carveShape(shape []int64) []int64 {
	return append(carve(&b.shapes, len(shape)), shape...)
}

// carveIDs returns an empty id list of capacity n from the id slab (nil for 0).
func (b *Builder) carveIDs(n int) []TensorID { return carve(&b.ids, n) }

// NewBuilder starts an empty graph for the given training setup.
func NewBuilder(t Training) *Builder {
	return &Builder{g: &Graph{Loss: NoTensor}, t: t, block: -1, castMemo: map[TensorID]TensorID{}}
}

// Training returns the setup the graph is built for.
func (b *Builder) Training() Training { return b.t }

// Train reports whether the graph is for training (autograd records).
func (b *Builder) Train() bool { return b.t.Mode == ModeTrain }

// Err returns the first error met while building.
func (b *Builder) Err() error { return b.err }

// Fail records an error (the first one wins).
func (b *Builder) Fail(err error) {
	if b.err == nil && err != nil {
		b.err = err
	}
}

// Push enters a module scope; names of later tensors and ops are prefixed with it.
func (b *Builder) Push(name string) {
	b.scope = append(b.scope, b.Path(name))
}

// Pop leaves the innermost module scope.
func (b *Builder) Pop() { b.scope = b.scope[:len(b.scope)-1] }

// Grow reserves room for about ops more ops and tensors more tensors, so
// large models build without repeated copying.
func (b *Builder) Grow(ops, tensors int) {
	b.g.Ops = slices.Grow(b.g.Ops, ops)
	b.g.Tensors = slices.Grow(b.g.Tensors, tensors)
}

// Scoped runs fn inside the scope name.
func (b *Builder) Scoped(name string, fn func()) {
	b.Push(name)
	defer b.Pop()
	fn()
}

// Path returns the current module path with name appended (empty parts
// are skipped). b.scope holds each level's full path, so this is one join.
func (b *Builder) Path(name string) string {
	prefix := ""
	if len(b.scope) > 0 {
		prefix = b.scope[len(b.scope)-1]
	}
	switch {
	case prefix == "":
		return name
	case name == "":
		return prefix
	}
	return b.join(prefix, ".", name)
}

// SetLayer sets the per-layer-table row later ops belong to.
func (b *Builder) SetLayer(name string) { b.layer = name }

// BeginBlock starts a checkpointable block; EndBlock ends it.
func (b *Builder) BeginBlock() {
	b.block = b.g.Blocks
	b.g.Blocks++
}

// EndBlock ends the current checkpointable block.
func (b *Builder) EndBlock() { b.block = -1 }

func (b *Builder) newTensor(name string, shape []int64, dt DType, role Role) TensorID {
	bytes, err := ShapeBytes(name, shape, dt)
	if err != nil {
		b.Fail(err)
		bytes = 0
	}
	id := TensorID(len(b.g.Tensors))
	b.g.Tensors = append(b.g.Tensors, Tensor{ID: id, Name: name, Shape: b.carveShape(shape), DType: dt, Bytes: bytes, Role: role, Op: -1, Alias: NoTensor, HeldUntil: -1})
	return id
}

// Param adds a trainable parameter (model.parameters() order is call order).
func (b *Builder) Param(name string, shape []int64, dt DType) TensorID {
	id := b.newTensor(b.Path(name), shape, dt, RoleParameter)
	b.g.Tensors[id].RequiresGrad = true
	b.g.Params = append(b.g.Params, id)
	b.g.Resident = append(b.g.Resident, id)
	return id
}

// Buffer adds a non-trainable resident tensor (running stats, position ids).
func (b *Builder) Buffer(name string, shape []int64, dt DType) TensorID {
	id := b.newTensor(b.Path(name), shape, dt, RoleParameter)
	b.g.Resident = append(b.g.Resident, id)
	return id
}

// ResidentLast moves resident tensors already added to the end of the
// order model.cuda() allocates in. That order is Module._apply's: a
// module's submodules first, then its own parameters, then its buffers —
// while model.parameters() (Param's call order) lists a module's own
// parameters before its submodules'. A module with both adds its own
// parameters first, then its submodules', then moves its own here.
func (b *Builder) ResidentLast(ids ...TensorID) {
	for _, id := range ids {
		if i := slices.Index(b.g.Resident, id); i >= 0 {
			b.g.Resident = append(slices.Delete(b.g.Resident, i, i+1), id)
		}
	}
}

// script returns the Op.BackwardScript of steps: an equal script already
// in the graph is shared (layers alike have one, as Repeat's copies do).
func (b *Builder) script(steps []BackwardStep) int32 {
	for i, have := range b.g.BackwardScripts {
		if slices.Equal(have, steps) {
			return int32(i + 1)
		}
	}
	b.g.BackwardScripts = append(b.g.BackwardScripts, steps)
	return int32(len(b.g.BackwardScripts))
}

// Input adds a batch tensor, resident before the step.
func (b *Builder) Input(name string, shape []int64, dt DType) TensorID {
	id := b.newTensor(name, shape, dt, RoleInput)
	b.g.Inputs = append(b.g.Inputs, id)
	return id
}

// T returns a tensor by id.
func (b *Builder) T(id TensorID) *Tensor { return &b.g.Tensors[id] }

// Shape returns a copy of a tensor's shape.
func (b *Builder) Shape(id TensorID) []int64 {
	if b.err != nil {
		// After an error every op hands out the scratch tensor, whose rank
		// is not what the caller's code expects: a shape of ones of any
		// rank a caller indexes lets the build run to its end, where the
		// first error is returned.
		return []int64{1, 1, 1, 1, 1, 1, 1, 1}
	}
	return b.carveShape(b.g.Tensors[id].Shape)
}

// DType returns a tensor's dtype.
func (b *Builder) DType(id TensorID) DType { return b.g.Tensors[id].DType }

// OpSpec describes one op for Emit. Outputs, Extra, Temps and BackwardTemps
// are given as shapes and are created by Emit; Saved may name inputs,
// params, and outputs/extras by index through SaveOut/SaveExtra.
type OpSpec struct {
	Kind    string
	Name    string
	Inputs  []TensorID
	Params  []TensorID
	Outputs []TensorSpec
	Extra   []TensorSpec
	Temps   []TensorSpec
	// BackwardTemps are allocated in the op's backward after the input gradients.
	BackwardTemps []TensorSpec
	// BackwardTempsFreedBy frees backward temps early (Op.BackwardTempsFreedBy).
	BackwardTempsFreedBy []int
	// BackwardTempsFirst counts the leading backward temps made before the
	// input gradients (Op.BackwardTempsFirst).
	BackwardTempsFirst int
	// ReduceAfterTemps frees the op's own backward temps before its
	// reduction temps (Op.ReduceAfterTemps).
	ReduceAfterTemps bool
	// BackwardScript orders the backward's temps and parameter gradients
	// (Op.BackwardScript).
	BackwardScript []BackwardStep
	// ExtraAfter counts the last Extra made after the outputs
	// (Op.ExtraAfter).
	ExtraAfter int
	// TempsFirst counts the leading Temps made before the outputs
	// (Op.TempsFirst).
	TempsFirst int
	// NoGradExtra lists the Extra (by index) the kernel makes even when the
	// op keeps nothing for a backward — in inference, or under no_grad:
	// they become temporaries, made where the extra would be and freed
	// when the op returns (layer_norm's mean and rstd; cuDNN attention's
	// philox seed and offset, but not its logsumexp).
	NoGradExtra []int
	// ReduceTemps counts the last BackwardTemps that are the engine's
	// reduction of a broadcast gradient (Op.ReduceTemps).
	ReduceTemps int
	// ReducedParams counts the last Params whose gradients the reduction
	// makes (Op.ReducedParams).
	ReducedParams int
	// ReducedInputs counts the last Inputs whose gradients the reduction
	// makes (Op.ReducedInputs).
	ReducedInputs int
	// Saved names saved inputs/params by id.
	Saved []TensorID
	// SaveOut and SaveExtra name saved outputs and extras by index.
	SaveOut, SaveExtra []int
	Matmul             Matmul
	Flow               GradFlow
	// NoGradInputs lists input indexes that get no gradient (indices, targets).
	NoGradInputs []int
	// AliasOut makes output i a view of input AliasOut[i] (-1: a new tensor).
	AliasOut []int
	// Cached marks outputs held until the end of the forward (autocast cache).
	Cached bool
	NoGrad bool
}

// TensorSpec is a tensor to create: name suffix, shape, dtype.
type TensorSpec struct {
	Name  string
	Shape []int64
	DType DType
	// ConvPlan is the tensor's Tensor.ConvPlan (a cuDNN workspace's engine).
	ConvPlan int32
}

// TS is shorthand for a TensorSpec.
func TS(name string, dt DType, shape ...int64) TensorSpec {
	return TensorSpec{Name: name, Shape: shape, DType: dt}
}

// Emit appends an op and returns its output tensors: the op's own list,
// which the caller must not write (copy it to rebind an output).
func (b *Builder) Emit(s OpSpec) []TensorID {
	if b.err != nil {
		out := make([]TensorID, len(s.Outputs))
		for i := range out {
			out[i] = b.scratch()
		}
		return out
	}
	idx := len(b.g.Ops)
	name := b.Path(s.Name)
	op := Op{Name: name, Kind: s.Kind, Layer: b.layer, Block: b.block, Inputs: s.Inputs, Params: s.Params, Matmul: s.Matmul, NoGrad: s.NoGrad || !b.Train(), Flow: s.Flow}
	if op.Layer == "" {
		op.Layer = name
	}
	reqGrad := false
	if !op.NoGrad {
		for _, id := range s.Inputs {
			reqGrad = reqGrad || b.g.Tensors[id].RequiresGrad
		}
		for _, id := range s.Params {
			reqGrad = reqGrad || b.g.Tensors[id].RequiresGrad
		}
	}
	op.Outputs = b.carveIDs(len(s.Outputs))
	if b.Train() && !op.NoGrad {
		op.Extra = b.carveIDs(len(s.Extra))
		op.Saved = b.carveIDs(len(s.Saved) + len(s.SaveOut) + len(s.SaveExtra))
		op.BackwardTemps = b.carveIDs(len(s.BackwardTemps))
	}
	keepsExtra := b.Train() && !op.NoGrad && reqGrad
	if keepsExtra {
		op.Temps = b.carveIDs(len(s.Temps))
	} else {
		op.Temps = b.carveIDs(len(s.Temps) + len(s.NoGradExtra))
	}
	mk := func(ts TensorSpec, role Role, suffix string) TensorID {
		n := b.join(name, ".", cmp.Or(ts.Name, suffix))
		id := b.newTensor(n, ts.Shape, ts.DType, role)
		b.g.Tensors[id].Op = idx
		b.g.Tensors[id].ConvPlan = ts.ConvPlan
		return id
	}
	for i, ts := range s.Outputs {
		var id TensorID
		view := i < len(s.AliasOut) && s.AliasOut[i] >= 0
		if view && emptyView(ts.Shape) {
			// A view may be empty (Phi3's q[..., D:] when the rotary
			// embedding turns every dimension): it has no bytes, and its
			// backward still makes a gradient of its base's shape.
			id = mk(TensorSpec{Name: ts.Name, Shape: nonEmpty(ts.Shape), DType: ts.DType}, RoleActivation, "out")
			b.markEmpty(id, ts.Shape)
		} else {
			id = mk(ts, RoleActivation, "out")
		}
		if view {
			b.g.Tensors[id].Alias = b.g.Storage(s.Inputs[s.AliasOut[i]])
		}
		b.g.Tensors[id].RequiresGrad = reqGrad && ts.DType.IsFloat()
		b.g.Tensors[id].Cached = s.Cached
		op.Outputs = append(op.Outputs, id)
	}
	if b.Train() && !op.NoGrad {
		if keepsExtra {
			op.ExtraAfter = min(s.ExtraAfter, len(s.Extra))
			for _, ts := range s.Extra {
				op.Extra = append(op.Extra, mk(ts, RoleSaved, "extra"))
			}
			op.Saved = append(op.Saved, s.Saved...)
			for _, i := range s.SaveOut {
				op.Saved = append(op.Saved, op.Outputs[i])
			}
			for _, i := range s.SaveExtra {
				op.Saved = append(op.Saved, op.Extra[i])
			}
		}
		for _, ts := range s.BackwardTemps {
			op.BackwardTemps = append(op.BackwardTemps, mk(ts, RoleTemporary, "bwd_tmp"))
		}
		op.GradInputs = b.carveIDs(len(s.Inputs))[:len(s.Inputs)]
		for i, in := range s.Inputs {
			op.GradInputs[i] = NoTensor
			t := b.g.Tensors[in]
			if !t.RequiresGrad || op.Flow == GradNone || containsInt(s.NoGradInputs, i) {
				continue
			}
			if op.Flow == GradNew {
				op.GradInputs[i] = b.newTensor(b.join("grad(", t.Name, ")"), t.Shape, t.DType, RoleActivationGradient)
				b.g.Tensors[op.GradInputs[i]].Op = idx
			}
		}
		op.ReduceTemps = s.ReduceTemps
		op.ReducedParams = min(s.ReducedParams, len(op.Params))
		op.ReducedInputs = min(s.ReducedInputs, len(op.Inputs))
		op.BackwardTempsFreedBy = s.BackwardTempsFreedBy
		op.BackwardTempsFirst = s.BackwardTempsFirst
		op.ReduceAfterTemps = s.ReduceAfterTemps
		if s.BackwardScript != nil {
			op.BackwardScript = b.script(s.BackwardScript)
		}
		if !reqGrad {
			op.Saved = nil
			op.BackwardTemps = nil
			op.BackwardTempsFreedBy = nil
			op.BackwardTempsFirst, op.ReduceAfterTemps = 0, false
			op.BackwardScript = 0
			op.ReduceTemps, op.ReducedParams, op.ReducedInputs = 0, 0, 0
		}
	}
	// The temporaries made before the outputs lead: the extras the kernel
	// makes anyway (saving nothing) that come before them, then the
	// op's own; those after the outputs follow in the same order.
	first := min(s.TempsFirst, len(s.Temps))
	for _, before := range []bool{true, false} {
		if !keepsExtra {
			for _, i := range s.NoGradExtra {
				if (i < len(s.Extra)-s.ExtraAfter) == before {
					op.Temps = append(op.Temps, mk(s.Extra[i], RoleTemporary, "extra"))
				}
			}
		}
		temps := s.Temps[first:]
		if before {
			temps = s.Temps[:first]
		}
		for _, ts := range temps {
			op.Temps = append(op.Temps, mk(ts, RoleTemporary, "tmp"))
		}
		if before {
			op.TempsFirst = len(op.Temps)
		}
	}
	b.g.Ops = append(b.g.Ops, op)
	return op.Outputs
}

// operands splits an op's operands into activation inputs (x, and autocast
// copies of parameters, whose gradients flow to their cast op) and the
// parameters it reads directly; NoTensor entries are skipped.
func (b *Builder) operands(x TensorID, ws ...TensorID) (in, params []TensorID) {
	in = []TensorID{x}
	for _, p := range ws {
		if p == NoTensor {
			continue
		}
		if b.g.Tensors[p].Role == RoleParameter {
			params = append(params, p)
		} else {
			in = append(in, p)
		}
	}
	return in, params
}

// HoldUntilLastOp keeps tensors alive until the op emitted last has run:
// Python locals (inputs_embeds, attn_output …) that hold a tensor to the end
// of a module's forward although no later op reads it.
func (b *Builder) HoldUntilLastOp(ids ...TensorID) {
	last := len(b.g.Ops) - 1
	for _, id := range ids {
		if id == NoTensor || id < 0 || int(id) >= len(b.g.Tensors) {
			continue
		}
		st := b.g.Storage(id)
		if b.g.Tensors[st].Op < 0 {
			continue
		}
		b.g.Tensors[st].HeldUntil = max(b.g.Tensors[st].HeldUntil, last)
		if b.rec != nil {
			b.rec.noteHeld(st, last)
		}
	}
}

// LastOp returns the index of the op emitted last.
func (b *Builder) LastOp() int { return len(b.g.Ops) - 1 }

// scratch returns a placeholder tensor after an error, so callers can go on.
func (b *Builder) scratch() TensorID {
	if len(b.g.Tensors) == 0 {
		b.newTensor("scratch", []int64{1}, FP32, RoleActivation)
	}
	return 0
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// Warn adds a warning to the graph: something the expansion noticed but
// did not refuse.
func (b *Builder) Warn(msg string) { b.g.Warnings = append(b.g.Warnings, msg) }

// Finish validates and returns the graph; loss is the training scalar (or
// NoTensor for inference), outputs what an inference forward keeps.
func (b *Builder) Finish(loss TensorID, outputs ...TensorID) (*Graph, error) {
	if b.err != nil {
		return nil, b.err
	}
	if len(b.g.Ops) == 0 {
		return nil, fmt.Errorf("model expands to no ops")
	}
	b.g.Loss = loss
	b.g.LossGrad = NoTensor
	if loss != NoTensor {
		lt := b.g.Tensors[loss]
		// The backward seed, torch.ones_like(loss).
		b.g.LossGrad = b.newTensor("grad(loss)", lt.Shape, lt.DType, RoleActivationGradient)
	}
	b.g.Outputs = outputs
	return b.g, nil
}

// newPossiblyEmpty is newTensor for a tensor that may be empty (an empty
// view's gradient): one with a zero dimension holds no bytes.
func (b *Builder) newPossiblyEmpty(name string, shape []int64, dt DType, role Role) TensorID {
	if !emptyView(shape) {
		return b.newTensor(name, shape, dt, role)
	}
	id := b.newTensor(name, nonEmpty(shape), dt, role)
	b.markEmpty(id, shape)
	return id
}

// ofLastOp marks a tensor as made by the op just emitted — a gradient or
// backward temporary its OpSpec could not name — and returns it.
func (b *Builder) ofLastOp(id TensorID) TensorID {
	b.g.Tensors[id].Op = len(b.g.Ops) - 1
	return id
}

// engineGrad adds the new gradient the autograd engine makes for input x
// of the op just emitted, when the incoming gradient must be summed to x's
// shape or cast to its dtype; it is empty when x is.
func (b *Builder) engineGrad(x TensorID) TensorID {
	t := b.T(x)
	return b.ofLastOp(b.newPossiblyEmpty(b.join("grad(", t.Name, ")"), t.Shape, t.DType, RoleActivationGradient))
}

// markEmpty gives a tensor made with nonEmpty(shape) its real, empty shape
// back, and no bytes.
func (b *Builder) markEmpty(id TensorID, shape []int64) {
	t := &b.g.Tensors[id]
	copy(t.Shape, shape)
	t.Bytes = 0
}

// emptyView says whether a view's shape has a zero dimension and no
// negative one.
func emptyView(shape []int64) bool {
	zero := false
	for _, d := range shape {
		if d < 0 {
			return false
		}
		zero = zero || d == 0
	}
	return zero
}

// nonEmpty is shape with its zero dimensions made 1, for the checks an
// empty view's shape would otherwise fail.
func nonEmpty(shape []int64) []int64 {
	out := append([]int64(nil), shape...)
	for i, d := range out {
		if d == 0 {
			out[i] = 1
		}
	}
	return out
}
