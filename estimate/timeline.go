package estimate

import (
	"slices"

	"github.com/memplan/memplan/estimate/allocator"
	"github.com/memplan/memplan/spec"
)

// liveness holds the per-storage counts that do not change between iterations.
type liveness struct {
	fwdUses []int32 // forward reads of each storage
	perm    []bool  // resident: parameters, buffers, inputs
	// blocks: first and last op of each checkpoint block, and the storages
	// made outside the block that it reads (kept for the recompute).
	blockFirst, blockLast []int
	// blockFirstSaver is the first op of a block that saves anything: once
	// its backward has released what it saved, no saved tensor of the block
	// refers to the checkpoint any more, and the checkpoint lets its inputs
	// go (measured: a Llama layer's input is freed after the input norm's
	// pow backward, before the cast's); -1 when the block saves nothing.
	blockFirstSaver []int
	// blockStop is the last op of a block that saves anything: the backward
	// recompute stops there (non-reentrant checkpoint's early stop), -1 when
	// the block saves nothing.
	blockStop []int
	blockExt  [][]spec.TensorID
	// blockLocal lists, per block, the storages it makes and reads up to
	// its stop, each with its reads there: a recompute starts their counts
	// over.
	blockLocal [][]localReads
	// releaseAfter lists, per op, the storages a Python local holds until that op has run.
	releaseAfter [][]spec.TensorID
	// unwind lists, per block, the storages its recompute makes that Python
	// locals hold past the recompute's stop — held until a later op, or read
	// by an op past it — and pastStop marks the read ones: the early stop
	// unwinds the block's frames, and they go there.
	unwind   [][]spec.TensorID
	pastStop []bool
	// cached lists the tensors held to the end of the forward (autocast cache, model output).
	cached []spec.TensorID
	// paramUses counts the ops whose backward delivers a gradient to each parameter.
	paramUses []int32
}

func (s *sim) checkpointed(op *spec.Op) bool {
	return s.train && s.t.ActivationCheckpointing && op.Block >= 0
}

func (s *sim) prepare() *liveness {
	n := len(s.g.Tensors)
	lv := &liveness{fwdUses: make([]int32, n), perm: make([]bool, n)}
	for _, id := range s.g.Resident {
		lv.perm[id] = true
	}
	for _, id := range s.g.Inputs {
		lv.perm[id] = true
	}
	for _, id := range s.g.Params {
		lv.perm[id] = true
	}
	nb := s.g.Blocks
	lv.blockFirst = make([]int, nb)
	lv.blockLast = make([]int, nb)
	lv.blockStop = make([]int, nb)
	lv.blockFirstSaver = make([]int, nb)
	lv.blockExt = make([][]spec.TensorID, nb)
	lv.blockLocal = make([][]localReads, nb)
	for i := range lv.blockFirst {
		lv.blockFirst[i] = -1
		lv.blockStop[i] = -1
		lv.blockFirstSaver[i] = -1
	}
	lv.releaseAfter = make([][]spec.TensorID, len(s.g.Ops))
	for i := range s.g.Tensors {
		if s.g.Tensors[i].Cached {
			lv.cached = append(lv.cached, spec.TensorID(i))
		}
		if h := s.g.Tensors[i].HeldUntil; h >= 0 && h < len(s.g.Ops) && s.g.Storage(spec.TensorID(i)) == spec.TensorID(i) {
			lv.releaseAfter[h] = append(lv.releaseAfter[h], spec.TensorID(i))
		}
	}
	lv.paramUses = make([]int32, n)
	for i := range s.g.Ops {
		op := &s.g.Ops[i]
		for _, in := range op.Inputs {
			lv.fwdUses[s.storage(in)]++
		}
		if s.train && !op.NoGrad {
			for _, p := range op.Params {
				lv.paramUses[p]++
			}
		}
		if s.train && !op.NoGrad {
			for _, sv := range op.Saved {
				s.savedCnt[s.storage(sv)]++
			}
		}
		if op.Block >= 0 {
			b := op.Block
			if lv.blockFirst[b] < 0 {
				lv.blockFirst[b] = i
			}
			lv.blockLast[b] = i
			if !op.NoGrad && len(op.Saved) > 0 {
				lv.blockStop[b] = i
				if lv.blockFirstSaver[b] < 0 {
					lv.blockFirstSaver[b] = i
				}
			}
		}
	}
	// External inputs and local reads of each block; mark[st] == b+1 once
	// storage st is listed as block b's external input.
	mark := make([]int32, n)
	// localAt[st] is 1 + the place of storage st in the block's blockLocal
	// while that block is listed (0: not there), cleared after each block.
	localAt := make([]int32, n)
	lv.unwind, lv.pastStop = make([][]spec.TensorID, nb), make([]bool, n)
	for b := 0; b < nb; b++ {
		if lv.blockFirst[b] < 0 {
			continue
		}
		for i := lv.blockFirst[b]; i <= lv.blockLast[b]; i++ {
			op := &s.g.Ops[i]
			for _, list := range [2][]spec.TensorID{op.Inputs, op.Saved} {
				for _, in := range list {
					st := s.storage(in)
					if lv.perm[st] || s.g.Tensors[st].Op >= lv.blockFirst[b] || mark[st] == int32(b)+1 {
						continue
					}
					mark[st] = int32(b) + 1
					lv.blockExt[b] = append(lv.blockExt[b], st)
				}
			}
			if i > lv.blockStop[b] {
				for _, in := range op.Inputs {
					st := s.storage(in)
					if prod := s.g.Tensors[st].Op; prod >= lv.blockFirst[b] && prod <= lv.blockStop[b] && !lv.perm[st] && !lv.pastStop[st] && s.g.Tensors[st].HeldUntil <= lv.blockStop[b] {
						lv.pastStop[st] = true
						lv.unwind[b] = append(lv.unwind[b], st)
					}
				}
				continue
			}
			for _, o := range op.Outputs {
				if st := s.storage(o); st == o && s.g.Tensors[st].HeldUntil > lv.blockStop[b] {
					lv.unwind[b] = append(lv.unwind[b], st)
				}
			}
			for _, in := range op.Inputs {
				st := s.storage(in)
				if prod := s.g.Tensors[st].Op; prod >= lv.blockFirst[b] && !lv.perm[st] {
					if localAt[st] == 0 {
						lv.blockLocal[b] = append(lv.blockLocal[b], localReads{st, 0})
						localAt[st] = int32(len(lv.blockLocal[b]))
					}
					lv.blockLocal[b][localAt[st]-1].reads++
				}
			}
		}
		for _, l := range lv.blockLocal[b] {
			localAt[l.storage] = 0
		}
	}
	return lv
}

// localReads is a storage a checkpoint block makes and how many of its ops,
// up to the block's stop, read it.
type localReads struct {
	storage spec.TensorID
	reads   int32
}

// maybeFree frees a storage nobody reads or holds any more.
func (s *sim) maybeFree(st spec.TensorID) {
	if s.isLive[st] && !s.lv.perm[st] && s.uses[st] <= 0 && s.holds[st] <= 0 {
		s.free(st)
	}
}

func (s *sim) roleFor(st spec.TensorID) spec.Role {
	r := s.g.Tensors[st].Role
	if r == spec.RoleActivation && s.train && s.savedCnt[st] > 0 {
		return spec.RoleSaved
	}
	return r
}

// execOp runs one op's forward: extras and outputs are allocated, temporaries
// come and go, and reads are released.
func (s *sim) execOp(i int, recompute bool) error {
	op := &s.g.Ops[i]
	s.curOp, s.curSuffix = op.Name, ""
	hold := s.train && !op.NoGrad && (recompute || !s.checkpointed(op))
	blocksBefore := s.nextBlock
	for _, id := range op.Temps[:op.TempsFirst] {
		if err := s.alloc(id, spec.RoleTemporary); err != nil {
			return err
		}
	}
	before := len(op.Extra) - op.ExtraAfter
	if err := s.allocExtra(op.Extra[:before]); err != nil {
		return err
	}
	for _, id := range op.Outputs {
		st := s.storage(id)
		if st != id || s.isLive[st] {
			continue
		}
		if err := s.alloc(id, s.roleFor(id)); err != nil {
			return err
		}
		// A recompute runs in its own autocast region, which caches its
		// casts until the recompute ends (measured: GPT-2's fp16 bias
		// casts go together as it stops); the Python locals it makes are
		// let go by the op that releases them or, past its stop at the
		// block's last saver, at the stop (recompute).
		if s.g.Tensors[id].Cached {
			s.holds[id]++
			if recompute {
				s.recomputeCasts = append(s.recomputeCasts, id)
			}
		}
		if s.g.Tensors[id].HeldUntil >= 0 {
			s.holds[id]++
		}
		if recompute && s.lv.pastStop[id] {
			s.holds[id]++
		}
	}
	if err := s.allocExtra(op.Extra[before:]); err != nil {
		return err
	}
	call := gemmForward
	if recompute {
		call = gemmRecompute
	}
	if err := s.matmulWorkspaces(op, call); err != nil {
		return err
	}
	if err := s.firstUses(op); err != nil {
		return err
	}
	if !s.kernelsStarted && s.nextBlock != blocksBefore {
		// The op's kernel is the run's first (the first op that allocates:
		// one that allocates nothing is taken for a view, as BERT's first
		// op is): what it made was placed before the driver opened its
		// window, what comes after may go in.
		s.kernelsStarted = true
		if _, err := s.request(request{kind: reqKernels}); err != nil {
			return err
		}
	}
	for _, id := range op.Temps[op.TempsFirst:] {
		if err := s.alloc(id, spec.RoleTemporary); err != nil {
			return err
		}
	}
	for k := len(op.Temps) - 1; k >= 0; k-- {
		s.free(op.Temps[k])
	}
	s.packAndRead(op, hold)
	for _, id := range op.Extra {
		s.maybeFree(id)
	}
	for _, id := range op.Outputs {
		s.maybeFree(s.storage(id))
	}
	s.releaseLocals(i, recompute)
	return nil
}

// firstUses tells the replay what the driver maps in its window when op is
// the run's first cast or first pow: their kernels' modules load then
// (calibrate.WindowBytes; the first GEMM's are matmulWorkspaces').
func (s *sim) firstUses(op *spec.Op) error {
	switch {
	case op.Kind == "to_copy" && !s.castMapped:
		s.castMapped = true
		return s.libraryMapped(s.p.WindowBytes.Cast)
	case op.Kind == "pow" && !s.powMapped:
		s.powMapped = true
		return s.libraryMapped(s.p.WindowBytes.Pow)
	}
	return nil
}

// allocExtra makes what an op keeps besides its outputs (statistics, masks,
// logsumexp).
func (s *sim) allocExtra(extra []spec.TensorID) error {
	for _, id := range extra {
		if err := s.alloc(id, spec.RoleSaved); err != nil {
			return err
		}
	}
	return nil
}

// releaseLocals lets go of the Python locals held until op i has run.
func (s *sim) releaseLocals(i int, recompute bool) {
	for _, st := range s.lv.releaseAfter[i] {
		// A recompute holds only what it made itself: a Python local it
		// releases that was made before the block (the layer's input) was
		// held by the original forward, and released there.
		if recompute && s.g.Tensors[st].Op < s.lv.blockFirst[s.g.Ops[i].Block] {
			continue
		}
		if s.isLive[st] && s.holds[st] > 0 {
			s.holds[st]--
			s.maybeFree(st)
		}
	}
}

func (s *sim) forward() error {
	copy(s.uses, s.lv.fwdUses)
	if s.train {
		for b := range s.lv.blockExt {
			if s.t.ActivationCheckpointing {
				for _, st := range s.lv.blockExt[b] {
					s.holds[st]++
				}
			}
		}
		if s.g.Loss != spec.NoTensor {
			s.holds[s.storage(s.g.Loss)]++
		}
	} else {
		for _, o := range s.g.Outputs {
			s.holds[s.storage(o)]++
		}
	}
	if s.par != nil { // DDP bucket rebuild, FSDP root unshard
		if err := s.par.forwardStart(); err != nil {
			return err
		}
	}
	for i := range s.g.Ops {
		if s.par != nil { // FSDP pre-forward of a block
			if err := s.par.beforeForwardOp(i); err != nil {
				return err
			}
		}
		if err := s.execOp(i, false); err != nil {
			return err
		}
		if s.par != nil { // FSDP post-forward (reshard)
			s.par.afterForwardOp(i)
		}
	}
	s.curOp, s.curSuffix = "end of forward", ""
	if s.par != nil { // FSDP root post-forward
		s.par.forwardEnd()
	}
	if s.train {
		// The autocast cache is cleared when the autocast region exits, and
		// the model output (logits) is dropped once the loss is taken.
		s.releaseCached()
		return nil
	}
	// Inference: the returned output (logits, a KV cache) is still held when
	// the phase ends; dropOutputs releases it after the phase.
	return nil
}

// releaseCached drops the holds of the autocast cache and the model output.
func (s *sim) releaseCached() {
	for _, id := range s.lv.cached {
		if s.holds[id] > 0 {
			s.holds[id]--
			s.maybeFree(id)
		}
	}
}

// dropOutputs releases what an inference forward returned, after the phase.
func (s *sim) dropOutputs() {
	s.curOp, s.curSuffix = "del output", ""
	s.releaseCached()
	for _, o := range s.g.Outputs {
		st := s.storage(o)
		s.holds[st]--
		s.maybeFree(st)
	}
}

// newBuf makes a gradient buffer holding tensor id's gradient. Buffers own
// their block: two buffers for the same tensor may be live at a merge.
func (s *sim) newBuf(id spec.TensorID) (int32, error) {
	t := &s.g.Tensors[id]
	if t.Bytes == 0 {
		// An empty gradient (of an empty view): PyTorch's allocator hands
		// out no block for it, so the replay sees no request.
		s.bufs = append(s.bufs, gradBuf{block: noBlock, refs: 1, tensor: id})
		return int32(len(s.bufs) - 1), nil
	}
	blk, err := s.allocSizedAs(id, "", spec.RoleActivationGradient)
	if err != nil {
		return -1, err
	}
	s.bufs = append(s.bufs, gradBuf{block: blk, refs: 1, bytes: t.Bytes, tensor: id})
	return int32(len(s.bufs) - 1), nil
}

func (s *sim) releaseBuf(b int32) {
	s.bufs[b].refs--
	if s.bufs[b].refs == 0 && s.bufs[b].block != noBlock {
		s.freeRaw(s.g.Tensors[s.bufs[b].tensor].Name, "", s.bufs[b].block, spec.RoleActivationGradient)
	}
}

// accumulate adds a gradient buffer into tensor t's input buffer, the way
// autograd's InputBuffer does: in place into the gradient already there when
// nothing else holds its storage (not shared, not a view), otherwise out of
// place into a new buffer.
func (s *sim) accumulate(t spec.TensorID, b int32) error {
	if !s.g.Tensors[t].RequiresGrad {
		s.releaseBuf(b)
		return nil
	}
	old := s.grads[t]
	switch {
	case old < 0:
		s.grads[t] = b
	case s.bufs[old].refs == 1 && !s.bufs[old].view:
		s.releaseBuf(b)
	default:
		nb, err := s.newBuf(s.bufs[old].tensor)
		if err != nil {
			return err
		}
		s.releaseBuf(old)
		s.releaseBuf(b)
		s.grads[t] = nb
	}
	return nil
}

// paramGrad is a backward function making parameter p's gradient; it
// returns the gradient's block (noBlock when p needs none), which
// deliverParamGrad hands on once the function has returned.
func (s *sim) paramGrad(p spec.TensorID) (allocator.BlockID, error) {
	if !s.g.Tensors[p].RequiresGrad {
		return noBlock, nil
	}
	suffix := ".grad"
	if s.paramGrads[p] != noBlock {
		suffix = ".grad (accumulated)"
	}
	return s.allocSizedAs(p, suffix, spec.RoleGradient)
}

// deliverParamGrad is the engine handing a new gradient blk of parameter p
// to its AccumulateGrad node, after the backward function that made it has
// returned and its incoming gradients are released; view says the gradient
// is a view (F.linear's weight, through a transpose). A parameter read by
// several ops (tied embeddings) has one AccumulateGrad with several incoming
// edges: the first gradient waits in its input buffer, and each later one
// is added to it — in place, unless what waits is a view (then out of
// place: a new tensor, both addends freed; measured: a tied lm_head in fp32
// sums out of place, under autocast, where its gradient comes through the
// weight's cast, in place). Once the last edge has delivered, the gradient
// becomes .grad — or, when .grad exists (several backwards before
// zero_grad), is added into it in place and freed.
func (s *sim) deliverParamGrad(p spec.TensorID, blk allocator.BlockID, view bool) error {
	t := &s.g.Tensors[p]
	if s.lv.paramUses[p] > 1 {
		s.pendingLeft[p]--
		if prev := s.pending[p]; prev != noBlock {
			if s.pendingView[p] {
				sum, err := s.allocSizedAs(p, ".grad (sum)", spec.RoleGradient)
				if err != nil {
					return err
				}
				s.freeRaw(t.Name, ".grad", prev, spec.RoleGradient)
				s.freeRaw(t.Name, ".grad", blk, spec.RoleGradient)
				blk, view = sum, false
			} else {
				s.freeRaw(t.Name, ".grad", blk, spec.RoleGradient)
				blk, view = prev, false
			}
		}
		s.pending[p], s.pendingView[p] = blk, view
		if s.pendingLeft[p] > 0 {
			return nil
		}
		s.pending[p] = noBlock
	}
	if s.paramGrads[p] != noBlock {
		// AccumulateGrad adds the (summed) gradient into .grad in place.
		s.freeRaw(t.Name, ".grad (accumulated)", blk, spec.RoleGradient)
		return nil
	}
	if s.par != nil && s.par.bucketViewGrads() {
		// DDP gradient_as_bucket_view: the grad is copied into its bucket
		// and replaced by a view of it at once.
		s.freeRaw(t.Name, ".grad", blk, spec.RoleGradient)
		return nil
	}
	s.paramGrads[p] = blk
	s.paramGradOrder = append(s.paramGradOrder, p)
	return nil
}

func (s *sim) releaseSaved(i int) {
	if s.released[i] {
		return
	}
	s.released[i] = true
	op := &s.g.Ops[i]
	if !s.train || op.NoGrad {
		return
	}
	if s.checkpointed(op) && !s.recomputed[op.Block] {
		return
	}
	for _, sv := range op.Saved {
		st := s.storage(sv)
		s.holds[st]--
		s.maybeFree(st)
	}
}

// recompute re-runs a checkpointed block's forward inside backward.
func (s *sim) recompute(b int) error {
	s.recomputed[b] = true
	first, stop := s.lv.blockFirst[b], s.lv.blockStop[b]
	for _, l := range s.lv.blockLocal[b] {
		s.uses[l.storage] = l.reads
	}
	for i := first; i <= stop; i++ {
		if i == stop && s.savesOnlyInputs(i) {
			// The early stop comes in the pack hook of the last saver's
			// saved tensors; an op saves its inputs before it runs, so one
			// that saves nothing it makes stops before its outputs exist
			// (measured: a Llama layer's recompute ends with mlp.mul's
			// output; down_proj's output is never allocated).
			s.stopBefore(i)
			break
		}
		if err := s.execOp(i, true); err != nil {
			return err
		}
	}
	// The stop unwinds the block's frames: their locals go (measured: a
	// GPT-2 block's attn_output, held to the block's end, is freed after
	// the recompute's last saver, the MLP's dropout), and the autocast
	// region's cache with them.
	for _, st := range s.lv.unwind[b] {
		if s.isLive[st] && s.holds[st] > 0 {
			s.holds[st]--
			s.maybeFree(st)
		}
	}
	for _, id := range s.recomputeCasts {
		s.holds[id]--
		s.maybeFree(id)
	}
	s.recomputeCasts = s.recomputeCasts[:0]
	return nil
}

// stopBefore is the recompute's early stop at op i, which saves only its
// inputs: they are packed (held for backward), the op's reads are done, and
// the Python locals the block held up to it are let go as the stop unwinds.
func (s *sim) stopBefore(i int) {
	op := &s.g.Ops[i]
	s.curOp, s.curSuffix = op.Name, ""
	s.packAndRead(op, true)
	s.releaseLocals(i, true)
}

// packAndRead holds what op saves for backward (when hold), then counts its
// reads done, freeing inputs nobody needs any more.
func (s *sim) packAndRead(op *spec.Op, hold bool) {
	if hold {
		for _, sv := range op.Saved {
			s.holds[s.storage(sv)]++
		}
	}
	for _, in := range op.Inputs {
		st := s.storage(in)
		s.uses[st]--
		s.maybeFree(st)
	}
}

// savesOnlyInputs reports whether every tensor op i saves for backward
// exists before the op runs (none is its output or extra).
func (s *sim) savesOnlyInputs(i int) bool {
	for _, sv := range s.g.Ops[i].Saved {
		if s.g.Tensors[s.storage(sv)].Op == i {
			return false
		}
	}
	return true
}

func (s *sim) backward() error {
	if s.g.Loss == spec.NoTensor {
		return nil
	}
	s.released = make([]bool, len(s.g.Ops))
	s.recomputed = make([]bool, s.g.Blocks)
	copy(s.pendingLeft, s.lv.paramUses)
	s.bufs = s.bufs[:0]
	s.curOp, s.curSuffix = "loss.backward", ""
	seed, err := s.newBuf(s.lossGradTensor())
	if err != nil {
		return err
	}
	// torch.autograd.backward keeps the grad_tensors it made until it
	// returns (measured: the seed goes at the end of backward).
	s.bufs[seed].refs++
	s.grads[s.g.Loss] = seed
	if s.par != nil { // FSDP root pre-backward hook
		if err := s.par.backwardStart(); err != nil {
			return err
		}
	}
	for i := len(s.g.Ops) - 1; i >= 0; i-- {
		op := &s.g.Ops[i]
		if s.par != nil { // FSDP pre-backward of a block (before its recompute)
			if err := s.par.beforeBackwardOp(i); err != nil {
				return err
			}
		}
		// The recompute runs when the first backward node of the block
		// unpacks a saved tensor — at the block's last saver; the nodes
		// after it run first (measured under autocast: the residual add's
		// gradient, cast for the MLP's fp16 output, comes before the
		// recompute).
		if s.checkpointed(op) && !s.recomputed[op.Block] && i <= s.lv.blockStop[op.Block] {
			if err := s.recompute(op.Block); err != nil {
				return err
			}
		}
		if err := s.backwardOp(i); err != nil {
			return err
		}
		if s.checkpointed(op) && (i == s.lv.blockFirstSaver[op.Block] || (s.lv.blockFirstSaver[op.Block] < 0 && i == s.lv.blockFirst[op.Block])) {
			for _, st := range s.lv.blockExt[op.Block] {
				s.holds[st]--
				s.maybeFree(st)
			}
		}
		if s.par != nil { // FSDP post-backward of a block (reshard, reduce-scatter)
			if err := s.par.afterBackwardOp(i); err != nil {
				return err
			}
		}
	}
	if s.par != nil { // root post-backward and final callback
		if err := s.par.backwardEnd(); err != nil {
			return err
		}
	}
	s.curOp, s.curSuffix = "end of backward", ""
	s.releaseBuf(seed)
	for i := range s.g.Ops {
		s.releaseSaved(i)
	}
	for t, b := range s.grads {
		if b >= 0 {
			s.grads[t] = -1
			s.releaseBuf(b)
		}
	}
	// del loss
	st := s.storage(s.g.Loss)
	s.holds[st]--
	s.maybeFree(st)
	return nil
}

func (s *sim) backwardOp(i int) error {
	op := &s.g.Ops[i]
	if op.NoGrad {
		return nil
	}
	sc := &s.bwd
	incoming := sc.incoming[:0]
	for _, o := range op.Outputs {
		if s.grads[o] >= 0 {
			incoming = append(incoming, s.grads[o])
			s.grads[o] = -1
		}
	}
	sc.incoming = incoming
	if len(incoming) == 0 {
		s.releaseSaved(i)
		return nil
	}
	s.curOp, s.curSuffix = op.Name, " (backward)"
	// The GEMM allocates its output, then cuBLAS makes the autograd
	// thread's workspace at its first call (measured: the lm_head weight's
	// gradient comes before the workspace): the workspace follows this op's
	// first allocation (request, replay.go).
	if op.Matmul != spec.MatmulNone {
		s.wsAfter = op
	}
	out, made, products := sc.out[:0], sc.made[:0], sc.products[:0]
	defer func() { sc.out, sc.made, sc.products = out, made, products }()
	if op.BackwardTempsFirst > 0 {
		if err := s.backwardTemps(i, s.checkpointed(op) && s.recomputed[op.Block], 0, op.BackwardTempsFirst, &made); err != nil {
			return err
		}
	}
	switch op.Flow {
	case spec.GradPassThrough:
		for k, in := range op.Inputs {
			if !s.g.Tensors[in].RequiresGrad {
				continue
			}
			if k < len(op.GradInputs) && op.GradInputs[k] != spec.NoTensor {
				// A broadcast input: the engine sums the gradient to its shape.
				b, err := s.newBuf(op.GradInputs[k])
				if err != nil {
					return err
				}
				out = append(out, pendingGrad{in, b, k})
				continue
			}
			s.bufs[incoming[0]].refs++
			out = append(out, pendingGrad{in, incoming[0], k})
		}
	case spec.GradNew:
		// A bias-free GEMM (mm) makes the weight's gradient before the
		// input's (measured); every other op goes in input order, then params.
		order := sc.order[:0]
		for k := range op.GradInputs {
			order = append(order, k)
		}
		sc.order = order
		if op.WeightGradFirst {
			if err := s.makeParamGrads(op.DirectParams(), &made); err != nil {
				return err
			}
			slices.Reverse(order)
		}
		if op.InputGradsReversed {
			slices.Reverse(order)
		}
		for _, k := range order {
			gid := op.GradInputs[k]
			if gid == spec.NoTensor || k >= len(op.Inputs)-op.ReducedInputs {
				continue // none, or the reduction's (startReduction)
			}
			if k < len(op.GradProducts) && op.GradProducts[k] != spec.NoTensor {
				if err := s.alloc(op.GradProducts[k], spec.RoleTemporary); err != nil {
					return err
				}
				products = append(products, k)
				continue
			}
			b, err := s.newBuf(gid)
			if err != nil {
				return err
			}
			s.bufs[b].view = op.GradInputViews
			out = append(out, pendingGrad{op.Inputs[k], b, k})
		}
	}
	script := s.g.Script(op)
	if (!op.WeightGradFirst || op.Flow != spec.GradNew) && script == nil {
		if err := s.makeParamGrads(op.DirectParams(), &made); err != nil {
			return err
		}
	}
	// The backward function's own temporaries; then, once it returns, the
	// engine reduces broadcast gradients (ReduceTemps). What a checkpointed
	// op saved was recomputed and unpacked into the function's locals,
	// whose last reference dies as it returns — before that reduction
	// (measured: a ViT fc2's recomputed input is freed between its weight's
	// gradient and its bias's staging buffer). Other saved tensors go when
	// the engine releases the node's variables, after its incoming
	// gradients.
	recomputed := s.checkpointed(op) && s.recomputed[op.Block]
	if script != nil {
		if err := s.backwardScript(op, script, &made); err != nil {
			return err
		}
	} else if err := s.backwardTemps(i, recomputed, op.BackwardTempsFirst, len(op.BackwardTemps), &made); err != nil {
		return err
	}
	out = append(out, sc.reduced...)
	sc.reduced = sc.reduced[:0]
	if s.wsAfter != nil { // nothing was allocated
		s.wsAfter = nil
		if err := s.matmulWorkspaces(op, gemmBackward); err != nil {
			return err
		}
	}
	if recomputed {
		s.releaseSaved(i) // no reduction (releaseSaved runs once)
	}
	// The temps still live go, last first (those a later one consumed, and
	// those the reduction let go, are gone already: free skips them).
	for k := len(op.BackwardTemps) - 1; k >= 0; k-- {
		s.free(op.BackwardTemps[k])
	}
	// validate_outputs sums or casts each product to its input's shape and
	// dtype, in input order, and drops the product.
	slices.Sort(products)
	for _, k := range products {
		b, err := s.newBuf(op.GradInputs[k])
		if err != nil {
			return err
		}
		s.free(op.GradProducts[k])
		out = append(out, pendingGrad{op.Inputs[k], b, k})
	}
	if op.InputGradsReversed { // the engine delivers in input order
		slices.SortStableFunc(out, func(a, b pendingGrad) int { return a.k - b.k })
	}
	for _, b := range incoming {
		s.releaseBuf(b)
	}
	s.releaseSaved(i)
	for _, p := range out {
		if err := s.accumulate(p.t, p.b); err != nil {
			return err
		}
	}
	for _, g := range made {
		view := op.WeightGradView && len(s.g.Tensors[g.param].Shape) == 2
		if err := s.deliverParamGrad(g.param, g.block, view); err != nil {
			return err
		}
	}
	return nil
}

// backwardTemps makes op i's backward temporaries from..to-1 in order,
// freeing those a later one consumes (Op.BackwardTempsFreedBy); the
// reduction (startReduction) comes before its staging (ReduceTemps), or
// after the last temporary when it needs none.
func (s *sim) backwardTemps(i int, recomputed bool, from, to int, made *[]madeGrad) error {
	op := &s.g.Ops[i]
	reduceFrom := len(op.BackwardTemps) - op.ReduceTemps
	to = min(to, len(op.BackwardTemps))
	for k := from; k < to; k++ {
		id := op.BackwardTemps[k]
		if k == reduceFrom {
			if err := s.startReduction(i, recomputed, made); err != nil {
				return err
			}
		}
		if err := s.alloc(id, spec.RoleTemporary); err != nil {
			return err
		}
		if k > 0 && k < len(op.BackwardTempsFreedBy) && op.BackwardTempsFreedBy[k] == k {
			s.free(id) // a call's own scratch: gone before what it frees
		}
		for j, by := range op.BackwardTempsFreedBy[:min(k, len(op.BackwardTempsFreedBy))] {
			if by == k {
				s.free(op.BackwardTemps[j])
			}
		}
	}
	// A reduction without staging comes after the last temporary — in the
	// call after the function's own gradients when some temporaries come
	// before them (BackwardTempsFirst), once (measured: a Gemma norm's fp32
	// weight, 512 rows, its [D] sum after the input's gradient).
	if to == len(op.BackwardTemps) && reduceFrom == to && op.ReducedParams+op.ReducedInputs > 0 && from == op.BackwardTempsFirst {
		return s.startReduction(i, recomputed, made)
	}
	return nil
}

// backwardScript runs op's backward script (Op.BackwardScript): its
// temporaries made and freed, its parameters' gradients made, in order.
func (s *sim) backwardScript(op *spec.Op, script []spec.BackwardStep, made *[]madeGrad) error {
	for _, st := range script {
		switch st.Kind {
		case spec.StepMakeTemp:
			if err := s.alloc(op.BackwardTemps[st.Index], spec.RoleTemporary); err != nil {
				return err
			}
		case spec.StepFreeTemp:
			s.free(op.BackwardTemps[st.Index])
		case spec.StepParamGrad:
			if err := s.makeParamGrads(op.Params[st.Index:st.Index+1], made); err != nil {
				return err
			}
		}
	}
	return nil
}

// startReduction is where the engine takes over from op i's backward
// function to sum its broadcast gradients: a recomputed op's saved tensors
// were unpacked into the function's locals and die as it returns; with
// Op.ReduceAfterTemps the op's own temps go; then the reduced inputs' and
// parameters' gradients are made (Op.ReducedInputs, Op.ReducedParams;
// measured: an RMSNorm weight's gradient after its grad·input product, an
// autocast conv bias's after the weight pass's buffers go).
func (s *sim) startReduction(i int, recomputed bool, made *[]madeGrad) error {
	op := &s.g.Ops[i]
	reduceFrom := len(op.BackwardTemps) - op.ReduceTemps
	if recomputed {
		s.releaseSaved(i)
	}
	if op.ReduceAfterTemps {
		for j := reduceFrom - 1; j >= 0; j-- {
			s.free(op.BackwardTemps[j]) // a no-op for those freed early
		}
	}
	for k := len(op.Inputs) - op.ReducedInputs; k < len(op.Inputs); k++ {
		if k < len(op.GradInputs) && op.GradInputs[k] != spec.NoTensor {
			b, err := s.newBuf(op.GradInputs[k])
			if err != nil {
				return err
			}
			s.bwd.reduced = append(s.bwd.reduced, pendingGrad{op.Inputs[k], b, k})
		}
	}
	return s.makeParamGrads(op.Params[len(op.Params)-op.ReducedParams:], made)
}

// pendingGrad is an input gradient a backward function hands on: input t
// (index k among the op's inputs) gets buffer b.
type pendingGrad struct {
	t spec.TensorID
	b int32
	k int
}

// backwardScratch holds backwardOp's working lists, reused op after op.
type backwardScratch struct {
	incoming []int32
	order    []int
	out      []pendingGrad
	made     []madeGrad
	products []int         // inputs whose gradient is first a product (GradProducts)
	reduced  []pendingGrad // inputs whose gradient the reduction made (startReduction)
}

// madeGrad is a parameter gradient a backward function made, to be
// delivered when it returns.
type madeGrad struct {
	param spec.TensorID
	block allocator.BlockID
}

// makeParamGrads makes the gradients of params, in order, appending them to
// made.
func (s *sim) makeParamGrads(params []spec.TensorID, made *[]madeGrad) error {
	for _, p := range params {
		blk, err := s.paramGrad(p)
		if err != nil {
			return err
		}
		if blk != noBlock {
			*made = append(*made, madeGrad{p, blk})
		}
	}
	return nil
}

// lossGradTensor is the tensor standing for torch.ones_like(loss), the seed of backward.
func (s *sim) lossGradTensor() spec.TensorID { return s.lossSeed }

// optimizerStep runs opt.step(): lazily created state at the first step,
// and the implementation's temporaries.
func (s *sim) optimizerStep() error {
	params := s.optimizerParams() // this rank's (parallel.go)
	first := s.optState == nil
	switch s.t.Optimizer {
	case spec.OptimizerNone:
		return nil
	case spec.OptimizerAdam, spec.OptimizerAdamW:
		if first {
			s.optState = []allocator.BlockID{}
			for _, p := range params {
				t := &s.g.Tensors[p]
				s.curOp, s.curSuffix = "optimizer state init", ""
				if s.t.OptimizerImpl == spec.ImplFused {
					if err := s.stateAlloc(t.Name, ".step", 4); err != nil {
						return err
					}
				}
				if err := s.stateAlloc(t.Name, ".exp_avg", s.stateBytes(p)); err != nil {
					return err
				}
				if err := s.stateAlloc(t.Name, ".exp_avg_sq", s.stateBytes(p)); err != nil {
					return err
				}
			}
		}
		switch s.t.OptimizerImpl {
		case spec.ImplForeach:
			// _foreach_sqrt(exp_avg_sqs) makes one full copy per (device, dtype)
			// group; a group's copies are released only when the next group's
			// exist (the Python local is rebound), the last when step() returns.
			var prev []allocator.BlockID
			var prevGroup []spec.TensorID
			release := func() {
				for k, blk := range prev {
					s.freeRaw(s.g.Tensors[prevGroup[k]].Name, ".exp_avg_sq_sqrt", blk, spec.RoleTemporary)
				}
			}
			for _, group := range s.dtypeGroups(params) {
				var tmp []allocator.BlockID
				for _, p := range group {
					t := &s.g.Tensors[p]
					s.curOp, s.curSuffix = "optimizer _foreach_sqrt", ""
					blk, err := s.allocRaw(t.Name, ".exp_avg_sq_sqrt", s.stateBytes(p), spec.RoleTemporary)
					if err != nil {
						return err
					}
					tmp = append(tmp, blk)
				}
				release()
				prev, prevGroup = tmp, group
			}
			release()
		case spec.ImplForLoop:
			// _single_tensor_adam: denom = (exp_avg_sq.sqrt() / bc2).add_(eps);
			// the Python local `denom` keeps the previous parameter's denom
			// alive until the next one is made, the last until step() returns.
			prev, prevName := noBlock, ""
			for _, p := range params {
				t := &s.g.Tensors[p]
				s.curOp, s.curSuffix = "optimizer single-tensor step", ""
				a, err := s.allocRaw(t.Name, ".sqrt", s.stateBytes(p), spec.RoleTemporary)
				if err != nil {
					return err
				}
				b, err := s.allocRaw(t.Name, ".denom", s.stateBytes(p), spec.RoleTemporary)
				if err != nil {
					return err
				}
				s.freeRaw(t.Name, ".sqrt", a, spec.RoleTemporary)
				if prev != noBlock {
					s.freeRaw(prevName, ".denom", prev, spec.RoleTemporary)
				}
				prev, prevName = b, t.Name
			}
			if prev != noBlock {
				s.freeRaw(prevName, ".denom", prev, spec.RoleTemporary)
			}
		}
	case spec.OptimizerSGD:
		// torch/optim/sgd.py: with momentum, the first step makes one buffer
		// per parameter — clone(grad) in the for-loop and foreach paths,
		// empty_like(grad) for every gradient in order before the kernel in
		// the fused one — and every later update is in place (foreach mul_
		// and add_, or the fused kernel): no temporaries in any of the three.
		// (Fused SGD follows the source; it was not measured.)
		if first {
			s.optState = []allocator.BlockID{}
			if s.t.Momentum > 0 {
				for _, p := range params {
					t := &s.g.Tensors[p]
					s.curOp, s.curSuffix = "optimizer state init", ""
					if err := s.stateAlloc(t.Name, ".momentum_buffer", s.stateBytes(p)); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func (s *sim) stateAlloc(base, suffix string, bytes int64) error {
	blk, err := s.allocRaw(base, suffix, bytes, spec.RoleOptimizerState)
	if err != nil {
		return err
	}
	s.optState = append(s.optState, blk)
	return nil
}

// paramGradOrderByParams lists the parameters that have a gradient, in model.parameters() order.
func (s *sim) paramGradOrderByParams() []spec.TensorID {
	var out []spec.TensorID
	for _, p := range s.g.Params {
		if s.paramGrads[p] != noBlock {
			out = append(out, p)
		}
	}
	return out
}

// dtypeGroups splits params into foreach groups by dtype: fp32 first, then
// the others in order of first appearance.
func (s *sim) dtypeGroups(params []spec.TensorID) [][]spec.TensorID {
	var order []spec.DType
	groups := map[spec.DType][]spec.TensorID{}
	for _, p := range params {
		dt := s.g.Tensors[p].DType
		if _, ok := groups[dt]; !ok {
			order = append(order, dt)
		}
		groups[dt] = append(groups[dt], p)
	}
	// Measured: the fp32 group runs before the others, whatever the order
	// of the parameters.
	slices.SortStableFunc(order, func(a, b spec.DType) int {
		if (a == spec.FP32) == (b == spec.FP32) {
			return 0
		}
		if a == spec.FP32 {
			return -1
		}
		return 1
	})
	var out [][]spec.TensorID
	for _, dt := range order {
		out = append(out, groups[dt])
	}
	return out
}

// zeroGrad is opt.zero_grad(set_to_none=True): every .grad is freed.
func (s *sim) zeroGrad() {
	s.curOp, s.curSuffix = "zero_grad", ""
	for _, p := range s.paramGradOrder {
		if s.paramGrads[p] == noBlock { // FSDP freed it at its reduce-scatter
			continue
		}
		s.freeRaw(s.g.Tensors[p].Name, ".grad", s.paramGrads[p], spec.RoleGradient)
		s.paramGrads[p] = noBlock
	}
	s.paramGradOrder = s.paramGradOrder[:0]
	if s.par != nil { // sharded gradients
		s.par.zeroGrad()
	}
}
