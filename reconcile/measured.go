package reconcile

import "github.com/memplan/memplan/estimate"

// Measured is one measured run as probe/memplan_probe.py writes it (the
// format of shared/validation/README.md): allocator counters around each
// phase of each iteration, and NVML's view of the process.
type Measured struct {
	Case                string         `json:"case"`
	Spec                map[string]any `json:"spec"`
	Versions            map[string]any `json:"versions"`
	ParamCount          int64          `json:"param_count"`
	ParamBytes          int64          `json:"param_bytes"`
	InputBytes          int64          `json:"input_bytes"`
	OptimizerStateBytes int64          `json:"optimizer_state_bytes"`

	NVMLBeforeCUDA   NVML `json:"nvml_before_cuda"`
	NVMLAfterContext NVML `json:"nvml_after_context"`
	NVMLFinal        NVML `json:"nvml_final"`

	StatsAfterContext Stats `json:"stats_after_context"`
	AfterModel        Stats `json:"after_model"`
	AfterInputs       Stats `json:"after_inputs"`
	FinalStats        Stats `json:"final_stats"`

	Iterations []MeasuredIteration `json:"iterations"`

	// src is the file the run was read from, for positions in errors;
	// nil for a run built in memory.
	src *source
}

// NVML is one reading of the device through NVML: everything used on the
// device, and the compute processes with their memory (what nvidia-smi shows).
type NVML struct {
	DeviceUsed int64  `json:"device_used"`
	Procs      []Proc `json:"procs"`
}

// Proc is one process NVML lists on the device.
type Proc struct {
	PID  int   `json:"pid"`
	Used int64 `json:"used"`
}

// ProcessUsed is the measured process's memory as nvidia-smi shows it, or -1
// where NVML listed no process. The probe keeps only its own process when
// NVML names it; otherwise the largest listed process is taken.
func (n NVML) ProcessUsed() int64 {
	used := int64(-1)
	for _, p := range n.Procs {
		used = max(used, p.Used)
	}
	return used
}

// Stats is a subset of torch.cuda.memory_stats(), in bytes and counts.
type Stats struct {
	AllocatedCurrent     int64 `json:"allocated_bytes.all.current"`
	AllocatedPeak        int64 `json:"allocated_bytes.all.peak"`
	ReservedCurrent      int64 `json:"reserved_bytes.all.current"`
	ReservedPeak         int64 `json:"reserved_bytes.all.peak"`
	RequestedCurrent     int64 `json:"requested_bytes.all.current"`
	RequestedPeak        int64 `json:"requested_bytes.all.peak"`
	ActivePeak           int64 `json:"active_bytes.all.peak"`
	InactiveSplitCurrent int64 `json:"inactive_split_bytes.all.current"`
	SegmentsCurrent      int64 `json:"segment.all.current"`
	SegmentsPeak         int64 `json:"segment.all.peak"`
	AllocRetries         int64 `json:"num_alloc_retries"`
	OOMs                 int64 `json:"num_ooms"`
}

// MeasuredIteration is one measured step, its phases by name.
type MeasuredIteration struct {
	Phases map[string]MeasuredPhase `json:"phases"`
}

// MeasuredPhase holds the counters read just after the peak counters were
// reset (Before) and at the end of the phase (After): After.AllocatedPeak is
// the phase's peak, After.AllocatedCurrent what stays allocated.
type MeasuredPhase struct {
	Before Stats   `json:"before"`
	After  Stats   `json:"after"`
	Ms     float64 `json:"ms"`
}

// Phase returns the measured phase p of iteration i (0-based) and whether the
// run measured it.
func (m *Measured) Phase(i int, p estimate.Phase) (MeasuredPhase, bool) {
	if i < 0 || i >= len(m.Iterations) {
		return MeasuredPhase{}, false
	}
	ph, ok := m.Iterations[i].Phases[p.String()]
	return ph, ok
}
