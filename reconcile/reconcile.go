// Package reconcile compares one estimate (estimate.Result) with a measured
// run of the same model (the JSON probe/memplan_probe.py writes) and explains
// each difference from the data: which figures differ per iteration and
// phase, which part of a reserved-memory miss the allocator's segments and
// rounding make, which peaks belong to an earlier state, and how much memory
// sits outside the allocator.
//
// Compare builds a typed Report; WriteText and WriteHTML render it. The
// estimate's iteration 1 (the first step) is compared with the measured
// iteration 0, and its iteration 2 (every later step) with the last measured
// iteration.
package reconcile

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/memplan/memplan/estimate"
)

// Figure names one compared quantity.
type Figure int

// The compared figures of a phase, and the process's nvidia-smi memory.
const (
	PeakAllocated Figure = iota
	PeakReserved
	EndAllocated
	DeviceUsed
)

var figureNames = [...]string{"peak allocated", "peak reserved", "end allocated", "nvidia-smi"}

// String names the figure.
func (f Figure) String() string {
	if f < 0 || int(f) >= len(figureNames) {
		return fmt.Sprintf("Figure(%d)", int(f))
	}
	return figureNames[f]
}

// MarshalText writes the figure by name.
func (f Figure) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// phaseFigures are the figures compared per phase, in table order.
var phaseFigures = []Figure{PeakAllocated, PeakReserved, EndAllocated}

// Unknown marks a figure one side does not give.
const Unknown = -1

// Pair is one figure, estimated and measured, in bytes (Unknown where absent).
type Pair struct {
	Estimated int64 `json:"estimated"`
	Measured  int64 `json:"measured"`
}

// Known reports whether both sides give the figure.
func (p Pair) Known() bool { return p.Estimated >= 0 && p.Measured >= 0 }

// Error is estimated minus measured (positive: the estimate is high).
func (p Pair) Error() int64 {
	if !p.Known() {
		return 0
	}
	return p.Estimated - p.Measured
}

// Percent is the error relative to the measured figure, in percent.
func (p Pair) Percent() float64 {
	if !p.Known() || p.Measured == 0 {
		return 0
	}
	return 100 * float64(p.Error()) / float64(p.Measured)
}

// Row is one phase of one iteration, estimated against measured.
type Row struct {
	// Iteration is the estimate's (1: the first step, 2: the steady state);
	// MeasuredIteration the run's, 0-based.
	Iteration         int            `json:"iteration"`
	MeasuredIteration int            `json:"measured_iteration"`
	Phase             estimate.Phase `json:"phase"`

	PeakAllocated Pair `json:"peak_allocated"`
	PeakReserved  Pair `json:"peak_reserved"`
	EndAllocated  Pair `json:"end_allocated"`
	// Start is what was allocated when the phase began (the estimate's
	// previous phase end; Unknown for its very first phase).
	Start Pair `json:"start_allocated"`
	// StartReserved is what was reserved when the phase began.
	StartReserved Pair `json:"start_reserved"`

	// What the run's allocator held at the end of the phase: free blocks
	// inside partly used segments (inactive split), segments, and segments
	// created during the phase.
	InactiveSplit int64 `json:"measured_inactive_split_bytes"`
	EndReserved   int64 `json:"measured_end_reserved_bytes"`
	Segments      int64 `json:"measured_segments"`
	SegmentsAdded int64 `json:"measured_segments_added"`
	// Rounding is the run's allocated minus requested at the phase's peak:
	// blocks rounded up to 512 B and remainders handed out with a block.
	Rounding int64 `json:"measured_rounding_bytes"`

	// Stale flags: the phase's peak is no higher than what it started with,
	// so that peak belongs to an earlier state.
	StaleAllocated          bool `json:"measured_peak_allocated_stale"`
	StaleReserved           bool `json:"measured_peak_reserved_stale"`
	EstimatedStaleAllocated bool `json:"estimated_peak_allocated_stale"`
	EstimatedStaleReserved  bool `json:"estimated_peak_reserved_stale"`
}

// Pair returns the row's figure f.
func (r *Row) Pair(f Figure) Pair {
	switch f {
	case PeakAllocated:
		return r.PeakAllocated
	case PeakReserved:
		return r.PeakReserved
	case EndAllocated:
		return r.EndAllocated
	}
	return Pair{Unknown, Unknown}
}

// Label names the row for people: "iteration 2 backward".
func (r *Row) Label() string { return fmt.Sprintf("iteration %d %s", r.Iteration, r.Phase) }

// Device compares what nvidia-smi shows for the process.
type Device struct {
	// Used: the estimate's nvidia-smi figure at its peak against the run's
	// per-process NVML memory at its end (reserved never shrinks in the loop,
	// so the end holds the peak reserve).
	Used Pair `json:"used"`
	// Reserved: the estimate's peak reserved against the run's at the end.
	Reserved Pair `json:"reserved"`
	// Outside is nvidia-smi minus reserved: memory outside the allocator.
	Outside Pair `json:"outside"`
	// Context: the profile's CUDA context against the run's process memory
	// right after CUDA initialised (minus what was reserved then).
	Context Pair `json:"context"`
	// Kernels: the profile's library kernels against the rest of the run's
	// outside memory (loaded lazily as kernels first ran).
	Kernels Pair `json:"kernels"`
	// NCCL: the profile's NCCL communicator memory in a per-rank estimate
	// (Unknown in one-GPU estimates). Runs do not measure it apart: a run
	// with a real NCCL process group counts it in its outside memory (taken
	// out of Kernels.Measured with the estimated figure), a fake one has none.
	NCCL Pair `json:"nccl"`
	// RunNCCL is true when the run had a real NCCL process group.
	RunNCCL bool `json:"run_nccl"`
	// OtherOnDevice is the device's used memory at the end not held by the
	// measured process (other processes; Unknown where NVML gave none).
	OtherOnDevice int64 `json:"other_on_device"`
}

// TermRow is one term of the estimate with its measured counterpart where
// the run records one (Unknown otherwise).
type TermRow struct {
	estimate.Term
	Measured int64 `json:"measured_bytes"`
}

// CauseKind classifies an explained gap.
type CauseKind int

// The kinds of explanation.
const (
	CauseLargestMiss CauseKind = iota
	CauseModel
	CauseSegments
	CauseStaleness
	CauseOutside
	CauseNotSteady
)

var causeNames = [...]string{"largest miss", "model", "segments and rounding", "peak staleness", "outside the allocator", "steady state"}

// String names the kind.
func (k CauseKind) String() string {
	if k < 0 || int(k) >= len(causeNames) {
		return fmt.Sprintf("CauseKind(%d)", int(k))
	}
	return causeNames[k]
}

// MarshalText writes the kind by name.
func (k CauseKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Cause is one gap with its likely cause, worded from the numbers.
type Cause struct {
	Kind CauseKind `json:"kind"`
	// Where: the row it concerns ("" for the whole run).
	Where string `json:"where"`
	// Bytes is the size of the gap explained.
	Bytes int64  `json:"bytes"`
	Text  string `json:"text"`
}

// Miss is the largest per-phase error.
type Miss struct {
	Row    int    `json:"row"` // index into Report.Rows
	Figure Figure `json:"figure"`
	Pair   Pair   `json:"pair"`
}

// Report is an estimate reconciled with a measured run.
type Report struct {
	Name         string `json:"name"`
	Version      string `json:"memplan_version"`
	Profile      string `json:"profile"`
	GPU          string `json:"gpu"`
	MeasuredCase string `json:"measured_case"`
	MeasuredGPU  string `json:"measured_gpu"`
	Torch        string `json:"torch"`
	Iterations   int    `json:"measured_iterations"`
	Parameters   Pair   `json:"parameters"`

	Rows    []Row     `json:"rows"`
	Device  Device    `json:"nvidia_smi"`
	Terms   []TermRow `json:"terms"`
	Largest *Miss     `json:"largest_miss"`
	Causes  []Cause   `json:"causes"`
	// Warnings are the estimate's, then reconcile's own.
	Warnings []string `json:"warnings"`
}

// Compare reconciles an estimate with a measured run.
func Compare(r *estimate.Result, m *Measured) *Report {
	rep := &Report{
		Name:         r.Name,
		Version:      r.Version,
		Profile:      r.GPU.Profile,
		GPU:          r.GPU.Name,
		MeasuredCase: m.Case,
		MeasuredGPU:  str(m.Versions["gpu"]),
		Torch:        str(m.Versions["torch"]),
		Iterations:   len(m.Iterations),
		Parameters:   Pair{r.Model.Parameters, m.ParamCount},
	}
	rep.Warnings = append(rep.Warnings, r.Warnings...)
	if p := rep.Parameters; p.Measured > 0 && p.Estimated != p.Measured {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("the description has %d parameters, the measured run %d: it is not the model that was measured (case %q), so the comparison says little", p.Estimated, p.Measured, m.Case))
	}
	if rep.MeasuredGPU != "" && rep.GPU != "" && !strings.EqualFold(rep.MeasuredGPU, rep.GPU) {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("the run was measured on %s, the estimate is for %s (profile %s): context, kernels and workspaces differ between GPUs", rep.MeasuredGPU, rep.GPU, rep.Profile))
	}
	rep.rows(r, m)
	rep.device(r, m)
	rep.terms(r, m)
	rep.largest()
	rep.modelCause(r, m)
	rep.segmentCauses()
	rep.stalenessCauses(m)
	rep.outsideCause(r)
	rep.steadyCause(m)
	return rep
}

func str(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// measuredIteration maps an estimate iteration to the run's.
func measuredIteration(it, n int) int {
	if it <= 1 {
		return 0
	}
	return n - 1
}

func (rep *Report) rows(r *estimate.Result, m *Measured) {
	n := len(m.Iterations)
	prevEnd, prevRes := int64(Unknown), int64(Unknown)
	for _, it := range r.Iterations {
		if it.Iteration >= 2 && n < 2 {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("the run measured %d iteration: the estimate's steady state (iteration %d) has nothing to compare with", n, it.Iteration))
			continue
		}
		mi := measuredIteration(it.Iteration, n)
		for _, ph := range it.Phases {
			start, startRes := prevEnd, prevRes
			prevEnd, prevRes = ph.EndAllocatedBytes, ph.EndReservedBytes
			mp, ok := m.Phase(mi, ph.Phase)
			if !ok {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("the run has no %s phase in iteration %d: iteration %d %s not compared", ph.Phase, mi, it.Iteration, ph.Phase))
				continue
			}
			b, a := mp.Before, mp.After
			row := Row{
				Iteration:         it.Iteration,
				MeasuredIteration: mi,
				Phase:             ph.Phase,
				PeakAllocated:     Pair{ph.PeakAllocatedBytes, a.AllocatedPeak},
				PeakReserved:      Pair{ph.PeakReservedBytes, a.ReservedPeak},
				EndAllocated:      Pair{ph.EndAllocatedBytes, a.AllocatedCurrent},
				Start:             Pair{start, b.AllocatedCurrent},
				StartReserved:     Pair{startRes, b.ReservedCurrent},
				InactiveSplit:     a.InactiveSplitCurrent,
				EndReserved:       a.ReservedCurrent,
				Segments:          a.SegmentsCurrent,
				SegmentsAdded:     a.SegmentsCurrent - b.SegmentsCurrent,
				Rounding:          a.AllocatedPeak - a.RequestedPeak,
				StaleAllocated:    a.AllocatedPeak <= b.AllocatedCurrent,
				StaleReserved:     a.ReservedPeak <= b.ReservedCurrent,
			}
			row.EstimatedStaleAllocated = start >= 0 && ph.PeakAllocatedBytes <= start
			row.EstimatedStaleReserved = startRes >= 0 && ph.PeakReservedBytes <= startRes
			rep.Rows = append(rep.Rows, row)
		}
	}
}

// termName finds an estimate term by name, case-insensitively.
func termBytes(r *estimate.Result, name string) int64 {
	for _, t := range r.Terms {
		if strings.EqualFold(t.Name, name) {
			return t.Bytes
		}
	}
	return Unknown
}

func (rep *Report) device(r *estimate.Result, m *Measured) {
	d := &rep.Device
	used := m.NVMLFinal.ProcessUsed()
	d.Used = Pair{r.Peak.DeviceUsedBytes, used}
	d.Reserved = Pair{r.Peak.ReservedBytes, m.FinalStats.ReservedCurrent}
	d.Outside = Pair{r.Peak.DeviceUsedBytes - r.Peak.ReservedBytes, Unknown}
	d.Context = Pair{termBytes(r, "CUDA context"), Unknown}
	d.Kernels = Pair{termBytes(r, "library kernels"), Unknown}
	d.NCCL = Pair{Unknown, Unknown}
	if n := termBytes(r, "NCCL buffers"); n > 0 && r.Parallel != nil {
		d.NCCL.Estimated = n
	}
	d.RunNCCL = m.Versions["backend"] == "nccl"
	ncclInRun := int64(0)
	if d.NCCL.Estimated > 0 && d.RunNCCL {
		ncclInRun = d.NCCL.Estimated
	}
	d.OtherOnDevice = Unknown
	if used >= 0 {
		d.Outside.Measured = used - m.FinalStats.ReservedCurrent
		if m.NVMLFinal.DeviceUsed > 0 {
			d.OtherOnDevice = max(0, m.NVMLFinal.DeviceUsed-used)
		}
	}
	if ctx := m.NVMLAfterContext.ProcessUsed(); ctx >= 0 {
		d.Context.Measured = ctx - m.StatsAfterContext.ReservedCurrent
		if d.Outside.Measured >= 0 {
			d.Kernels.Measured = d.Outside.Measured - d.Context.Measured - ncclInRun
		}
	}
}

func (rep *Report) terms(r *estimate.Result, m *Measured) {
	measured := map[string]int64{
		"parameters":      m.ParamBytes,
		"inputs":          m.InputBytes,
		"optimizer state": m.OptimizerStateBytes,
		"cuda context":    rep.Device.Context.Measured,
		"library kernels": rep.Device.Kernels.Measured,
	}
	if m.OptimizerStateBytes == 0 && len(m.Iterations) > 0 {
		if _, ok := m.Iterations[0].Phases["optimizer"]; !ok {
			delete(measured, "optimizer state") // no optimizer ran: nothing measured
		}
	}
	for _, t := range r.Terms {
		v, ok := measured[strings.ToLower(t.Name)]
		if !ok || v < 0 {
			v = Unknown
		}
		rep.Terms = append(rep.Terms, TermRow{Term: t, Measured: v})
	}
}

// largest finds the largest per-phase error.
func (rep *Report) largest() {
	var best *Miss
	for i := range rep.Rows {
		for _, f := range phaseFigures {
			p := rep.Rows[i].Pair(f)
			if !p.Known() {
				continue
			}
			if best == nil || abs(p.Error()) > abs(best.Pair.Error()) {
				best = &Miss{Row: i, Figure: f, Pair: p}
			}
		}
	}
	rep.Largest = best
	if best == nil {
		return
	}
	row := &rep.Rows[best.Row]
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: estimated %s, measured %s, error %s.", row.Label(), best.Figure, mib(best.Pair.Estimated), mib(best.Pair.Measured), errText(best.Pair))
	switch {
	case abs(best.Pair.Error()) < 1<<20:
		b.WriteString(" No phase figure is off by 1 MiB or more.")
	case best.Figure == PeakReserved:
		b.WriteString(" Its split into tensors and the allocator's reserve is under segments and rounding.")
	case row.Start.Known():
		carried := row.Start.Error()
		fmt.Fprintf(&b, " Of it, %s was already off when the phase began (allocated then: estimated %s, measured %s) and %s arises within the phase (the rise: estimated %s, measured %s).",
			signed(carried), mib(row.Start.Estimated), mib(row.Start.Measured), signed(best.Pair.Error()-carried),
			signed(best.Pair.Estimated-row.Start.Estimated), signed(best.Pair.Measured-row.Start.Measured))
		if best.Figure == PeakAllocated && row.StaleAllocated && row.EstimatedStaleAllocated {
			b.WriteString(" Neither side rises above its start: the miss is the earlier phase's.")
		}
	default:
		fmt.Fprintf(&b, " The run began this phase with %s allocated (model and inputs); the estimate does not report its own start of the first step.", mib(row.Start.Measured))
	}
	rep.Causes = append(rep.Causes, Cause{Kind: CauseLargestMiss, Where: row.Label(), Bytes: best.Pair.Error(), Text: b.String()})
}

func (rep *Report) modelCause(r *estimate.Result, m *Measured) {
	p := rep.Parameters
	if p.Measured <= 0 || p.Estimated == p.Measured {
		return
	}
	rep.Causes = append(rep.Causes, Cause{Kind: CauseModel, Bytes: p.Error(),
		Text: fmt.Sprintf("the estimate counts %d parameters, the run %d (%+d): the description is not the measured model, and every figure inherits that (parameter bytes: estimated %s, measured %s).",
			p.Estimated, p.Measured, p.Error(), mib(r.Model.ParameterBytes), mib(m.ParamBytes))})
}

// segmentCauses explains, per estimate iteration, the phase with the highest
// measured reserve: how much of its reserved error is the tensors and how
// much the allocator's reserve above them, and what the run's allocator held.
func (rep *Report) segmentCauses() {
	byIter := map[int]int{}
	var iters []int
	for i := range rep.Rows {
		r := &rep.Rows[i]
		j, ok := byIter[r.Iteration]
		if !ok {
			iters = append(iters, r.Iteration)
		}
		if !ok || r.PeakReserved.Measured > rep.Rows[j].PeakReserved.Measured {
			byIter[r.Iteration] = i
		}
	}
	var pick []int
	for _, it := range iters {
		j := byIter[it]
		// The phase where the reserve of this iteration was set: the first
		// one whose measured reserve rose (else the phase itself).
		for i := range rep.Rows {
			q := &rep.Rows[i]
			if q.Iteration == it && !q.StaleReserved && q.PeakReserved.Measured == rep.Rows[j].PeakReserved.Measured {
				j = i
				break
			}
		}
		pick = append(pick, j)
	}
	// The largest miss, when it is a reserved one, is split here too.
	if l := rep.Largest; l != nil && l.Figure == PeakReserved && !slices.Contains(pick, l.Row) {
		pick = append(pick, l.Row)
	}
	for _, j := range pick {
		r := &rep.Rows[j]
		what := "the iteration's highest reserve"
		if l := rep.Largest; l != nil && l.Row == j && l.Figure == PeakReserved {
			what = "the largest miss"
		}
		gapE := r.PeakReserved.Estimated - r.PeakAllocated.Estimated
		gapM := r.PeakReserved.Measured - r.PeakAllocated.Measured
		alloc := r.PeakAllocated.Error()
		gapErr := gapE - gapM
		var b strings.Builder
		fmt.Fprintf(&b, "%s, %s: peak reserved off by %s — the tensors at the allocated peak %s, the allocator's reserve above them %s (estimated %s, measured %s).",
			r.Label(), what, signed(r.PeakReserved.Error()), signed(alloc), signed(gapErr), mib(gapE), mib(gapM))
		free := r.EndReserved - r.EndAllocated.Measured
		fmt.Fprintf(&b, " In the run, rounding (allocated − requested at the peak) is %s. At the phase's end its %d segments (%+d in the phase) held %s free: %s inside partly used segments (inactive split, which empty_cache() cannot release) and %s in wholly free segments (cached for reuse; empty_cache() would return them).",
			mib(r.Rounding), r.Segments, r.SegmentsAdded, mib(free), mib(r.InactiveSplit), mib(free-r.InactiveSplit))
		switch {
		case abs(r.PeakReserved.Error()) <= max(1<<20, r.PeakReserved.Measured/1000):
			b.WriteString(" Both agree within 0.1% (or 1 MiB).")
		case abs(gapErr) > abs(alloc):
			b.WriteString(" Likely cause: the allocator model (segment sizes, splitting, which cached block is reused), not the tensors.")
		default:
			b.WriteString(" Likely cause: the tensors — reserved follows the allocated miss; fix that first.")
		}
		rep.Causes = append(rep.Causes, Cause{Kind: CauseSegments, Where: r.Label(), Bytes: gapErr, Text: b.String()})
	}
}

// stalenessCauses lists, per iteration, the phases whose measured peak is no
// higher than their start, where the reserve was last set, and where the
// estimate and the run disagree about a phase raising a new peak.
func (rep *Report) stalenessCauses(m *Measured) {
	// Where did the run's reserve last grow? Walk the measured phases in order.
	type at struct {
		iter  int
		phase estimate.Phase
	}
	grewAt := map[at]at{}
	var last at
	have := false
	for i := range m.Iterations {
		for p := estimate.PhaseForward; p <= estimate.PhaseZeroGrad; p++ {
			mp, ok := m.Phase(i, p)
			if !ok {
				continue
			}
			if mp.After.ReservedPeak > mp.Before.ReservedCurrent {
				last, have = at{i, p}, true
			}
			if have {
				grewAt[at{i, p}] = last
			}
		}
	}
	iters := map[int][]*Row{}
	var order []int
	for i := range rep.Rows {
		r := &rep.Rows[i]
		if _, ok := iters[r.Iteration]; !ok {
			order = append(order, r.Iteration)
		}
		iters[r.Iteration] = append(iters[r.Iteration], r)
	}
	for _, it := range order {
		rows := iters[it]
		var allocStale, resStale []string
		var b strings.Builder
		for _, r := range rows {
			if r.StaleAllocated {
				allocStale = append(allocStale, fmt.Sprintf("%s (%s, its start; error %s)", r.Phase, mib(r.PeakAllocated.Measured), signed(r.PeakAllocated.Error())))
			}
			if r.StaleReserved {
				resStale = append(resStale, r.Phase.String())
			}
		}
		if len(allocStale) > 0 {
			verb, it1, ph := "is", "it", "the phase"
			if len(allocStale) > 1 {
				verb, it1, ph = "are", "them", "each phase"
			}
			fmt.Fprintf(&b, "iteration %d (run %d): the allocated peak of %s %s no higher than what %s began with — nothing in %s rose above the previous phase's leftovers, so such a peak belongs to the earlier state and its error is the earlier phase's end error.",
				it, rows[0].MeasuredIteration, strings.Join(allocStale, ", "), verb, ph, it1)
		}
		if len(resStale) > 0 {
			if b.Len() > 0 {
				b.WriteString(" ")
			}
			src := ""
			if g, ok := grewAt[at{rows[len(rows)-1].MeasuredIteration, rows[len(rows)-1].Phase}]; ok {
				src = fmt.Sprintf(" (the run's reserve last grew in run iteration %d %s)", g.iter, g.phase)
			}
			lead := "I"
			if b.Len() == 0 {
				lead = "i"
			}
			if len(resStale) == len(rows) {
				fmt.Fprintf(&b, "%steration %d's reserved peaks in every phase equal the reserve it began with%s: an earlier phase sized the cache, later ones only reuse it.", lead, it, src)
			} else {
				fmt.Fprintf(&b, "%steration %d %s: the reserved peak equals the reserve the phase began with%s; the cache was sized earlier and only reused.", lead, it, strings.Join(resStale, ", "), src)
			}
		}
		var disagree []string
		for _, r := range rows {
			if !r.Start.Known() {
				continue
			}
			if r.StaleAllocated != r.EstimatedStaleAllocated {
				who := "the estimate rises above the phase's start, the run does not"
				if !r.StaleAllocated {
					who = "the run rises above the phase's start, the estimate does not"
				}
				disagree = append(disagree, fmt.Sprintf("%s: %s (rise: estimated %s, measured %s)", r.Phase, who, signed(r.PeakAllocated.Estimated-r.Start.Estimated), signed(r.PeakAllocated.Measured-r.Start.Measured)))
			}
		}
		if len(disagree) > 0 {
			if b.Len() > 0 {
				b.WriteString(" ")
			}
			if b.Len() == 0 {
				fmt.Fprintf(&b, "iteration %d: ", it)
			}
			fmt.Fprintf(&b, "Estimate and run disagree about a new allocated peak in %s.", strings.Join(disagree, "; "))
		}
		if b.Len() > 0 {
			rep.Causes = append(rep.Causes, Cause{Kind: CauseStaleness, Where: fmt.Sprintf("iteration %d", it), Text: b.String()})
		}
	}
}

func (rep *Report) outsideCause(r *estimate.Result) {
	d := rep.Device
	if d.Used.Measured < 0 {
		rep.Causes = append(rep.Causes, Cause{Kind: CauseOutside, Text: fmt.Sprintf("the run has no NVML process reading: nvidia-smi (estimated %s) not compared.", mib(d.Used.Estimated))})
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "nvidia-smi off by %s — reserved %s (estimated peak %s, the run's at its end %s), outside the allocator %s.",
		signed(d.Used.Error()), signed(d.Reserved.Error()), mib(d.Reserved.Estimated), mib(d.Reserved.Measured), signed(d.Outside.Error()))
	fmt.Fprintf(&b, " Outside (nvidia-smi − reserved): estimated %s from profile %s", mib(d.Outside.Estimated), r.GPU.Profile)
	if d.Context.Estimated >= 0 && d.Kernels.Estimated >= 0 {
		if d.NCCL.Estimated > 0 {
			fmt.Fprintf(&b, " (CUDA context %s + library kernels %s + NCCL buffers %s)", mib(d.Context.Estimated), mib(d.Kernels.Estimated), mib(d.NCCL.Estimated))
		} else {
			fmt.Fprintf(&b, " (CUDA context %s + library kernels %s)", mib(d.Context.Estimated), mib(d.Kernels.Estimated))
		}
	}
	fmt.Fprintf(&b, ", measured %s", mib(d.Outside.Measured))
	if d.Context.Measured >= 0 {
		switch {
		case d.NCCL.Estimated > 0 && d.RunNCCL:
			fmt.Fprintf(&b, " (%s right after CUDA initialised, %s more as kernels loaded lazily, taking the estimated NCCL buffers as measured)", mib(d.Context.Measured), mib(d.Kernels.Measured))
		default:
			fmt.Fprintf(&b, " (%s right after CUDA initialised, %s more as kernels loaded lazily)", mib(d.Context.Measured), mib(d.Kernels.Measured))
		}
	}
	b.WriteString(".")
	if d.NCCL.Estimated > 0 && !d.RunNCCL {
		fmt.Fprintf(&b, " The run had no NCCL communicator (one process, a fake process group), so the estimate's %s of NCCL buffers is not in it.", mib(d.NCCL.Estimated))
	}
	switch {
	case abs(d.Outside.Error()) < 1<<20:
		b.WriteString(" The profile matches within 1 MiB.")
	case d.Context.Known() && d.Kernels.Known() && abs(d.Kernels.Error()) >= abs(d.Context.Error()):
		fmt.Fprintf(&b, " The difference is in the lazily loaded kernels (%s): which kernels load depends on the ops the model runs, so a profile's figure is an average.", signed(d.Kernels.Error()))
	case d.Context.Known():
		fmt.Fprintf(&b, " The difference is in the CUDA context (%s): recalibrate the profile on this machine (memplan calibrate).", signed(d.Context.Error()))
	}
	if d.OtherOnDevice > 0 {
		fmt.Fprintf(&b, " The device total (%s) also counts %s not in this process (other processes; an excluded term).", mib(d.Used.Measured+d.OtherOnDevice), mib(d.OtherOnDevice))
	}
	rep.Causes = append(rep.Causes, Cause{Kind: CauseOutside, Bytes: d.Outside.Error(), Text: b.String()})
}

// steadyCause checks where the run's reserve stopped growing: the estimate's
// iteration 2 stands for every later step, so a run still growing its cache
// after the first step, or in its last iteration, says so.
func (rep *Report) steadyCause(m *Measured) {
	n := len(m.Iterations)
	if n < 2 {
		return
	}
	var grew []string
	lastGrew := false
	for i := 1; i < n; i++ {
		for p := estimate.PhaseForward; p <= estimate.PhaseZeroGrad; p++ {
			mp, ok := m.Phase(i, p)
			if !ok {
				continue
			}
			if d := mp.After.ReservedPeak - mp.Before.ReservedCurrent; d >= 1<<20 {
				grew = append(grew, fmt.Sprintf("%s in run iteration %d %s", signed(d), i, p))
				lastGrew = lastGrew || i == n-1
			}
		}
	}
	if len(grew) == 0 {
		return
	}
	first, last := m.Iterations[0].end(), m.Iterations[n-1].end()
	text := fmt.Sprintf("the run's reserve grew after its first step (%s): %s after run iteration 0, %s after run iteration %d", strings.Join(grew, ", "), mib(first), mib(last), n-1)
	if lastGrew {
		text += "; it was still growing in the last iteration, so the steady reserve may be higher than measured."
	} else {
		text += fmt.Sprintf("; run iteration %d grew nothing, so it is settled and stands for the estimate's iteration 2, whose reserve must include what the second step added.", n-1)
	}
	rep.Causes = append(rep.Causes, Cause{Kind: CauseNotSteady, Text: text})
}

// end is the reserve at the end of the iteration's last phase (Unknown if none).
func (it MeasuredIteration) end() int64 {
	res := int64(Unknown)
	for p := estimate.PhaseForward; p <= estimate.PhaseZeroGrad; p++ {
		if ph, ok := it.Phases[p.String()]; ok {
			res = ph.After.ReservedCurrent
		}
	}
	return res
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// mib formats bytes as MiB, labelled ("–" where unknown).
func mib(b int64) string {
	if b == Unknown {
		return "–"
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

// signed formats a difference in MiB with its sign.
func signed(b int64) string {
	v := float64(b) / (1 << 20)
	if math.Abs(v) < 0.05 {
		return "±0.0 MiB"
	}
	return fmt.Sprintf("%+.1f MiB", v)
}

// errText is the error of a pair in MiB and percent.
func errText(p Pair) string {
	if !p.Known() {
		return "–"
	}
	pct := p.Percent()
	if math.Abs(pct) < 0.05 {
		return signed(p.Error()) + " (±0.0%)" // not -0.0%: a miss of a few bytes has no sign worth showing
	}
	return fmt.Sprintf("%s (%+.1f%%)", signed(p.Error()), pct)
}
