// Package calibrate holds GPU profiles — a GPU type's memory and the overheads
// PyTorch pays outside its tensors (CUDA context, lazily loaded library
// kernels, BLAS workspaces) — the built-in ones, profile files, and the
// one-shot CUDA probe that measures them.
package calibrate

// MiB is 2^20 bytes.
const MiB = int64(1) << 20

// Profile is what memplan knows about one GPU type. Byte figures are exact
// integers. A profile is Calibrated when `memplan calibrate` measured it on
// real hardware; otherwise its overheads are rules of thumb and every report
// that uses it says so.
type Profile struct {
	// Name is the profile's key ("h200") or the file it was read from.
	Name string `yaml:"name" json:"name"`
	// GPUName is the device name as NVML reports it ("NVIDIA H200").
	GPUName string `yaml:"gpu_name" json:"gpu_name"`
	// TotalBytes is the device memory CUDA reports (cuMemGetInfo total,
	// torch.cuda.mem_get_info()[1]); sizing answers use it.
	TotalBytes int64 `yaml:"total_bytes" json:"total_bytes"`
	// NVMLTotalBytes is the total NVML (nvidia-smi) reports, usually larger.
	NVMLTotalBytes int64 `yaml:"nvml_total_bytes,omitempty" json:"nvml_total_bytes,omitempty"`
	// ComputeCapability is major*10+minor (90 for Hopper).
	ComputeCapability int `yaml:"compute_capability" json:"compute_capability"`
	// ContextBytes is the per-process memory right after the primary context
	// is created, as nvidia-smi shows it.
	ContextBytes int64 `yaml:"context_bytes" json:"context_bytes"`
	// KernelBytes is the growth of per-process memory as library kernels load
	// lazily during a step, by what the step runs.
	KernelBytes KernelBytes `yaml:"kernel_bytes" json:"kernel_bytes"`
	// CublasWorkspaceBytes is the cuBLAS workspace PyTorch allocates per
	// (handle, stream) on this architecture.
	CublasWorkspaceBytes int64 `yaml:"cublas_workspace_bytes" json:"cublas_workspace_bytes"`
	// CublasLtWorkspaceBytes is the separate cuBLASLt workspace (addmm with bias).
	CublasLtWorkspaceBytes int64 `yaml:"cublaslt_workspace_bytes" json:"cublaslt_workspace_bytes"`
	// AllocationGranularity is what one small cuMemAlloc takes from free memory.
	AllocationGranularity int64 `yaml:"allocation_granularity" json:"allocation_granularity"`
	// Calibrated is true when the overheads were measured on this GPU type.
	Calibrated bool `yaml:"calibrated" json:"calibrated"`
	// Provenance says where the figures come from.
	Provenance Provenance `yaml:"provenance" json:"provenance"`
}

// KernelBytes is memory the CUDA driver maps when library kernels are first
// used (CUDA_MODULE_LOADING=LAZY), outside the caching allocator.
type KernelBytes struct {
	// Training is the growth over a whole fp32/bf16 training step (forward,
	// backward, optimizer); Inference over an inference forward.
	Training  int64 `yaml:"training" json:"training"`
	Inference int64 `yaml:"inference" json:"inference"`
	// GemmFP32, GemmBF16 and Conv are the growth at the first GEMM of each
	// type and the first cuDNN convolution, as the probe measures them.
	GemmFP32 int64 `yaml:"gemm_fp32,omitempty" json:"gemm_fp32,omitempty"`
	GemmBF16 int64 `yaml:"gemm_bf16,omitempty" json:"gemm_bf16,omitempty"`
	Conv     int64 `yaml:"conv,omitempty" json:"conv,omitempty"`
}

// Provenance records how a profile was made.
type Provenance struct {
	Source    string   `yaml:"source" json:"source"`
	Date      string   `yaml:"date,omitempty" json:"date,omitempty"`
	Driver    string   `yaml:"driver,omitempty" json:"driver,omitempty"`
	CUDA      string   `yaml:"cuda,omitempty" json:"cuda,omitempty"`
	Measured  []string `yaml:"measured,omitempty" json:"measured,omitempty"`
	FromRules []string `yaml:"from_rules,omitempty" json:"from_rules,omitempty"`
}

// OutsideAllocator is the memory nvidia-smi shows for the process that the
// caching allocator does not: the context plus the library kernels a step of
// the given kind loads.
func (p *Profile) OutsideAllocator(training bool) int64 {
	if training {
		return p.ContextBytes + p.KernelBytes.Training
	}
	return p.ContextBytes + p.KernelBytes.Inference
}
