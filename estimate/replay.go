package estimate

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/memplan/memplan/estimate/allocator"
	"github.com/memplan/memplan/spec"
)

// A simulation has two halves that meet in a queue of requests. The
// timeline (timeline.go, parallel.go) walks the graph and decides what is
// allocated and freed, and when; the replay below hands each request to the
// allocator model and keeps what a result reports: phase peaks, the bytes
// live by role at each peak, the events of the timeline. Nothing the
// timeline decides depends on the allocator's answers — the allocator hands
// out block ids in order, so the timeline knows each id before the replay
// makes the block — which lets the two halves run on two cores
// (Options.Concurrent), the replay a few batches behind, with the same
// result as one after the other.

// requestKind is what a request asks of the replay.
type requestKind uint8

const (
	reqAlloc          requestKind = iota // Malloc bytes on stream; the block gets id block
	reqFree                              // Free block
	reqBeginIteration                    // iteration starts (in bytes)
	reqBeginPhase                        // phase starts
	reqEndPhase                          // phase ends: its PhaseRun is merged into the iteration's
	reqEndIteration                      // iteration (in bytes) ends: the allocator's fingerprint is taken
	reqKernels                           // the run's first kernel launches (the driver's window opens)
	reqLibrary                           // the driver maps bytes of library kernels in its window
)

// request is one step of the timeline, queued for the replay.
type request struct {
	kind   requestKind
	role   spec.Role
	phase  Phase
	tensor spec.TensorID // the graph tensor allocated, or spec.NoTensor
	// sizedBy is 1 + the graph tensor whose bytes an alloc that is not
	// that tensor asks for (its gradient), 0 for none: a recorded timeline
	// replayed on a graph of other sizes reads them there (walks.go).
	sizedBy spec.TensorID
	stream  allocator.Stream
	block   allocator.BlockID
	bytes   int64 // bytes requested; the iteration of reqBeginIteration and reqEndIteration
	// name+suffix is the event's tensor; op+opSuffix the op running. They
	// are joined only when an event is kept.
	name, suffix, op, opSuffix string
}

// LimitError stops a run whose nvidia-smi figure passed Options.Limit.
type LimitError struct {
	// DeviceUsedBytes is the figure when the run stopped: at least that
	// much would be used, and the finished run would report as much or more.
	DeviceUsedBytes int64
	Limit           int64
	Iteration       int
	Phase           Phase
}

// Error says what limit was passed, by how much, and where.
func (e *LimitError) Error() string {
	return fmt.Sprintf("the predicted nvidia-smi figure passed %d bytes (%d in %s of iteration %d)", e.Limit, e.DeviceUsedBytes, e.Phase, e.Iteration)
}

// IsOverLimit reports whether err is a run stopped by Options.Limit.
func IsOverLimit(err error) bool {
	var le *LimitError
	return errors.As(err, &le)
}

// errReplayStopped tells the timeline that the replay has failed; the
// replay's error is the run's.
var errReplayStopped = errors.New("estimate: the allocator replay stopped")

// replay is the allocator side of a simulation.
type replay struct {
	a        *allocator.Allocator
	g        *spec.Graph
	timeline bool
	// limit stops the run once reserved + outside passes it (0: no limit).
	limit, outside int64

	iteration int
	phase     Phase
	phaseRun  *PhaseRun
	cur       IterationRun
	iters     []IterationRun
	events    []Event
	// startSegments is the memory map before the first step (with the
	// timeline only).
	startSegments []allocator.Segment
	// convFallback holds the cuDNN engine keys whose first engine's
	// workspace could not be allocated (convWorkspaceFallback); notes says
	// when, for the result's warnings.
	convFallback map[int32]bool
	notes        []string
	liveRole     [16]int64
	peakRoles    [16]int64
	// peakOp and peakSuffix name the op at the phase's peak so far.
	peakOp, peakSuffix string
	steadyStart        int
	fingerprint        [limitedIterations + 1]uint64
	// watchUntil: the allocator checks each step from the second up to
	// (not including) this one, the last the timeline may walk, for a
	// repeat from its cache (Allocator.RepeatsFromCache); 0 for none.
	// fromCacheAt is the step whose repeat it showed, 0 for none.
	watchUntil  int
	fromCacheAt int
	// replacedReserved is the highest reserve of the steps a later one
	// replaced as the steady state.
	replacedReserved int64
	// requestedPeak is the most bytes live at once as requested (before
	// rounding) that a phase saw: a lower bound on what any allocator holds
	// for the same requests (Options.SkipHopeless).
	requestedPeak int64
	err           error

	// With Options.Concurrent: batches of requests come on queue and go
	// back on spare; verdict answers stepRepeats; failed is set with err.
	queue, spare chan []request
	verdict      chan stepVerdict
	done         chan struct{}
	failed       atomic.Bool
}

// replayBatch is how many requests travel together between the halves.
// Each hand-over can wake the other goroutine (a futex call, costly on a
// virtual machine): batches of 1,024 instead of 256 made the 405B
// estimate 18–20% faster (benchstat, n = 8, interleaved, p ≤ 0.01;
// notes/speed.md, session 17); 4,096 gave nothing more.
const replayBatch = 1024

// request queues q for the replay — or, without Options.Concurrent, replays
// it at once — and returns the id an alloc's block gets. The error is the
// replay's, or errReplayStopped when the concurrent replay has failed.
func (s *sim) request(q request) (allocator.BlockID, error) {
	q.op, q.opSuffix = s.curOp, s.curSuffix
	if q.kind == reqAlloc {
		q.block = s.nextBlock
		s.nextBlock++
	}
	if err := s.send(q); err != nil {
		return q.block, err
	}
	if op := s.wsAfter; op != nil && q.kind == reqAlloc {
		// A backward GEMM's first output is made: now its workspace.
		s.wsAfter = nil
		if err := s.matmulWorkspaces(op, gemmBackward); err != nil {
			return q.block, err
		}
	}
	return q.block, nil
}

// send replays q at once, or queues it for the concurrent replay.
func (s *sim) send(q request) error {
	r := &s.rp
	s.sent++
	if s.recorder != nil {
		s.recorder.add(&q)
	}
	if r.queue == nil {
		r.apply(&q)
		return r.err
	}
	s.batch = append(s.batch, q)
	if len(s.batch) == cap(s.batch) {
		s.flush()
	}
	if r.failed.Load() {
		return errReplayStopped
	}
	return nil
}

// flush sends the queued requests to the concurrent replay.
func (s *sim) flush() {
	if len(s.batch) == 0 {
		return
	}
	s.rp.queue <- s.batch
	s.batch = (<-s.rp.spare)[:0]
}

// startReplay starts the replay's goroutine when the options ask for it.
func (s *sim) startReplay() {
	r := &s.rp
	if !s.opt.Concurrent {
		return
	}
	r.queue, r.spare = make(chan []request, 4), make(chan []request, 6)
	// The verdict is buffered: a timeline stopped by the replay's error
	// does not wait for it.
	r.verdict, r.done = make(chan stepVerdict, 1), make(chan struct{})
	for range 5 {
		r.spare <- make([]request, 0, replayBatch)
	}
	s.batch = make([]request, 0, replayBatch)
	go func() {
		defer close(r.done)
		for batch := range r.queue {
			for i := 0; i < len(batch); {
				i = r.applyFrom(batch, i)
			}
			r.spare <- batch
		}
	}()
}

// applyFrom replays batch from i on and returns where it stopped: the end,
// or past a request whose replay panicked (a bug), which then fails the
// replay with the panic as an internal error — the timeline on the other
// goroutine still gets every step's verdict and stops on the error.
func (r *replay) applyFrom(batch []request, i int) (next int) {
	defer func() {
		if p := recover(); p != nil {
			r.fail(fmt.Errorf("internal error replaying %s%s: %v (a bug in memplan)", r.nameOf(&batch[i]), batch[i].suffix, p))
			if it := int(batch[i].bytes); batch[i].kind == reqEndIteration && it >= 2 {
				r.verdict <- stepVerdict{}
			}
			next = i + 1
		}
	}()
	for ; i < len(batch); i++ {
		r.apply(&batch[i])
		if it := int(batch[i].bytes); batch[i].kind == reqEndIteration && it >= 2 {
			// Read by stepVerdict; the buffer holds the one of a last
			// step nobody asks about.
			r.verdict <- r.verdictOf(it)
		}
	}
	return i
}

// finishReplay waits for the concurrent replay to take every request and
// returns its error.
func (s *sim) finishReplay() error {
	r := &s.rp
	if r.queue != nil {
		s.flush()
		close(r.queue)
		<-r.done
	}
	return r.err
}

// stepVerdict is what the timeline learns of the allocator after a step.
type stepVerdict struct {
	// repeated: the step left the allocator exactly as the step before
	// did (every later step then repeats it).
	repeated bool
	// fromCache: the next step would repeat this one, taking from the
	// cache the segments this one created (replay.repeatFromCache has made
	// this step's figures that step's); every later step repeats it.
	fromCache bool
	// released: the allocator has released its cached blocks to retry an
	// allocation at its capacity, so its state can go on changing.
	released bool
}

// stepVerdict returns the verdict on step it (2 or later).
func (s *sim) stepVerdict(it int) stepVerdict {
	r := &s.rp
	if r.queue == nil {
		return r.verdictOf(it)
	}
	s.flush()
	return <-r.verdict
}

func (r *replay) verdictOf(it int) stepVerdict {
	return stepVerdict{
		repeated:  r.err == nil && r.fingerprint[it] == r.fingerprint[it-1],
		fromCache: r.err == nil && r.fromCacheAt == it,
		released:  r.a.Stats().NumAllocRetries > 0,
	}
}

// nameOf is q's name: a request of a graph tensor, or sized by one, is
// named after it, and a replayed walk leaves that name to be read here,
// from the graph, when it is needed.
func (r *replay) nameOf(q *request) string {
	if t := q.sizeTensor(); q.name == "" && t != spec.NoTensor {
		return r.g.Tensors[t].Name
	}
	return q.name
}

// sizeTensor is the graph tensor an alloc or a free is of, or is sized by
// (request.sizedBy): an alloc asks for its bytes, and both are named after
// it. It is spec.NoTensor for any other request.
func (q *request) sizeTensor() spec.TensorID {
	switch {
	case q.kind != reqAlloc && q.kind != reqFree:
		return spec.NoTensor
	case q.tensor != spec.NoTensor:
		return q.tensor
	case q.sizedBy > 0:
		return q.sizedBy - 1
	}
	return spec.NoTensor
}

// apply replays one request; after an error it does nothing.
func (r *replay) apply(q *request) {
	if r.err != nil {
		return
	}
	switch q.kind {
	case reqAlloc:
		bytes := q.bytes
		if r.convFallback != nil && r.convFallback[r.convPlan(q)] {
			bytes = 0 // the engine that replaced it needs no workspace
		}
		blk, err := r.a.Malloc(bytes, q.stream)
		if err != nil && IsOutOfMemory(err) {
			if plan := r.convPlan(q); plan > 0 {
				blk, err = r.convWorkspaceFallback(q, plan)
				bytes = 0
			}
		}
		if err != nil {
			r.fail(r.allocError(q, err))
			return
		}
		if blk != q.block {
			panic(fmt.Sprintf("estimate: the allocator handed out block %d where the timeline expected %d", blk, q.block))
		}
		r.record(ActionAlloc, q, r.a.BlockSize(blk), bytes)
		if r.limit > 0 && r.a.Reserved()+r.outside > r.limit {
			r.fail(&LimitError{DeviceUsedBytes: r.a.Reserved() + r.outside, Limit: r.limit, Iteration: r.iteration, Phase: r.phase})
		}
	case reqFree:
		size, requested := r.a.BlockSize(q.block), int64(0)
		if r.timeline {
			requested = r.a.Requested(q.block)
		}
		if err := r.a.Free(q.block); err != nil {
			panic(fmt.Sprintf("estimate: freeing %s%s: %v", r.nameOf(q), q.suffix, err))
		}
		r.record(ActionFree, q, size, requested)
	case reqBeginIteration:
		r.iteration = int(q.bytes)
		if r.iteration == 1 && r.timeline {
			r.startSegments = r.a.Segments()
		}
		switch {
		case r.iteration == 2:
			r.steadyStart = len(r.events)
		case r.iteration > 2:
			// A later step replaces the second as the steady state; what
			// the replaced step reserved at its highest still counts for
			// the run's peak (an allocator that released its cache can
			// reserve less in later steps).
			for _, ph := range r.iters[1].Phases {
				r.replacedReserved = max(r.replacedReserved, ph.PeakReservedBytes)
			}
			r.events = r.events[:r.steadyStart]
			r.iters = r.iters[:1]
		}
		r.cur = IterationRun{Iteration: r.reportedIteration()}
		if r.iteration >= 2 && r.iteration < r.watchUntil {
			r.a.WatchStep()
		}
	case reqKernels:
		r.a.KernelsStarted()
	case reqLibrary:
		r.a.LibraryMapped(q.bytes)
	case reqBeginPhase:
		r.beginPhase(q.phase)
	case reqEndPhase:
		r.cur.Phases = mergePhaseRun(r.cur.Phases, r.endPhase())
	case reqEndIteration:
		r.iters = append(r.iters, r.cur)
		r.fingerprint[r.iteration] = r.a.Fingerprint()
		if it := r.iteration; it >= 2 && it < r.watchUntil && r.fingerprint[it] != r.fingerprint[it-1] {
			if _, ok := r.a.RepeatsFromCache(); ok {
				r.repeatFromCache()
				r.fromCacheAt = it
			}
		}
	}
}

// repeatFromCache turns the step just replayed into the next one, which
// the allocator has shown takes the same blocks from a cache that already
// holds the segments this one created: every allocated figure repeats, and
// the reserve is the step's final one throughout. As when a third step
// replaces the second, the replaced step's highest reserve still counts for
// the run's peak.
func (r *replay) repeatFromCache() {
	reserved := r.a.Reserved()
	steady := &r.iters[len(r.iters)-1]
	for i := range steady.Phases {
		ph := &steady.Phases[i]
		r.replacedReserved = max(r.replacedReserved, ph.PeakReservedBytes)
		ph.PeakReservedBytes, ph.EndReservedBytes = reserved, reserved
	}
	for i := r.steadyStart; i < len(r.events); i++ {
		r.events[i].Reserved = reserved
	}
}

// convPlan returns the cuDNN engine key of a convolution workspace's
// request (spec.Tensor.ConvPlan), 0 for any other request.
func (r *replay) convPlan(q *request) int32 {
	if q.tensor == spec.NoTensor {
		return 0
	}
	return r.g.Tensors[q.tensor].ConvPlan
}

// convWorkspaceFallback is cuDNN's answer to a workspace the allocator
// could not give even after releasing its cache: PyTorch catches the
// OutOfMemoryError and runs the next engine of its list (Conv_v8.cpp's
// try_plans), which then serves every convolution of the key. The engines
// after the first, and their workspaces, are cuDNN's heuristics and not in
// the tables; the next engine is taken to need no workspace. The block is
// a 0-byte one, so the ids the timeline handed out stay in step. A request
// with a plan names its tensor (convPlan).
func (r *replay) convWorkspaceFallback(q *request, plan int32) (allocator.BlockID, error) {
	if r.convFallback == nil {
		r.convFallback = map[int32]bool{}
	}
	r.convFallback[plan] = true
	r.notes = append(r.notes, fmt.Sprintf("iteration %d %s: %s (%.1f MiB) could not be allocated even after releasing the cache; PyTorch then runs cuDNN's next engine, modelled as one with no workspace, for every convolution of that shape and pass from there on",
		r.iteration, r.phase, r.g.Tensors[q.tensor].Name, float64(q.bytes)/(1<<20)))
	return r.a.Malloc(0, q.stream)
}

func (r *replay) fail(err error) {
	r.err = err
	r.failed.Store(true)
}

func (r *replay) allocError(q *request, err error) error {
	if q.tensor != spec.NoTensor {
		t := &r.g.Tensors[q.tensor]
		return fmt.Errorf("allocating %s (%s, %d bytes) in %s of iteration %d: %w", t.Name, spec.FormatShape(t.Shape), t.Bytes, r.phase, r.iteration, err)
	}
	return fmt.Errorf("allocating %s%s (%d bytes) in %s of iteration %d: %w", r.nameOf(q), q.suffix, q.bytes, r.phase, r.iteration, err)
}

// record notes an event of a block of size bytes (requested asked for) and
// tracks the phase peak.
func (r *replay) record(act Action, q *request, size, requested int64) {
	if act == ActionAlloc {
		r.liveRole[q.role] += size
	} else {
		r.liveRole[q.role] -= size
	}
	pr := r.phaseRun
	if pr == nil {
		// Between the phases of an iteration (an inference output dropped
		// once the forward's figures are read): an event of the phase that
		// ended, in the timeline only.
		if r.timeline && r.iteration > 0 {
			r.events = append(r.events, Event{Iteration: r.reportedIteration(), Phase: r.phase, Action: act, Op: q.op + q.opSuffix, Tensor: r.nameOf(q) + q.suffix, Role: q.role.String(), Bytes: size, Requested: requested, Allocated: r.a.Allocated(), Reserved: r.a.Reserved()})
		}
		return
	}
	allocated := r.a.Allocated()
	if r.timeline {
		r.events = append(r.events, Event{Iteration: r.reportedIteration(), Phase: r.phase, Action: act, Op: q.op + q.opSuffix, Tensor: r.nameOf(q) + q.suffix, Role: q.role.String(), Bytes: size, Requested: requested, Allocated: allocated, Reserved: r.a.Reserved()})
	}
	if act == ActionAlloc && allocated > pr.PeakAllocatedBytes {
		pr.PeakAllocatedBytes = allocated
		r.peakOp, r.peakSuffix = q.op, q.opSuffix
		pr.PeakEvent = len(r.events) - 1
		r.peakRoles = r.liveRole
	}
}

// reportedIteration maps the simulated iteration to the one reported (1 or 2).
func (r *replay) reportedIteration() int {
	if r.iteration == 1 {
		return 1
	}
	return 2
}

func (r *replay) beginPhase(ph Phase) {
	r.phase = ph
	r.a.ResetPeakStats()
	st := r.a.Stats()
	r.phaseRun = &PhaseRun{Phase: ph, PeakAllocatedBytes: st.Allocated, PeakReservedBytes: st.Reserved, PeakEvent: len(r.events) - 1}
	r.peakRoles = r.liveRole
	r.peakOp, r.peakSuffix = "", ""
}

func (r *replay) endPhase() PhaseRun {
	st := r.a.Stats()
	pr := *r.phaseRun
	pr.PeakByRole = roleMap(r.peakRoles)
	pr.PeakOp = r.peakOp + r.peakSuffix
	pr.PeakAllocatedBytes = max(pr.PeakAllocatedBytes, st.AllocatedPeak)
	pr.PeakReservedBytes = st.ReservedPeak
	pr.EndAllocatedBytes = st.Allocated
	pr.EndReservedBytes = st.Reserved
	r.requestedPeak = max(r.requestedPeak, st.RequestedPeak)
	r.phaseRun = nil
	return pr
}
