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
	// WindowBytes is address space the driver maps for library kernels in
	// the window of its first chunk, which moves where later segments land.
	WindowBytes WindowBytes `yaml:"window_bytes,omitempty" json:"window_bytes,omitzero"`
	// CublasWorkspaceBytes is the cuBLAS workspace PyTorch allocates per
	// (handle, stream) on this architecture.
	CublasWorkspaceBytes int64 `yaml:"cublas_workspace_bytes" json:"cublas_workspace_bytes"`
	// CublasLtWorkspaceBytes is the separate cuBLASLt workspace (addmm with bias).
	CublasLtWorkspaceBytes int64 `yaml:"cublaslt_workspace_bytes" json:"cublaslt_workspace_bytes"`
	// NCCLBytes is the memory NCCL's communicators take outside the caching
	// allocator on one rank; 0 when not measured (per-rank estimates then
	// exclude it and say so).
	NCCLBytes int64 `yaml:"nccl_bytes,omitempty" json:"nccl_bytes,omitempty"`
	// AllocationGranularity is what one small cuMemAlloc takes from free memory.
	AllocationGranularity int64 `yaml:"allocation_granularity" json:"allocation_granularity"`
	// Calibrated is true when the overheads were measured on this GPU type.
	Calibrated bool `yaml:"calibrated" json:"calibrated"`
	// Provenance says where the figures come from.
	Provenance Provenance `yaml:"provenance" json:"provenance"`
	// ConvWorkspaces are the cuDNN convolution workspaces measured on this
	// GPU type (`memplan calibrate --convs FILE`), one entry per geometry;
	// estimates use them before the built-in H200 table and the rule.
	ConvWorkspaces []ConvWorkspace `yaml:"conv_workspaces,omitempty" json:"conv_workspaces,omitempty"`
	// Probe is what `memplan calibrate` read on the GPU, step by step; it
	// explains the figures above and is absent from uncalibrated profiles.
	Probe *Probe `yaml:"probe,omitempty" json:"probe,omitempty"`
}

// KernelBytes is memory the CUDA driver maps when library kernels are first
// used (CUDA_MODULE_LOADING=LAZY), outside the caching allocator.
type KernelBytes struct {
	// Training is the growth over a whole fp32/bf16 training step (forward,
	// backward, optimizer); Inference over an inference forward.
	Training  int64 `yaml:"training" json:"training"`
	Inference int64 `yaml:"inference" json:"inference"`
	// GemmFP32 is the growth at a process's first (fp32) GEMM, cublasCreate
	// included, since PyTorch creates its cuBLAS handle there; GemmBF16 what
	// a first bf16 GEMM adds after it; Conv the growth at the first cuDNN
	// convolution, cudnnCreate included. The probe measures them (on the
	// H200 with cuBLAS 13.1 the GEMM kernels load at cublasCreate, so
	// GemmBF16 is 0). They are parts of Training, never added to it.
	GemmFP32 int64 `yaml:"gemm_fp32,omitempty" json:"gemm_fp32,omitempty"`
	// FusedTraining and FusedInference are what one more lazily loaded
	// module adds when the step runs a cuDNN convolution or a 16-bit fused
	// attention kernel (flash, memory-efficient or cuDNN SDPA): either
	// loads it, both load it once (probe/kernel_modules.py on the H200:
	// +16 MiB over a training step's 224 MiB, +8 MiB over an inference
	// forward's 158 MiB; fp32 memory-efficient attention, layer norm and
	// GELU add nothing). Training and Inference are the steps without it.
	FusedTraining  int64 `yaml:"fused_training,omitempty" json:"fused_training,omitempty"`
	FusedInference int64 `yaml:"fused_inference,omitempty" json:"fused_inference,omitempty"`
	GemmBF16       int64 `yaml:"gemm_bf16,omitempty" json:"gemm_bf16,omitempty"`
	Conv           int64 `yaml:"conv,omitempty" json:"conv,omitempty"`
}

// WindowBytes is address space the CUDA driver maps for library kernels
// inside the window of its first chunk of address space as they load
// lazily (probe/module_addresses.py; notes/addresses.md, session 15). It
// takes no memory the estimate counts: it decides which segments the
// caching allocator's later ones land above or below, and so its ties.
type WindowBytes struct {
	// GemmHandle is what the run's first GEMM maps before its cuBLAS
	// workspace is allocated (the handle), GemmKernel what it maps after
	// (the kernel's module).
	GemmHandle int64 `yaml:"gemm_handle" json:"gemm_handle"`
	GemmKernel int64 `yaml:"gemm_kernel" json:"gemm_kernel"`
	// Cast is what the run's first dtype cast maps, Pow its first pow
	// (the probe ran pow then mean; sum alone maps nothing).
	Cast int64 `yaml:"cast" json:"cast"`
	Pow  int64 `yaml:"pow" json:"pow"`
}

// Provenance records how a profile was made.
type Provenance struct {
	Source string `yaml:"source" json:"source"`
	// Date is when the probe ran (RFC 3339, UTC).
	Date string `yaml:"date,omitempty" json:"date,omitempty"`
	// Driver is the NVIDIA driver version ("580.159.03"), CUDA the highest
	// CUDA version the driver supports ("13.0").
	Driver string `yaml:"driver,omitempty" json:"driver,omitempty"`
	CUDA   string `yaml:"cuda,omitempty" json:"cuda,omitempty"`
	// Measured and FromRules name the profile's YAML keys whose figures were
	// measured on the GPU, and those taken from documented rules.
	Measured  []string `yaml:"measured,omitempty" json:"measured,omitempty"`
	FromRules []string `yaml:"from_rules,omitempty" json:"from_rules,omitempty"`
	// Notes say, one line each, which rule a figure came from and anything
	// else a reader of the profile needs.
	Notes []string `yaml:"notes,omitempty" json:"notes,omitempty"`
}

// Probe is the record of one `memplan calibrate` run.
type Probe struct {
	// Method is how per-process memory was read: "nvml-process" (NVML's
	// figure for this process, what nvidia-smi shows), "nvml-device" (the
	// device's used memory, when NVML lists no process for us) or
	// "cuda-free" (cuMemGetInfo's free memory, when NVML is missing).
	Method string `yaml:"method" json:"method"`
	// Libraries are the libraries loaded, with their versions.
	Libraries []Library `yaml:"libraries,omitempty" json:"libraries,omitempty"`
	// CUDADeviceTotalBytes is cuDeviceTotalMem (TotalBytes is cuMemGetInfo's).
	CUDADeviceTotalBytes int64 `yaml:"cuda_device_total_bytes,omitempty" json:"cuda_device_total_bytes,omitempty"`
	// DeviceUsedBeforeBytes is NVML's device-used memory after cuInit,
	// before this process created a context: mostly memory the driver keeps
	// (about NVML total - CUDA total).
	DeviceUsedBeforeBytes int64 `yaml:"device_used_before_bytes,omitempty" json:"device_used_before_bytes,omitempty"`
	// Steps are the readings, in order.
	Steps []ProbeStep `yaml:"steps" json:"steps"`
}

// Library is one shared library the probe loaded.
type Library struct {
	Name    string `yaml:"name" json:"name"`
	Path    string `yaml:"path" json:"path"`
	Version string `yaml:"version,omitempty" json:"version,omitempty"`
}

// ProbeStep is one reading: what was done, the per-process memory after it,
// and how much that grew.
type ProbeStep struct {
	Step string `yaml:"step" json:"step"`
	// UsedBytes is the per-process memory after the step (by Probe.Method).
	UsedBytes int64 `yaml:"used_bytes" json:"used_bytes"`
	// GrowthBytes is UsedBytes minus the reading before the step.
	GrowthBytes int64 `yaml:"growth_bytes" json:"growth_bytes"`
	// FreeDropBytes is how much cuMemGetInfo's free memory fell (when read).
	FreeDropBytes int64  `yaml:"free_drop_bytes,omitempty" json:"free_drop_bytes,omitempty"`
	Note          string `yaml:"note,omitempty" json:"note,omitempty"`
}

// OutsideAllocator is the memory nvidia-smi shows for the process that the
// caching allocator does not: the context plus the library kernels a step of
// the given kind loads (fused: it runs a cuDNN convolution or a 16-bit
// fused attention kernel).
func (p *Profile) OutsideAllocator(training, fused bool) int64 {
	return p.ContextBytes + p.KernelBytes.Step(training, fused)
}

// Step is the kernel memory a step of the given kind loads.
func (k KernelBytes) Step(training, fused bool) int64 {
	switch {
	case training && fused:
		return k.Training + k.FusedTraining
	case training:
		return k.Training
	case fused:
		return k.Inference + k.FusedInference
	}
	return k.Inference
}
