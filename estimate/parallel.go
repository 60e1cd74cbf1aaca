package estimate

// Per-rank estimates of data-parallel training (training.parallel): what a
// process group adds to, or takes from, one rank's step, as PyTorch 2.11 does
// it. The Graph already holds one rank's tensors (batch_size is the rank's
// micro-batch; tensor parallelism is applied by the families); this file
// adds the collectives' buffers and the sharding of parameters, gradients and
// optimizer state, through hooks the simulation calls (estimate.go,
// timeline.go). The rank estimated is rank 0, which holds the largest shards.
//
// DDP (torch/nn/parallel/distributed.py, csrc/distributed/c10d/reducer.cpp):
// the Reducer allocates its bucket buffers when DDP is built — one bucket per
// dtype holding every parameter (find_unused_parameters=False buckets
// everything together before the first backward) — and rebuilds them at the
// second forward in gradient-ready order: a first bucket closed at 1 MiB,
// the next ones at bucket_cap_mb (25 MiB), each closed once it reaches its
// cap. The old buckets are freed before the new ones are made — unless the
// rebuild comes within the step whose first backward all-reduced them
// (micro-batches): NCCL's process group keeps the tensors of a collective
// until its watchdog thread reaps the finished work, which it had not done
// by the next micro-batch's backward on either of two real ranks measured
// (it freed the 474.7 MiB bucket of GPT-2 late in that backward on one
// rank, in the next step on the other); the model frees them at the end of
// that backward. With
// gradient_as_bucket_view=False (the default) .grad stays a tensor of its own
// and is copied into the bucket; with True the grad AccumulateGrad made is
// replaced by a view of the bucket right after it is made. NCCL's
// all-reduce works in place: no allocator memory.
//
// ZeRO-1 (torch.distributed.optim.ZeroRedundancyOptimizer over DDP): the
// parameters are partitioned whole, largest first, each to the rank with the
// fewest elements so far; rank 0's optimizer holds state for its partition.
//
// FSDP2 (torch/distributed/fsdp/_fully_shard): one unit per block
// (transformer layer) and one for the root (everything else). Each parameter
// is kept as its rank's dim-0 shard, padded to ceil(dim0/N) rows. Unsharding
// a unit allocates a flat all-gather buffer (N × the unit's padded shards) on
// the all-gather copy-in stream, then one padded full-size tensor per
// parameter on the default stream (copy-out). In forward, a unit's all-gather
// buffer is held until the next unit has all-gathered (the previous buffer is
// freed before the next copy-out), the last one until the root's forward
// returns; every unit reshards after its forward (reshard_after_forward=True
// given explicitly: the root too). Backward starts with the root's
// pre-backward hook (root unshard, buffer freed after its copy-out, then the
// last block's all-gather prefetched); each block's pre-backward copies out
// its prefetched buffer, frees it and prefetches the block before it. After a
// block's backward (post-backward): reshard, free the previous unit's
// reduce-scatter input, allocate this unit's (full padded size, default
// stream), free the full-size gradients autograd made, allocate the sharded
// gradient (one flat block per unit on the reduce-scatter stream; it becomes
// the parameters' .grad); the reduce-scatter input is held until the next
// post-backward, the last one until the end of backward. ZeRO-2 is
// reshard_after_forward=False (no all-gather in backward); HSDP shards over a
// shard group and all-reduces the sharded gradient in place.

import (
	"fmt"
	"slices"
	"sort"

	"github.com/memplan/memplan/estimate/allocator"
	"github.com/memplan/memplan/spec"
)

// Streams the collectives allocate on (the allocator keeps per-stream pools).
const (
	streamDefault       allocator.Stream = 0
	streamAllGather     allocator.Stream = 1
	streamReduceScatter allocator.Stream = 2
)

// firstBucketBytes is dist._DEFAULT_FIRST_BUCKET_BYTES.
const firstBucketBytes = 1 << 20

// parallelSim is one rank's process-group state during a simulation; nil
// when the step runs on one rank with one micro-batch.
type parallelSim struct {
	s *sim
	p spec.Parallel
	n int64 // ranks the states are sharded over

	// DDP buckets.
	buckets []allocator.BlockID
	// bufferGroups are the flat copies of DDP's buffer broadcast, the same
	// before every forward (syncBuffers).
	bufferGroups []bufferGroup
	bucketBytes  []int64
	rebuilt      bool
	readyOrder   []spec.TensorID
	// readyIteration is the step whose backward set readyOrder; stale holds
	// the buckets a rebuild in that same step replaced, until the backward ends.
	readyIteration int
	stale          []allocator.BlockID

	// ZeRO-1: parameters whose optimizer state rank 0 holds, and the order
	// its optimizer lists them in (the partition's: largest first).
	owned      []bool
	ownedOrder []spec.TensorID

	// FSDP2 units: blocks 0..B-1 then the root.
	units     []*fsdpUnit
	root      int
	shardOf   []int64 // padded shard bytes by parameter tensor id
	agState   allocator.BlockID
	agStateOK bool
	rsState   allocator.BlockID
	rsStateOK bool
	raf       bool
}

type fsdpUnit struct {
	name       string
	params     []spec.TensorID
	shard      []int64 // padded shard bytes per parameter
	full       []int64 // padded unsharded bytes per parameter
	agBytes    int64
	shardBytes int64
	resident   []allocator.BlockID
	unsharded  []allocator.BlockID // nil while sharded
	prefetch   allocator.BlockID
	prefetched bool
	grad       allocator.BlockID
	hasGrad    bool
	lastParam  int // index in Graph.Params of its last parameter
}

func newParallelSim(s *sim) *parallelSim {
	p := s.t.Parallel
	if !p.ProcessGroup() || !s.train {
		return nil // one rank: micro-batches are plain gradient accumulation (stepPhases)
	}
	return &parallelSim{s: s, p: p, n: p.ShardRanks(), raf: p.Sharding != spec.ShardingZero2}
}

// layout shards the parameters among the ranks (FSDP2's units, ZeRO-1's
// partition) before the timeline walks; a replayed walk needs neither.
func (ps *parallelSim) layout() {
	switch {
	case ps.p.ShardsParams():
		ps.buildUnits()
	case ps.p.Sharding == spec.ShardingZero1:
		ps.partition()
	}
}

// shardRows is FSDP2's padded dim-0 shard of a parameter, in bytes.
func shardBytes(t *spec.Tensor, n int64) int64 {
	if len(t.Shape) == 0 || t.Bytes == 0 {
		return t.Bytes
	}
	rows := t.Shape[0]
	per := t.Bytes / rows
	return (rows + n - 1) / n * per
}

func (ps *parallelSim) buildUnits() {
	g := ps.s.g
	nb := g.Blocks
	unitOf := make([]int, len(g.Tensors))
	for i := range unitOf {
		unitOf[i] = -2
	}
	for i := range g.Ops {
		op := &g.Ops[i]
		for _, p := range op.Params {
			if unitOf[p] == -2 {
				unitOf[p] = op.Block
			}
		}
	}
	ps.units = make([]*fsdpUnit, nb+1)
	for b := 0; b < nb; b++ {
		ps.units[b] = &fsdpUnit{name: fmt.Sprintf("block %d", b)}
	}
	ps.root = nb
	ps.units[nb] = &fsdpUnit{name: "root"}
	ps.shardOf = make([]int64, len(g.Tensors))
	for pi, p := range g.Params {
		u := unitOf[p]
		if u < 0 || u >= nb {
			u = nb
		}
		t := &g.Tensors[p]
		sb := shardBytes(t, ps.n)
		ps.shardOf[p] = sb
		un := ps.units[u]
		un.params = append(un.params, p)
		un.shard = append(un.shard, sb)
		un.full = append(un.full, sb*ps.n)
		un.agBytes += sb * ps.n
		un.shardBytes += sb
		un.lastParam = pi
	}
}

// partition is ZeroRedundancyOptimizer's: largest parameter first, each to
// the rank with the fewest elements so far (ties: the lowest rank).
func (ps *parallelSim) partition() {
	g := ps.s.g
	order := append([]spec.TensorID(nil), g.Params...)
	sort.SliceStable(order, func(i, j int) bool { return g.Tensors[order[i]].Numel() > g.Tensors[order[j]].Numel() })
	sizes := make([]int64, ps.n)
	ps.owned = make([]bool, len(g.Tensors))
	for _, p := range order {
		r := 0
		for k := range sizes {
			if sizes[k] < sizes[r] {
				r = k
			}
		}
		sizes[r] += g.Tensors[p].Numel()
		ps.owned[p] = r == 0
		if r == 0 {
			ps.ownedOrder = append(ps.ownedOrder, p)
		}
	}
}

// malloc allocates a collective's buffer on a stream and records it.
// The event is named name+suffix, joined only when the timeline keeps it.
func (ps *parallelSim) malloc(name, suffix string, bytes int64, role spec.Role, stream allocator.Stream) (allocator.BlockID, error) {
	return ps.s.allocOn(name, suffix, bytes, role, stream)
}

func (ps *parallelSim) release(name, suffix string, blk allocator.BlockID, role spec.Role) {
	ps.s.freeRaw(name, suffix, blk, role)
}

// transient is a collective-side buffer freed as soon as it is made (a
// kernel's packed launch metadata, a broadcast's flat copy), on the
// default stream.
func (ps *parallelSim) transient(name, suffix string, bytes int64) error {
	blk, err := ps.malloc(name, suffix, bytes, spec.RoleCollective, streamDefault)
	if err != nil {
		return err
	}
	ps.release(name, suffix, blk, spec.RoleCollective)
	return nil
}

// allocResident places the model and the batch before the first step: the
// parameters (sharded under FSDP2), DDP's first buckets, then the inputs.
func (s *sim) allocResident() error {
	ps := s.par
	if ps == nil || ps.units == nil {
		for _, id := range s.g.Resident {
			if err := s.alloc(id, spec.RoleParameter); err != nil {
				return err
			}
		}
	} else {
		// fully_shard on every block, then on the root.
		for _, u := range ps.units {
			for k, p := range u.params {
				blk, err := ps.malloc(s.g.Tensors[p].Name, " (shard)", u.shard[k], spec.RoleParameter, streamDefault)
				if err != nil {
					return err
				}
				u.resident = append(u.resident, blk)
			}
		}
		for _, id := range s.g.Resident {
			if !s.g.Tensors[id].RequiresGrad {
				if err := s.alloc(id, spec.RoleParameter); err != nil {
					return err
				}
			}
		}
	}
	if ps != nil && ps.ddp() {
		// Before the first backward DDP buckets all parameters of a dtype together.
		var order []spec.TensorID
		order = append(order, s.g.Params...)
		if err := ps.allocBuckets(order, []int64{1 << 62}); err != nil {
			return err
		}
	}
	for _, id := range s.g.Inputs {
		if err := s.alloc(id, spec.RoleInput); err != nil {
			return err
		}
	}
	return nil
}

func (ps *parallelSim) ddp() bool {
	return ps.p.Sharding == spec.ShardingNone || ps.p.Sharding == spec.ShardingZero1
}

// allocBuckets is compute_bucket_assignment_by_size + initialize_buckets:
// per dtype, parameters join the open bucket until it reaches its limit.
func (ps *parallelSim) allocBuckets(order []spec.TensorID, limits []int64) error {
	g := ps.s.g
	type open struct {
		bytes int64
		li    int
	}
	cur := map[spec.DType]*open{}
	var dtypes []spec.DType
	var sizes []int64
	for _, p := range order {
		t := &g.Tensors[p]
		if !t.RequiresGrad {
			continue
		}
		b, ok := cur[t.DType]
		if !ok {
			b = &open{}
			cur[t.DType] = b
			dtypes = append(dtypes, t.DType)
		}
		b.bytes += t.Bytes
		if b.bytes >= limits[min(b.li, len(limits)-1)] {
			sizes = append(sizes, b.bytes)
			b.bytes = 0
			b.li++
		}
	}
	for _, dt := range dtypes {
		if b := cur[dt]; b.bytes > 0 {
			sizes = append(sizes, b.bytes)
		}
	}
	for k, n := range sizes {
		blk, err := ps.malloc("DDP gradient bucket ", fmt.Sprint(k), n, spec.RoleCollective, streamDefault)
		if err != nil {
			return err
		}
		ps.buckets = append(ps.buckets, blk)
		ps.bucketBytes = append(ps.bucketBytes, n)
	}
	return nil
}

// forwardStart runs before the first op of a forward: DDP's bucket rebuild
// (second forward) and buffer broadcast, FSDP2's root unshard.
func (ps *parallelSim) forwardStart() error {
	s := ps.s
	if ps.ddp() {
		if !ps.rebuilt && len(ps.readyOrder) > 0 {
			ps.rebuilt = true
			s.curOp, s.curSuffix = "DDP bucket rebuild", ""
			if s.iteration == ps.readyIteration {
				// Their all-reduce is not reaped yet (see the top of the file).
				ps.stale = ps.buckets
			} else {
				ps.releaseBuckets(ps.buckets, "")
			}
			ps.buckets, ps.bucketBytes = nil, nil
			if err := ps.allocBuckets(ps.readyOrder, []int64{firstBucketBytes, ps.p.BucketCapBytes()}); err != nil {
				return err
			}
		}
		return ps.syncBuffers()
	}
	if ps.units != nil {
		s.curOp, s.curSuffix = "FSDP root pre-forward", ""
		return ps.preForward(ps.root)
	}
	return nil
}

// bufferBroadcastGroupBytes is the size of DDP's buffer broadcast groups
// (broadcast_bucket_size, 250 MiB).
const bufferBroadcastGroupBytes = 250 << 20

// syncBuffers is DDP's broadcast of the module's buffers from rank 0 before
// every forward (broadcast_buffers, on by default): c10d's take_tensors
// groups them by dtype, closing a group once it reaches 250 MiB, and each
// group is flattened into one copy that is broadcast and freed once copied
// back (measured: Llama's two bf16 rotary buffers, one 128-byte request at
// the start of every forward). The open groups are taken in the order of
// their dtype's first buffer.
func (ps *parallelSim) syncBuffers() error {
	if ps.bufferGroups == nil {
		ps.bufferGroups = bufferBroadcastGroups(ps.s.g)
	}
	ps.s.curOp, ps.s.curSuffix = "DDP buffer broadcast", ""
	for _, g := range ps.bufferGroups {
		if err := ps.transient("DDP buffer broadcast ", g.dt.String(), g.bytes); err != nil {
			return err
		}
	}
	return nil
}

// bufferGroup is one flat copy of DDP's buffer broadcast.
type bufferGroup struct {
	dt    spec.DType
	bytes int64
}

// bufferBroadcastGroups groups g's buffers as take_tensors does (see
// syncBuffers); an empty, non-nil list when there are none.
func bufferBroadcastGroups(g *spec.Graph) []bufferGroup {
	isParam := make(map[spec.TensorID]bool, len(g.Params))
	for _, p := range g.Params {
		isParam[p] = true
	}
	done, open := []bufferGroup{}, []bufferGroup(nil)
	for _, id := range g.Resident {
		t := &g.Tensors[id]
		if isParam[id] || t.Role != spec.RoleParameter || t.Bytes == 0 {
			continue
		}
		k := slices.IndexFunc(open, func(b bufferGroup) bool { return b.dt == t.DType })
		if k < 0 {
			open = append(open, bufferGroup{dt: t.DType})
			k = len(open) - 1
		}
		open[k].bytes += t.Bytes
		if open[k].bytes >= bufferBroadcastGroupBytes {
			done = append(done, open[k])
			open[k].bytes = 0
		}
	}
	for _, b := range open {
		if b.bytes > 0 {
			done = append(done, b)
		}
	}
	return done
}

// releaseBuckets frees DDP's bucket buffers, each event named with its
// index and suffix.
func (ps *parallelSim) releaseBuckets(buckets []allocator.BlockID, suffix string) {
	for k, blk := range buckets {
		ps.release("DDP gradient bucket ", fmt.Sprint(k)+suffix, blk, spec.RoleCollective)
	}
}

// unshard all-gathers a unit: the flat buffer on the all-gather stream
// (unless prefetched), then the per-parameter full tensors; it returns the
// buffer, which the caller frees or holds.
func (ps *parallelSim) unshard(u *fsdpUnit) (allocator.BlockID, error) {
	var ag allocator.BlockID
	if u.prefetched {
		ag, u.prefetched = u.prefetch, false
	} else {
		var err error
		if ag, err = ps.malloc("FSDP all-gather buffer: ", u.name, u.agBytes, spec.RoleCollective, streamAllGather); err != nil {
			return 0, err
		}
	}
	return ag, nil
}

func (ps *parallelSim) copyOut(u *fsdpUnit) error {
	g := ps.s.g
	u.unsharded = make([]allocator.BlockID, len(u.params))
	for k, p := range u.params {
		blk, err := ps.malloc(g.Tensors[p].Name, " (all-gathered)", u.full[k], spec.RoleParameter, streamDefault)
		if err != nil {
			return err
		}
		u.unsharded[k] = blk
	}
	// split_with_sizes_copy from the all-gather output into them: its
	// packed launch metadata, freed once the copy is queued.
	return ps.transient("FSDP copy-out metadata: ", u.name, spec.SplitCopyMetadataBytes(u.shard, ps.n))
}

func (ps *parallelSim) reshard(u *fsdpUnit) {
	if u.unsharded == nil {
		return
	}
	for k, blk := range u.unsharded {
		ps.release(ps.s.g.Tensors[u.params[k]].Name, " (all-gathered)", blk, spec.RoleParameter)
	}
	u.unsharded = nil
}

// preForward is FSDPParamGroup.pre_forward: all-gather, copy out, then hold
// this unit's all-gather buffer in place of the previous unit's, which is
// freed as the state is replaced (measured: after the copy-out).
func (ps *parallelSim) preForward(ui int) error {
	u := ps.units[ui]
	if u.unsharded != nil || len(u.params) == 0 {
		return nil
	}
	ag, err := ps.unshard(u)
	if err != nil {
		return err
	}
	if err := ps.copyOut(u); err != nil {
		return err
	}
	ps.flushAllGather()
	ps.agState, ps.agStateOK = ag, true
	return nil
}

func (ps *parallelSim) flushAllGather() {
	if ps.agStateOK {
		ps.release("FSDP all-gather buffer", " (held)", ps.agState, spec.RoleCollective)
		ps.agStateOK = false
	}
}

// beforeForwardOp and afterForwardOp bracket op i of the forward.
func (ps *parallelSim) beforeForwardOp(i int) error {
	if ps.units == nil {
		return nil
	}
	op := &ps.s.g.Ops[i]
	if op.Block >= 0 && i == ps.s.lv.blockFirst[op.Block] {
		return ps.preForward(op.Block)
	}
	return nil
}

func (ps *parallelSim) afterForwardOp(i int) {
	if ps.units == nil {
		return
	}
	op := &ps.s.g.Ops[i]
	if op.Block >= 0 && i == ps.s.lv.blockLast[op.Block] && ps.raf {
		ps.reshard(ps.units[op.Block])
	}
}

// forwardEnd is the root's post-forward: reshard, then drop the last held
// all-gather buffer.
func (ps *parallelSim) forwardEnd() {
	if ps.units == nil {
		return
	}
	ps.s.curOp, ps.s.curSuffix = "FSDP root post-forward", ""
	if ps.raf {
		ps.reshard(ps.units[ps.root])
	}
	ps.flushAllGather()
}

// preBackward is FSDPParamGroup.pre_backward: unshard (copy out a prefetched
// buffer and free it), then prefetch the unit before it.
func (ps *parallelSim) preBackward(ui int) error {
	u := ps.units[ui]
	if u.unsharded == nil && len(u.params) > 0 {
		ag, err := ps.unshard(u)
		if err != nil {
			return err
		}
		if err := ps.copyOut(u); err != nil {
			return err
		}
		ps.release("FSDP all-gather buffer: ", u.name, ag, spec.RoleCollective)
	}
	// The prefetch target is the unit before in post-forward order (blocks,
	// then the root): the root prefetches the last block.
	if target := ui - 1; target >= 0 {
		t := ps.units[target]
		if t.unsharded == nil && !t.prefetched && len(t.params) > 0 {
			blk, err := ps.malloc("FSDP all-gather buffer (prefetch): ", t.name, t.agBytes, spec.RoleCollective, streamAllGather)
			if err != nil {
				return err
			}
			t.prefetch, t.prefetched = blk, true
		}
	}
	return nil
}

// postBackward is FSDPParamGroup.post_backward for a unit.
func (ps *parallelSim) postBackward(ui int) error {
	s := ps.s
	u := ps.units[ui]
	var grads []spec.TensorID
	var chunks []int64 // their padded shards, the copy-in's chunks
	for k, p := range u.params {
		if s.paramGrads[p] != noBlock {
			grads = append(grads, p)
			chunks = append(chunks, u.shard[k])
		}
	}
	ps.reshard(u)
	if len(grads) == 0 {
		return nil
	}
	if ps.rsStateOK {
		ps.release("FSDP reduce-scatter input", " (held)", ps.rsState, spec.RoleCollective)
		ps.rsStateOK = false
	}
	rs, err := ps.malloc("FSDP reduce-scatter input: ", u.name, u.agBytes, spec.RoleCollective, streamDefault)
	if err != nil {
		return err
	}
	// The copy-in (torch._chunk_cat into it): its packed launch metadata,
	// freed once the copy is queued.
	if err := ps.transient("FSDP copy-in metadata: ", u.name, spec.ChunkCatMetadataBytes(chunks)); err != nil {
		return err
	}
	// foreach_reduce clears its list of unsharded gradients after the
	// copy-in, but a loop over them before that leaves the last one in a
	// local until it returns, after the sharded gradient is made (measured:
	// the root's lm_head gradient goes after it).
	dropGrad := func(p spec.TensorID) {
		s.freeRaw(s.g.Tensors[p].Name, ".grad", s.paramGrads[p], spec.RoleGradient)
		s.paramGrads[p] = noBlock
	}
	for _, p := range grads[:len(grads)-1] {
		dropGrad(p)
	}
	out, err := ps.malloc("sharded .grad: ", u.name, u.shardBytes, spec.RoleGradient, streamReduceScatter)
	if err != nil {
		return err
	}
	dropGrad(grads[len(grads)-1])
	if u.hasGrad {
		// Later micro-batches add into the sharded gradient.
		ps.release("sharded .grad (accumulated): ", u.name, out, spec.RoleGradient)
	} else {
		u.grad, u.hasGrad = out, true
	}
	ps.rsState, ps.rsStateOK = rs, true
	return nil
}

// backwardStart runs after the loss seed: the root's pre-backward hook.
func (ps *parallelSim) backwardStart() error {
	if ps.units == nil {
		return nil
	}
	ps.s.curOp, ps.s.curSuffix = "FSDP root pre-backward", ""
	return ps.preBackward(ps.root)
}

func (ps *parallelSim) beforeBackwardOp(i int) error {
	if ps.units == nil {
		return nil
	}
	op := &ps.s.g.Ops[i]
	if op.Block >= 0 && i == ps.s.lv.blockLast[op.Block] {
		ps.s.curOp, ps.s.curSuffix = op.Name, " (FSDP pre-backward)"
		return ps.preBackward(op.Block)
	}
	return nil
}

func (ps *parallelSim) afterBackwardOp(i int) error {
	if ps.units == nil {
		return nil
	}
	op := &ps.s.g.Ops[i]
	if op.Block >= 0 && i == ps.s.lv.blockFirst[op.Block] {
		ps.s.curOp, ps.s.curSuffix = op.Name, " (FSDP post-backward)"
		return ps.postBackward(op.Block)
	}
	return nil
}

// backwardEnd is the root's final callback: the root's post-backward, then
// the last reduce-scatter input is dropped. DDP records the ready order.
func (ps *parallelSim) backwardEnd() error {
	s := ps.s
	if ps.ddp() && ps.readyOrder == nil {
		ps.readyOrder = append([]spec.TensorID{}, s.paramGradOrder...)
		ps.readyIteration = s.iteration
	} else if len(ps.stale) > 0 {
		s.curOp, s.curSuffix = "DDP: NCCL work reaped", ""
		ps.releaseBuckets(ps.stale, " (replaced)")
		ps.stale = nil
	}
	if ps.units == nil {
		return nil
	}
	s.curOp, s.curSuffix = "FSDP root post-backward", ""
	if err := ps.postBackward(ps.root); err != nil {
		return err
	}
	if ps.rsStateOK {
		ps.release("FSDP reduce-scatter input", " (held)", ps.rsState, spec.RoleCollective)
		ps.rsStateOK = false
	}
	return nil
}

// bucketViewGrads reports whether .grad becomes a view of a DDP bucket.
func (ps *parallelSim) bucketViewGrads() bool { return ps.ddp() && ps.p.GradientAsBucketView }

// zeroGrad frees the sharded gradients (FSDP2), in the order the last
// parameter of each unit drops its view.
func (ps *parallelSim) zeroGrad() {
	if ps.units == nil {
		return
	}
	us := append([]*fsdpUnit(nil), ps.units...)
	sort.SliceStable(us, func(i, j int) bool { return us[i].lastParam < us[j].lastParam })
	for _, u := range us {
		if u.hasGrad {
			ps.release("sharded .grad: ", u.name, u.grad, spec.RoleGradient)
			u.hasGrad = false
		}
	}
}

// optimizerParams lists the parameters opt.step() updates on this rank, in
// model.parameters() order — under ZeRO-1 in the order the partition gave
// them to the rank (largest first; measured in the foreach step's order).
func (s *sim) optimizerParams() []spec.TensorID {
	ps := s.par
	if ps == nil {
		return s.paramGradOrderByParams()
	}
	if ps.units != nil {
		var out []spec.TensorID
		for _, p := range s.g.Params {
			if s.g.Tensors[p].RequiresGrad {
				out = append(out, p)
			}
		}
		return out
	}
	if ps.owned == nil {
		return s.paramGradOrderByParams()
	}
	var out []spec.TensorID
	for _, p := range ps.ownedOrder {
		if s.paramGrads[p] != noBlock {
			out = append(out, p)
		}
	}
	return out
}

// stateBytes is the bytes of one optimizer-state tensor of p on this rank.
func (s *sim) stateBytes(p spec.TensorID) int64 {
	if s.par != nil && s.par.units != nil {
		return s.par.shardOf[p]
	}
	return s.g.Tensors[p].Bytes
}

// stepPhases lists the phases of one optimizer step: micro_batches forward
// and backward passes, then the optimizer and zero_grad.
func (s *sim) stepPhases() []Phase {
	if !s.train {
		return []Phase{PhaseForward}
	}
	var out []Phase
	for range s.t.Parallel.Micro() {
		out = append(out, PhaseForward, PhaseBackward)
	}
	return append(out, PhaseOptimizer, PhaseZeroGrad)
}

// mergePhaseRun appends a phase run, or folds it into the run of the same
// phase already there (micro-batches): the largest peaks, the latest end.
func mergePhaseRun(runs []PhaseRun, pr PhaseRun) []PhaseRun {
	for k := range runs {
		if runs[k].Phase != pr.Phase {
			continue
		}
		old := runs[k]
		if pr.PeakAllocatedBytes < old.PeakAllocatedBytes {
			pr.PeakAllocatedBytes, pr.PeakEvent, pr.PeakByRole, pr.PeakOp = old.PeakAllocatedBytes, old.PeakEvent, old.PeakByRole, old.PeakOp
		}
		pr.PeakReservedBytes = max(pr.PeakReservedBytes, old.PeakReservedBytes)
		runs[k] = pr
		return runs
	}
	return append(runs, pr)
}

// ParallelSummary is the rank layout of a per-rank estimate and what one
// rank holds between steps.
type ParallelSummary struct {
	Layout       string `json:"layout"`
	WorldSize    int64  `json:"world_size"`
	Data         int64  `json:"data"`
	Tensor       int64  `json:"tensor"`
	Sharding     string `json:"sharding"`
	ShardRanks   int64  `json:"shard_ranks"`
	MicroBatches int64  `json:"micro_batches"`
	// Rank is the rank estimated: 0, which holds the largest shards.
	Rank int `json:"rank"`
	// GlobalBatch is batch_size × micro_batches × data ranks.
	GlobalBatch int64 `json:"global_batch"`
	// Per-rank model states (exact bytes, before allocator rounding).
	ParameterBytes      int64 `json:"parameter_bytes"`
	GradientBytes       int64 `json:"gradient_bytes"`
	OptimizerStateBytes int64 `json:"optimizer_state_bytes"`
	// CollectiveBytes is the largest collective buffer set live at the peak.
	CollectiveBytes int64 `json:"collective_bytes_at_peak"`
}

// rankStates returns one rank's parameter, gradient and optimizer-state bytes.
func (s *sim) rankStates() (params, grads, state int64) {
	g := s.g
	var owned int64
	for _, p := range g.Params {
		t := &g.Tensors[p]
		b := s.stateBytes(p)
		params += b
		if t.RequiresGrad && s.train {
			grads += b
			if s.par == nil || s.par.owned == nil || s.par.owned[p] {
				owned += b
			}
		}
	}
	switch s.t.Optimizer {
	case spec.OptimizerAdam, spec.OptimizerAdamW:
		state = 2 * owned
	case spec.OptimizerSGD:
		if s.t.Momentum > 0 {
			state = owned
		}
	}
	if !s.train {
		state = 0
	}
	return params, grads, state
}

// parallelResult fills the per-rank parts of a result: the summary, the
// terms one rank holds, the layout among the inputs.
func (s *sim) parallelResult(r *Result, peak *PhaseRun) {
	ps := s.par
	if ps == nil {
		return
	}
	p := ps.p
	params, grads, state := s.rankStates()
	coll := int64(0)
	if peak != nil {
		coll = peak.PeakByRole[spec.RoleCollective.String()]
	}
	r.Parallel = &ParallelSummary{Layout: p.Layout(), WorldSize: p.World(), Data: p.DataRanks(), Tensor: p.TensorRanks(),
		Sharding: p.Sharding.String(), ShardRanks: ps.n, MicroBatches: p.Micro(),
		GlobalBatch:    s.t.BatchSize * p.Micro() * p.DataRanks(),
		ParameterBytes: params, GradientBytes: grads, OptimizerStateBytes: state, CollectiveBytes: coll}
	states := params + grads + state
	for i := range r.Terms {
		t := &r.Terms[i]
		switch t.Name {
		case "parameters":
			t.Bytes = params
			if ps.units != nil {
				t.Note = fmt.Sprintf("rank 0's dim-0 shards (ceil(rows/%d) each) of %d parameters, %s; all-gathered units come and go on top", ps.n, s.g.ParamCount(), mibStr(params))
			} else if p.TensorRanks() > 1 {
				t.Note = fmt.Sprintf("%d parameters on this rank (tensor-parallel shards), %s", s.g.ParamCount(), mibStr(params))
			}
		case "gradients":
			t.Bytes = grads
			if ps.units != nil {
				t.Note = fmt.Sprintf("sharded .grad (one flat block per FSDP unit, reduce-scattered over %d ranks); full-size grads of one unit live only in its backward", ps.n)
			}
		case "optimizer state":
			t.Bytes = state
			if p.Sharding != spec.ShardingNone {
				t.Note += fmt.Sprintf("; rank 0's share over %d ranks", ps.n)
			}
		case "model states (parameters + gradients + optimizer state)":
			t.Bytes = states
			t.Note = fmt.Sprintf("per rank: %s = %.1f MB, before activations and allocator rounding", mibStr(states), float64(states)/mb)
		case "NCCL buffers":
			if s.p.NCCLBytes > 0 {
				t.Bytes, t.Included = s.p.NCCLBytes, true
				t.Note = fmt.Sprintf("NCCL's communicator buffers outside the allocator, from GPU profile %q", s.p.Name)
			} else {
				t.Note = fmt.Sprintf("NCCL's own memory (communicator buffers, outside the allocator) is unknown for GPU profile %q: not measured, excluded from the nvidia-smi figure", s.p.Name)
			}
		}
	}
	var bucketBytes int64
	for _, b := range ps.bucketBytes {
		bucketBytes += b
	}
	var extra []Term
	switch {
	case ps.ddp():
		extra = append(extra, Term{Name: "DDP gradient buckets", Bytes: bucketBytes, Included: true, Where: WhereCountedElsewhere,
			Note: fmt.Sprintf("%d flat buckets (first 1 MiB, then %.0f MiB caps, in gradient-ready order; one bucket of everything before the first backward), allocated when DDP is built and kept; all-reduce in place", len(ps.bucketBytes), float64(p.BucketCapBytes())/(1<<20))})
	case ps.units != nil:
		var maxAG int64
		for _, u := range ps.units {
			maxAG = max(maxAG, u.agBytes)
		}
		extra = append(extra, Term{Name: "FSDP all-gather buffers", Bytes: maxAG, Included: true, Where: WhereCountedElsewhere,
			Note: fmt.Sprintf("largest unit's flat all-gather buffer (%d units: one per block and the root); with the unit in flight, its all-gathered parameters and the prefetched next unit, up to three units' full size are live", len(ps.units))},
			Term{Name: "FSDP reduce-scatter input", Bytes: maxAG, Included: true, Where: WhereCountedElsewhere, Note: "one unit's full-size gradients, flat, held until the next unit's reduce-scatter"})
	}
	for i := range extra {
		// sizes, not additions: what of them is live at the peak is below
		extra[i].Note += "; a size: what of it is live at the peak is in collective buffers (at the peak)"
	}
	extra = append(extra, Term{Name: "collective buffers (at the peak)", Bytes: coll, Included: true, Note: "all-gather / reduce-scatter / bucket buffers live at the overall peak"})
	r.Terms = append(r.Terms, extra...)
	r.Inputs.Training = append(r.Inputs.Training, KeyValue{"parallel", p.Layout()}, KeyValue{"global batch", fmt.Sprint(r.Parallel.GlobalBatch)})
}

// ncclWarning says that a per-rank estimate's nvidia-smi figure leaves out
// NCCL's own memory, when the profile does not know it; else it is empty.
func (s *sim) ncclWarning() string {
	if s.par == nil || s.p.NCCLBytes != 0 {
		return ""
	}
	return fmt.Sprintf("per-rank estimate (%s): NCCL's own memory is not in the nvidia-smi figure (unknown for GPU profile %q)", s.t.Parallel.Layout(), s.p.Name)
}

// ncclBytes is NCCL's own memory in the nvidia-smi figure of a per-rank
// estimate (0 for one GPU, or when the profile does not know it).
func (s *sim) ncclBytes() int64 {
	if s.par == nil {
		return 0
	}
	return s.p.NCCLBytes
}
