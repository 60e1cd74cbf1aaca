package calibrate

import (
	"errors"

	"github.com/memplan/memplan/spec"
)

// Driver is everything the probe asks of the GPU. The real one
// (driver_cgo.go) dlopens libcuda, NVML, cuBLAS/cuBLASLt and cuDNN at run
// time; tests use a fake. Methods are called in the order listed, from one
// goroutine locked to its OS thread (the CUDA context is per thread).
type Driver interface {
	// Open loads the CUDA driver library and NVML and initializes both.
	// Without libcuda it fails; without NVML it succeeds and ProcessMemory
	// returns ErrNoNVML.
	Open() ([]Library, error)
	// Device selects CUDA device ordinal and describes it.
	Device(ordinal int) (DeviceInfo, error)
	// ProcessMemory reads NVML: the memory of each process on the device
	// and the device's used memory (nvmlDeviceGetMemoryInfo).
	ProcessMemory() (procs []ProcessMemory, deviceUsed int64, err error)
	// Pid is this process's id, as NVML would list it.
	Pid() int
	// RetainPrimaryContext creates the device's primary context (what
	// PyTorch's first CUDA call does), makes it current and synchronizes.
	RetainPrimaryContext() error
	// MemGetInfo is cuMemGetInfo: free and total device memory.
	MemGetInfo() (free, total int64, err error)
	// Alloc is cuMemAlloc; the memory is kept until Close.
	Alloc(bytes int64) (DevicePtr, error)
	// Sync is cuCtxSynchronize.
	Sync() error

	// LoadBLAS loads cuBLASLt and cuBLAS (major version ≤ maxMajor, 0: any).
	LoadBLAS(maxMajor int) ([]Library, error)
	// CublasCreate creates a cuBLAS handle (cublasCreate).
	CublasCreate() error
	// CublasSetWorkspace gives the handle a workspace, as PyTorch does.
	CublasSetWorkspace(p DevicePtr, bytes int64) error
	// Gemm runs one GEMM the way PyTorch does for its kind.
	Gemm(g GemmCall) error

	// LoadDNN loads cuDNN; it returns ErrNotFound when there is none.
	LoadDNN() ([]Library, error)
	// CudnnCreate creates a cuDNN handle (cudnnCreate).
	CudnnCreate() error
	// ConvPlan picks the forward algorithm cuDNN's heuristics rank first
	// for c and returns the workspace it needs.
	ConvPlan(c ConvShape) (workspaceBytes int64, algo string, err error)
	// Conv runs the planned convolution.
	Conv(c ConvShape, x, w, y, workspace DevicePtr, workspaceBytes int64) error
	// ConvWorkspaces finds, for each pass of a convolution (forward,
	// backward-data, backward-filter), the engine PyTorch's cuDNN v8 path
	// keeps with benchmark off — heuristics mode INSTANT less the configs
	// PyTorch filters out, then the fallback list, the first whose plan
	// builds and runs — and the workspace it asks for. It allocates the
	// tensors itself and frees them before returning.
	ConvWorkspaces(g spec.ConvGeometry) ([3]ConvChoice, error)

	// Close releases the context and the libraries.
	Close() error
}

// ConvChoice is the engine one convolution pass runs and its workspace.
type ConvChoice struct {
	WorkspaceBytes int64
	// Engine is the cuDNN engine's global index; Tried is how many engine
	// configs were tried before one ran.
	Engine int64
	Tried  int
}

// DevicePtr is a device address (CUdeviceptr).
type DevicePtr uint64

// ErrNotFound says an optional library is not installed.
var ErrNotFound = errors.New("not found")

// ErrOutOfMemory says the device had no room for what the probe allocates.
var ErrOutOfMemory = errors.New("out of device memory")

// ErrNoNVML says NVML could not be loaded; per-process memory cannot be read.
var ErrNoNVML = errors.New("NVML not available")

// DeviceInfo describes the selected GPU.
type DeviceInfo struct {
	Name         string
	Major, Minor int
	PCIBusID     string
	// CUDATotalBytes is cuDeviceTotalMem; NVMLTotalBytes is NVML's total
	// (0 without NVML).
	CUDATotalBytes int64
	NVMLTotalBytes int64
	// DriverVersion is NVML's ("580.159.03"; "" without NVML); CUDAVersion
	// is cuDriverGetVersion (13000 for 13.0).
	DriverVersion string
	CUDAVersion   int
}

// ProcessMemory is one process NVML lists on the device.
type ProcessMemory struct {
	Pid       int
	UsedBytes int64
}

// GemmKind is which GEMM the probe runs.
type GemmKind int

const (
	// GemmFP32 is torch.mm on fp32 tensors: cublasSgemm.
	GemmFP32 GemmKind = iota
	// GemmBF16 is torch.mm on bf16 tensors: cublasGemmEx, bf16 in and out,
	// fp32 compute, CUBLAS_GEMM_DEFAULT_TENSOR_OP.
	GemmBF16
	// GemmFP32BiasLt is a Linear with bias in fp32 (addmm with a 1-D bias):
	// cublasLtMatmul with the BIAS epilogue on the cuBLAS handle.
	GemmFP32BiasLt
)

func (k GemmKind) String() string {
	switch k {
	case GemmFP32:
		return "fp32 GEMM (cublasSgemm)"
	case GemmBF16:
		return "bf16 GEMM (cublasGemmEx)"
	case GemmFP32BiasLt:
		return "fp32 GEMM with bias (cublasLtMatmul, BIAS epilogue)"
	}
	return "unknown GEMM"
}

// ElemBytes is the size of one matrix element.
func (k GemmKind) ElemBytes() int64 {
	if k == GemmBF16 {
		return 2
	}
	return 4
}

// GemmCall is one square n×n GEMM C = A·B (+ bias) on device buffers.
type GemmCall struct {
	Kind    GemmKind
	N       int
	A, B, C DevicePtr
	// Bias (n elements) and the cuBLASLt workspace, for GemmFP32BiasLt.
	Bias           DevicePtr
	Workspace      DevicePtr
	WorkspaceBytes int64
}

// ConvShape is a 2-D fp32 NCHW convolution, stride 1, square kernel,
// "same" padding.
type ConvShape struct {
	N, C, H, W int // input
	K, R       int // output channels, kernel size
}

// InputBytes, WeightBytes and OutputBytes size the buffers (fp32).
func (c ConvShape) InputBytes() int64  { return int64(c.N*c.C*c.H*c.W) * 4 }
func (c ConvShape) WeightBytes() int64 { return int64(c.K*c.C*c.R*c.R) * 4 }
func (c ConvShape) OutputBytes() int64 { return int64(c.N*c.K*c.H*c.W) * 4 }
