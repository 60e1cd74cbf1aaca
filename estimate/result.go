package estimate

import (
	"fmt"

	"github.com/memplan/memplan/estimate/allocator"
)

// Phase is one part of a training step.
type Phase int

// The phases of a step, in order. Inference has only PhaseForward.
const (
	PhaseForward Phase = iota
	PhaseBackward
	PhaseOptimizer
	PhaseZeroGrad
)

var phaseNames = [...]string{"forward", "backward", "optimizer", "zero_grad"}

// String returns the phase name of the JSON contract.
func (p Phase) String() string {
	if p < 0 || int(p) >= len(phaseNames) {
		return fmt.Sprintf("Phase(%d)", int(p))
	}
	return phaseNames[p]
}

// MarshalText writes the phase by name.
func (p Phase) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a phase name.
func (p *Phase) UnmarshalText(b []byte) error {
	for i, n := range phaseNames {
		if n == string(b) {
			*p = Phase(i)
			return nil
		}
	}
	return fmt.Errorf("unknown phase %q", b)
}

// Result is one estimate: the JSON contract of DESIGN.md plus the detail the
// reports draw (fields tagged json:"-").
type Result struct {
	Name       string         `json:"name"`
	Version    string         `json:"memplan_version"`
	Model      ModelSummary   `json:"model"`
	GPU        GPUSummary     `json:"gpu"`
	Iterations []IterationRun `json:"iterations"`
	Peak       Peak           `json:"peak"`
	Terms      []Term         `json:"terms"`
	Warnings   []string       `json:"warnings"`
	// Notes are the warnings about this run's simulation rather than its
	// description (cuDNN's engine fallback at the device's limit), also in
	// Warnings: a sweep names the point they belong to.
	Notes []string `json:"notes,omitempty"`
	// AllocRetries counts the times the allocator released its cached
	// blocks to retry a cudaMalloc at the device's limit (PyTorch's
	// num_alloc_retries): 0 unless the run was limited (Options.Device).
	AllocRetries int64 `json:"alloc_retries,omitempty"`
	// UnlimitedPeak is the peak the step would reach on a device without
	// limit, set when that passes the GPU's memory and the step fits the GPU
	// only by releasing cached blocks (Options.OnDevice).
	UnlimitedPeak *Peak `json:"unlimited_peak,omitempty"`
	// DeviceError, with Options.OnDevice, is why the step does not fit the
	// GPU even releasing its cached blocks (it runs out of memory, or never
	// settles): the figures are then the unlimited run's. Warnings say it
	// too, but for PeaksOnly results, which check reads.
	DeviceError error `json:"-"`
	// Parallel names the rank layout of a per-rank estimate (training.parallel);
	// absent for one rank.
	Parallel *ParallelSummary `json:"parallel,omitempty"`

	// Timeline holds every allocator event of the simulated iterations.
	Timeline []Event `json:"-"`
	// StartSegments is the allocator's memory map before the first step
	// (the model and the batch on the GPU), by address; kept with the
	// timeline (Options.Timeline).
	StartSegments []allocator.Segment `json:"-"`
	// Layers is the per-layer table.
	Layers []LayerRow `json:"-"`
	// Gaps explains the differences between allocated, reserved and nvidia-smi at the peak.
	Gaps []Gap `json:"-"`
	// Inputs echoes what the estimate was made from.
	Inputs Inputs `json:"-"`

	// bound is what Run reads of an unlimited run to tell that it cannot
	// run on the GPU (Options.SkipHopeless).
	bound runBound
}

// runBound is a run's most bytes live at once as requested, and what lies
// outside its allocator.
type runBound struct{ requestedPeak, outside int64 }

// ModelSummary counts the model's parameters.
type ModelSummary struct {
	Parameters     int64 `json:"parameters"`
	ParameterBytes int64 `json:"parameter_bytes"`
}

// GPUSummary names the profile an estimate used.
type GPUSummary struct {
	Profile    string `json:"profile"`
	Name       string `json:"name"`
	TotalBytes int64  `json:"total_bytes"`
	Calibrated bool   `json:"-"`
}

// IterationRun is one simulated iteration: 1 is the first step, 2 every later one.
type IterationRun struct {
	Iteration int        `json:"iteration"`
	Phases    []PhaseRun `json:"phases"`
}

// PhaseRun is what the allocator counters read over one phase.
type PhaseRun struct {
	Phase              Phase `json:"phase"`
	PeakAllocatedBytes int64 `json:"peak_allocated_bytes"`
	PeakReservedBytes  int64 `json:"peak_reserved_bytes"`
	EndAllocatedBytes  int64 `json:"end_allocated_bytes"`
	EndReservedBytes   int64 `json:"end_reserved_bytes"`

	// PeakEvent indexes Result.Timeline at the phase's allocated peak.
	PeakEvent int `json:"-"`
	// PeakByRole is what was live at that peak, by role name, in allocator bytes.
	PeakByRole map[string]int64 `json:"-"`
	// PeakOp is the op running at the peak.
	PeakOp string `json:"-"`
}

// Peak is the largest figure across iterations and phases, and where it happens.
type Peak struct {
	AllocatedBytes  int64 `json:"allocated_bytes"`
	ReservedBytes   int64 `json:"reserved_bytes"`
	DeviceUsedBytes int64 `json:"device_used_bytes"`
	Iteration       int   `json:"iteration"`
	Phase           Phase `json:"phase"`
	// Op is the op running at the allocated peak.
	Op string `json:"-"`
}

// Term is one contribution to memory, included in the estimate or not.
type Term struct {
	Name     string `json:"name"`
	Bytes    int64  `json:"bytes"`
	Included bool   `json:"included"`
	Note     string `json:"note"`
	// Where says where the bytes live (reports group terms by it).
	Where Where `json:"-"`
}

// Where is where a term's bytes live.
type Where int

// Places: inside the caching allocator, outside it (context, kernels, other
// processes), in host memory, a subtotal of other terms, or a size whose
// live part another term counts (a collective buffer's size; what is live
// of it at the peak is in "collective buffers (at the peak)").
const (
	WhereAllocator Where = iota
	WhereOutside
	WhereHost
	WhereSubtotal
	WhereCountedElsewhere
)

// String names the place as reports print it.
func (w Where) String() string {
	return [...]string{"allocator", "outside the allocator", "host", "subtotal", "size (live part counted at the peak)"}[w]
}

// Action is what an event does to the allocator.
type Action int

// Event actions.
const (
	ActionAlloc Action = iota
	ActionFree
)

// String names the action.
func (a Action) String() string {
	if a == ActionAlloc {
		return "alloc"
	}
	return "free"
}

// MarshalText writes the action by name.
func (a Action) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// Event is one allocation or free of the simulated step, with the counters after it.
type Event struct {
	Iteration int    `json:"iteration"`
	Phase     Phase  `json:"phase"`
	Action    Action `json:"action"`
	// Op is the op (module path) the event belongs to; Tensor the tensor's name.
	Op     string `json:"op"`
	Tensor string `json:"tensor"`
	// Role is the term the bytes count under.
	Role  string `json:"role"`
	Bytes int64  `json:"bytes"`
	// Requested is what the allocation asked for, before the allocator
	// rounded it (Bytes is the block it got): what PyTorch's memory
	// history records as an event's size.
	Requested int64 `json:"requested"`
	Allocated int64 `json:"allocated"`
	Reserved  int64 `json:"reserved"`
}

// LayerRow is one row of the per-layer table.
type LayerRow struct {
	Layer          string `json:"layer"`
	Parameters     int64  `json:"parameters"`
	ParameterBytes int64  `json:"parameter_bytes"`
	GradientBytes  int64  `json:"gradient_bytes"`
	SavedBytes     int64  `json:"saved_bytes"`
	Ops            int    `json:"ops"`
}

// Gap explains one difference between two figures at the peak.
type Gap struct {
	From, To string
	Bytes    int64
	Cause    string
}

// Inputs echoes the description, training options and GPU profile.
type Inputs struct {
	File       string
	Model      string
	Training   []KeyValue
	GPU        []KeyValue
	Calibrated bool
}

// KeyValue is one labelled setting.
type KeyValue struct{ Key, Value string }
