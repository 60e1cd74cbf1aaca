// Package estimate turns a spec.Graph, the training options and a GPU
// profile into the event timeline of a training (or inference) step — the
// first iteration and the steady state, phase by phase — and replays it
// through the caching-allocator model of estimate/allocator to read
// allocated, reserved and their peaks the way PyTorch reports them.
package estimate

import (
	"errors"
	"fmt"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/estimate/allocator"
	"github.com/memplan/memplan/spec"
)

// Options tune an estimate.
type Options struct {
	// Version is written into the result.
	Version string
	// Timeline keeps every event in Result.Timeline (reports need it; sweeps do not).
	Timeline bool
	// Capacity, when > 0, makes the allocator fail like cudaMalloc past it.
	Capacity int64
	// Device, when > 0, is the memory the process may use as nvidia-smi
	// counts it: the allocator's capacity is Device less what lies outside
	// it (context, kernels, NCCL), so a step near the limit releases cached
	// blocks and retries as PyTorch's allocator does, and one that cannot
	// run in it fails with an out-of-memory error. The smaller of this and
	// Capacity holds.
	Device int64
	// OnDevice simulates the step on the profile's GPU: when an unlimited
	// run's nvidia-smi figure passes the GPU's memory, the step is run again
	// with Device set to it, where PyTorch's allocator releases its cached
	// blocks and retries. That result is returned when the step fits so;
	// when even then it runs out of memory, the unlimited one (whose figures
	// say how much the step would need) is.
	OnDevice bool
	// Limit, when > 0, stops the run with a *LimitError as soon as the
	// predicted nvidia-smi figure (reserved plus what lies outside the
	// allocator) passes it: a search that only asks "does it fit?" need
	// not finish a run that cannot.
	Limit int64
	// Concurrent replays the allocator on a second goroutine while the
	// timeline walks the graph: one estimate on two cores, the same result.
	// Sweeps, which already keep every core busy, leave it off.
	Concurrent bool
	// PeaksOnly leaves out of the result what sweeps and searches do not
	// read: the terms, the per-layer table, the gaps and the inputs.
	PeaksOnly bool
	// SkipHopeless, with OnDevice, does not run again on the GPU a step
	// whose unlimited run already shows it cannot run there: one of its
	// phases held more bytes live at once, as requested, than the
	// allocator can have on the GPU (its memory less what lies outside the
	// allocator). The run on the GPU makes the same requests, and each
	// block is at least its request, so it would run out of memory by
	// then. DeviceError is then a *NoRoomError rather than the
	// out-of-memory error that run stops with (check prints that one;
	// sweeps read neither). A graph with cuDNN convolutions always runs
	// again: at the limit cuDNN's next engine, without a workspace, changes
	// its requests (convWorkspaceFallback).
	SkipHopeless bool

	// Walks, when set, keeps the timelines of this command's runs: a run
	// whose graph has the structure of one recorded (another batch size or
	// sequence length, spec.SameStructure) replays that timeline with its
	// own sizes instead of walking its graph: the same result, without
	// the walk's share of the time (walks.go). Only with PeaksOnly.
	Walks *Walks

	// everyStep (tests) walks and replays the step that would repeat
	// the previous one from its cache rather than deriving its figures.
	everyStep bool
}

// IsOutOfMemory reports whether err is an estimate that ran out of device memory.
func IsOutOfMemory(err error) bool {
	var oom *allocator.OOMError
	return errors.As(err, &oom)
}

// simulatedIterations is how many steps are simulated: the first, then the
// steady state reported as iteration 2 — the third step, once the allocator's
// cache has settled, or the second when it left the allocator exactly as the
// first did (then every later step repeats it).
const simulatedIterations = 3

// limitedIterations bounds the steps simulated on a limited device
// (Options.Device or Capacity) once its allocator has released its cached
// blocks at the limit: its state can then change from step to step, so the
// steps go on until one leaves the allocator as the step before did; a run
// that has not settled by then is an *UnsettledError. A run that never
// reaches the limit is simulated as an unlimited one.
const limitedIterations = 10

// UnsettledError is a run on a limited device whose allocator state still
// changed from step to step after limitedIterations steps: it releases its
// cached blocks every step, and a later step may run out of memory.
type UnsettledError struct{ Steps int }

// Error says how many steps were simulated.
func (e *UnsettledError) Error() string {
	return fmt.Sprintf("at the device's limit the allocator's state still changed after %d simulated steps (it releases its cached blocks every step): a later step may run out of memory", e.Steps)
}

// NoRoomError says that a step cannot run on the GPU, known without
// running it there (Options.SkipHopeless): one of its phases holds more
// bytes live at once, as requested, than the allocator can have.
type NoRoomError struct {
	LiveBytes int64 // the most bytes live at once, as requested
	Capacity  int64 // what the allocator can have on the GPU
}

// Error says how much is live at once and how much room there is.
func (e *NoRoomError) Error() string {
	return fmt.Sprintf("out of memory: the step holds %d bytes live at once (as requested, before rounding), more than the %d bytes the allocator can have on the GPU", e.LiveBytes, e.Capacity)
}

// MayNotFit reports whether err says the step does not fit its device: it
// ran out of memory, did not settle at the limit (*UnsettledError), or
// cannot hold what it keeps live (*NoRoomError).
func MayNotFit(err error) bool {
	var u *UnsettledError
	var n *NoRoomError
	return IsOutOfMemory(err) || errors.As(err, &u) || errors.As(err, &n)
}

// deviceCapacity is what the allocator may reserve on a device of device
// bytes of which outside lie outside it (context, kernels, NCCL), with
// capacity (when > 0) bounding it further.
func deviceCapacity(device, capacity, outside int64) int64 {
	c := max(device-outside, 1) // a device the context fills holds nothing
	if capacity > 0 {
		c = min(c, capacity)
	}
	return c
}

// Run estimates one model description.
func Run(m *spec.Model, g *spec.Graph, p *calibrate.Profile, opt Options) (*Result, error) {
	r, err := runOnce(m, g, p, opt)
	if err != nil || !opt.OnDevice || opt.Device > 0 || p.TotalBytes <= 0 || r.Peak.DeviceUsedBytes <= p.TotalBytes {
		return r, err
	}
	if c := deviceCapacity(p.TotalBytes, opt.Capacity, r.bound.outside); opt.SkipHopeless && len(g.Convs) == 0 && r.bound.requestedPeak > c {
		r.DeviceError = &NoRoomError{LiveBytes: r.bound.requestedPeak, Capacity: c}
		return r, nil
	}
	at := opt
	at.Device = p.TotalBytes
	rd, derr := runOnce(m, g, p, at)
	if MayNotFit(derr) {
		// Out of memory even so: the unlimited figures stand, and say how
		// much the step would need.
		r.DeviceError = derr
		if !opt.PeaksOnly { // searches and sweeps report points, not why each one fails
			r.Warnings = append(r.Warnings, fmt.Sprintf("simulated at the GPU's %.2f GiB the step does not fit even releasing its cached blocks: %v", float64(p.TotalBytes)/(1<<30), derr))
		}
		return r, nil
	}
	if derr != nil {
		return nil, derr
	}
	rd.UnlimitedPeak = &r.Peak
	return rd, nil
}

// runOnce is one simulated run: with opt.Walks, the replay of the walk
// recorded for a run of g's kind when it has one; otherwise a walk of g,
// recorded when a run of its kind has been seen before.
func runOnce(m *spec.Model, g *spec.Graph, p *calibrate.Profile, opt Options) (*Result, error) {
	// Only the peaks are read from a replayed walk: the terms and the
	// per-layer table read the timeline's own state.
	walks := opt.Walks != nil && opt.PeaksOnly
	var key string
	var kind *walkKind
	expected := 0 // requests of the run to record; 0: do not record
	if walks {
		key = walkKey(m)
		kind = opt.Walks.find(key, g, p)
		switch {
		case kind == nil || kind.refused:
		case kind.w != nil:
			s := newSim(m, g, p, opt)
			err := s.replayWalk(kind.w)
			if err != errWalkShort {
				opt.Walks.replayed.Add(1)
				if err != nil {
					return nil, err
				}
				return s.result(), nil
			}
			// The run goes on past the steps recorded: it is walked, and
			// recorded to replace the shorter walk.
			expected = len(kind.w.reqs)
		default:
			expected = kind.sent // the kind's second run
		}
	}
	s := newSim(m, g, p, opt)
	if expected > 0 {
		s.recorder = newRecorder(g, expected)
	}
	if err := s.run(); err != nil {
		return nil, err
	}
	switch rc := s.recorder; {
	case !walks:
	case kind == nil:
		opt.Walks.put(nil, &walkKind{key: key, p: p, g: g, sent: s.sent})
	case rc != nil:
		opt.Walks.recorded.Add(1)
		next := &walkKind{key: key, p: p, g: g, sent: kind.sent, refused: rc.bad}
		if !rc.bad {
			next.w = rc.walk(s.iteration)
		}
		opt.Walks.put(kind, next)
	}
	return s.result(), nil
}

// sim is the state of one simulated run.
type sim struct {
	m   *spec.Model
	g   *spec.Graph
	t   spec.Training
	p   *calibrate.Profile
	opt Options
	a   *allocator.Allocator

	train bool
	// fused: the step loads the kernel module of cuDNN convolutions and
	// 16-bit fused attention (loadsFusedModule).
	fused bool
	// Per storage tensor: its block, remaining forward reads, and holds (saves, loss, cache).
	block    []allocator.BlockID
	isLive   []bool
	uses     []int32
	holds    []int32
	savedCnt []int32 // how many ops save the storage (training)
	role     []spec.Role

	// grads maps an activation tensor to its gradient buffer (index into bufs).
	grads []int32
	bufs  []gradBuf
	// paramGrads is the .grad block of each parameter that has one, in the
	// order they were made.
	paramGrads     []allocator.BlockID // by tensor id; noBlock when none
	paramGradOrder []spec.TensorID
	// pending holds, per shared parameter, the gradient summed so far in
	// backward; pendingLeft the edges still to deliver.
	pending []allocator.BlockID
	// pendingView marks a pending gradient that is a view (it came through
	// F.linear's transpose): the next one is summed out of place.
	pendingView []bool
	// bwd is backwardOp's scratch.
	bwd         backwardScratch
	pendingLeft []int32

	// lv is the step's liveness, worked out by walk once the model is loaded.
	lv *liveness
	// stor maps every tensor to the tensor owning its memory (aliases resolved once).
	stor       []spec.TensorID
	released   []bool
	recomputed []bool
	// recomputeCasts are the autocast casts the running recompute has made:
	// its autocast region caches them until the recompute ends.
	recomputeCasts []spec.TensorID
	lossSeed       spec.TensorID
	// par is the process-group side of a per-rank estimate (parallel.go);
	// nil for one rank.
	par *parallelSim

	optState []allocator.BlockID
	wsLive   [numWorkspaces]bool
	wsBlock  [numWorkspaces]allocator.BlockID

	iteration int
	// nextBlock is the id the allocator hands out at the next Malloc.
	nextBlock allocator.BlockID
	// rp replays the requests through the allocator; batch holds those
	// not yet sent to a concurrent replay (replay.go).
	rp    replay
	batch []request
	// wsAfter is a backward GEMM whose workspaces follow its first allocation.
	wsAfter *spec.Op
	// curOp (+ curSuffix, joined only when an event is kept) names the op running.
	curOp, curSuffix string
	// kernelsStarted: the run's first kernel has been signalled to the replay.
	kernelsStarted bool
	// gemmStarted: the run's first GEMM has mapped its library in the window.
	gemmStarted bool
	// recorder, when set, keeps every request sent (Options.Walks); sent
	// counts them.
	recorder *recorder
	sent     int
	// castMapped, powMapped: the run's first cast and first pow have run
	// (their kernels' modules are mapped once per process).
	castMapped, powMapped bool
}

// noBlock marks a parameter without .grad, and an empty gradient buffer
// (which holds no memory).
const noBlock allocator.BlockID = -1

type gradBuf struct {
	block  allocator.BlockID
	refs   int32
	bytes  int64
	tensor spec.TensorID
	// view: the engine holds the gradient as a view of its block (its base
	// shares the storage), so it cannot be accumulated into in place.
	view bool
}

func newSim(m *spec.Model, g *spec.Graph, p *calibrate.Profile, opt Options) *sim {
	cfg := allocator.Config{
		ExpandableSegments:     m.Training.Allocator.ExpandableSegments,
		MaxSplitSize:           m.Training.Allocator.MaxSplitSizeMB << 20,
		RoundupPower2Divisions: m.Training.Allocator.RoundupPower2Divisions,
		Capacity:               opt.Capacity,

		RoundupPower2DivisionsBySize: m.Training.Allocator.RoundupPower2DivisionsBySize,
	}
	s := &sim{m: m, g: g, t: m.Training, p: p, opt: opt, a: allocator.New(cfg), nextBlock: 1,
		train: m.Training.Mode == spec.ModeTrain,
	}
	s.lossSeed = g.LossGrad
	s.par = newParallelSim(s)
	s.fused = loadsFusedModule(g)
	s.rp = replay{a: s.a, g: g, timeline: opt.Timeline, limit: opt.Limit, outside: p.OutsideAllocator(s.train, s.fused) + s.ncclBytes()}
	if !opt.everyStep {
		s.rp.watchUntil = s.lastStep()
	}
	if opt.Device > 0 {
		s.a.SetCapacity(deviceCapacity(opt.Device, opt.Capacity, s.rp.outside))
	}
	return s
}

// storage follows aliases to the tensor that owns the memory.
func (s *sim) storage(id spec.TensorID) spec.TensorID { return s.stor[id] }

// alloc allocates a tensor's storage and records the event.
func (s *sim) alloc(id spec.TensorID, role spec.Role) error {
	t := &s.g.Tensors[id]
	blk, err := s.request(request{kind: reqAlloc, tensor: id, name: t.Name, bytes: t.Bytes, role: role})
	if err != nil {
		return err
	}
	s.block[id] = blk
	s.isLive[id] = true
	s.role[id] = role
	return nil
}

// free releases a tensor's storage.
func (s *sim) free(id spec.TensorID) {
	if !s.isLive[id] {
		return
	}
	s.request(request{kind: reqFree, block: s.block[id], tensor: id, name: s.g.Tensors[id].Name, role: s.role[id]})
	s.isLive[id] = false
}

// allocRaw allocates bytes that belong to no graph tensor (workspaces,
// optimizer state); the event is named base+suffix (joined only when kept).
func (s *sim) allocRaw(base, suffix string, bytes int64, role spec.Role) (allocator.BlockID, error) {
	return s.allocOn(base, suffix, bytes, role, 0)
}

// allocOn is allocRaw on a stream.
func (s *sim) allocOn(base, suffix string, bytes int64, role spec.Role, stream allocator.Stream) (allocator.BlockID, error) {
	return s.request(request{kind: reqAlloc, tensor: spec.NoTensor, name: base, suffix: suffix, bytes: bytes, role: role, stream: stream})
}

// allocSizedAs allocates the bytes of graph tensor id for what is not that
// tensor itself (its gradient), the event named after it plus suffix.
func (s *sim) allocSizedAs(id spec.TensorID, suffix string, role spec.Role) (allocator.BlockID, error) {
	t := &s.g.Tensors[id]
	return s.request(request{kind: reqAlloc, tensor: spec.NoTensor, sizedBy: id + 1, name: t.Name, suffix: suffix, bytes: t.Bytes, role: role})
}

func (s *sim) freeRaw(base, suffix string, blk allocator.BlockID, role spec.Role) {
	s.request(request{kind: reqFree, block: blk, tensor: spec.NoTensor, name: base, suffix: suffix, role: role})
}

// roleMap turns a live-bytes-by-role snapshot into the map reports read.
func roleMap(live [16]int64) map[string]int64 {
	m := map[string]int64{}
	for r, b := range live {
		if b != 0 {
			m[spec.Role(r).String()] = b
		}
	}
	return m
}

func (s *sim) run() error {
	s.startReplay()
	err := s.walk()
	if rerr := s.finishReplay(); rerr != nil {
		return rerr
	}
	return err
}

// loadState makes the timeline's state of every tensor that loading the
// model reads (a replayed walk needs none).
func (s *sim) loadState() {
	n := len(s.g.Tensors)
	s.block, s.isLive, s.role = make([]allocator.BlockID, n), make([]bool, n), make([]spec.Role, n)
}

// stepState makes the rest of it, once the model is loaded: most runs of
// fit's searches stop while it loads.
func (s *sim) stepState() {
	n := len(s.g.Tensors)
	s.uses, s.holds, s.savedCnt, s.grads = make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
	s.paramGrads, s.pending, s.pendingView, s.pendingLeft = make([]allocator.BlockID, n), make([]allocator.BlockID, n), make([]bool, n), make([]int32, n)
	for i := range s.grads {
		s.grads[i] = -1
		s.paramGrads[i] = noBlock
		s.pending[i] = noBlock
	}
	s.stor = make([]spec.TensorID, n)
	for i := range s.stor {
		s.stor[i] = s.g.Storage(spec.TensorID(i))
	}
}

// walk is the timeline: every step of the run, as requests to the replay.
func (s *sim) walk() error {
	s.loadState()
	if s.par != nil {
		s.par.layout()
	}
	// Before the step: the model moves to the GPU (and is wrapped for its
	// process group), then the batch.
	if err := s.allocResident(); err != nil {
		return err
	}
	// The liveness of the step's tensors is worked out only now: a run
	// that stops at its limit while the model loads (fit's searches stop
	// most of theirs there) never needs it, and a concurrent replay is
	// meanwhile taking the model's blocks.
	s.stepState()
	s.lv = s.prepare()
	for it := 1; it <= s.lastStep(); it++ {
		s.iteration = it
		s.request(request{kind: reqBeginIteration, bytes: int64(it)})
		// Micro-batches repeat forward and backward; their runs fold into one per phase.
		for _, ph := range s.stepPhases() {
			s.curOp, s.curSuffix = "", ""
			s.request(request{kind: reqBeginPhase, phase: ph})
			var err error
			switch ph {
			case PhaseForward:
				err = s.forward()
			case PhaseBackward:
				err = s.backward()
			case PhaseOptimizer:
				err = s.optimizerStep()
			case PhaseZeroGrad:
				s.zeroGrad()
			}
			if err != nil {
				return err
			}
			if _, err := s.request(request{kind: reqEndPhase}); err != nil {
				return err
			}
			if ph == PhaseForward && !s.train {
				s.dropOutputs()
			}
		}
		if _, err := s.request(request{kind: reqEndIteration, bytes: int64(it)}); err != nil {
			return err
		}
		if stop, err := s.stepEnds(it); stop || err != nil {
			return err
		}
	}
	return nil
}

// lastStep is the most steps a run walks: simulatedIterations, or on a
// limited device limitedIterations.
func (s *sim) lastStep() int {
	if s.opt.limited() {
		return limitedIterations
	}
	return simulatedIterations
}

// limited reports whether the run's device is limited (Device or
// Capacity), where its allocator may release its cache and not settle.
func (o Options) limited() bool { return o.Device > 0 || o.Capacity > 0 }

// stepEnds says, once step it has been requested, whether the run stops
// there: at its steady state, or with an *UnsettledError after the last
// step a limited device allows.
func (s *sim) stepEnds(it int) (stop bool, err error) {
	if it < 2 || it > 2 && !s.opt.limited() {
		return it >= s.lastStep(), nil // the unlimited run's three steps
	}
	v := s.stepVerdict(it)
	switch {
	case v.repeated || v.fromCache:
		// The step left the allocator exactly as the one before did, or
		// the next would repeat it from the cache this one warmed: every
		// later step repeats it, the steady state.
		return true, nil
	case it >= simulatedIterations && !v.released:
		// Never at its limit: the unlimited run's three steps.
		return true, nil
	case it == s.lastStep():
		return true, &UnsettledError{Steps: it}
	}
	return false, nil
}

// Library workspaces, allocated once each.
const (
	wsCublasMain = iota
	wsCublasAutograd
	wsCublasLtMain
	wsCublasLtAutograd
	numWorkspaces
)

var workspaceNames = [numWorkspaces]string{"cublas workspace (main thread)", "cublas workspace (autograd thread)",
	"cublasLt workspace (main thread)", "cublasLt workspace (autograd thread)"}

// workspace allocates a library workspace the first time it is needed.
func (s *sim) workspace(k int, bytes int64) error {
	if s.wsLive[k] || bytes <= 0 {
		return nil
	}
	blk, err := s.allocRaw(workspaceNames[k], "", bytes, spec.RoleWorkspace)
	if err != nil {
		return err
	}
	s.wsLive[k], s.wsBlock[k] = true, blk
	return nil
}

// gemmCall says where an op's GEMM runs, which decides its workspaces.
type gemmCall int

const (
	// gemmForward: the forward, on the main thread.
	gemmForward gemmCall = iota
	// gemmBackward: a backward GEMM, on the autograd engine's thread
	// (plain GEMMs and a sum, never the fused-bias addmm).
	gemmBackward
	// gemmRecompute: a checkpointed forward op re-run inside backward, on
	// the autograd engine's thread, fused-bias addmm included.
	gemmRecompute
)

// libraryMapped tells the replay that the driver mapped bytes of library
// kernels in its window (none: nothing to say).
func (s *sim) libraryMapped(bytes int64) error {
	if bytes <= 0 {
		return nil
	}
	_, err := s.request(request{kind: reqLibrary, bytes: bytes})
	return err
}

// matmulWorkspaces allocates the BLAS workspaces an op's GEMM needs.
// PyTorch keeps one cuBLAS and one cuBLASLt workspace per (handle, stream)
// (CublasHandlePool.cpp), and each thread has its own handle: the main
// thread's in the forward, the autograd engine's in the backward and in a
// checkpoint's recompute — so a checkpointed addmm with a bias gives the
// autograd thread its own cuBLASLt workspace (measured: 1 MiB more in
// every checkpointed GPT-2 and ViT run from the first recompute on).
func (s *sim) matmulWorkspaces(op *spec.Op, call gemmCall) (err error) {
	if op.Matmul == spec.MatmulNone {
		return nil
	}
	if !s.gemmStarted {
		// The run's first GEMM: the driver maps cuBLAS's handle before its
		// workspace and the kernel's module after it, in its window
		// (calibrate.WindowBytes). When this op is also the run's first
		// kernel (an MLP's first layer) the window is not open yet and the
		// address model drops both (not measured).
		s.gemmStarted = true
		if err := s.libraryMapped(s.p.WindowBytes.GemmHandle); err != nil {
			return err
		}
		defer func() {
			if err == nil {
				err = s.libraryMapped(s.p.WindowBytes.GemmKernel)
			}
		}()
	}
	blas, lt := wsCublasMain, wsCublasLtMain
	if call != gemmForward {
		blas, lt = wsCublasAutograd, wsCublasLtAutograd
	}
	if err := s.workspace(blas, s.p.CublasWorkspaceBytes); err != nil {
		return err
	}
	if op.Matmul == spec.MatmulCublasLt && call != gemmBackward {
		return s.workspace(lt, s.p.CublasLtWorkspaceBytes)
	}
	return nil
}
