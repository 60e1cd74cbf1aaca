package calibrate

import (
	"errors"
	"fmt"

	"github.com/memplan/memplan/spec"
)

// fakeDriver simulates a GPU: allocations and lazily loaded kernels move a
// per-process figure (as NVML reports it, in 2 MiB pages) and free memory.
type fakeDriver struct {
	pid, nvmlPid int
	noNVML       bool
	noBLAS       bool
	noDNN        bool
	failLt       bool
	openErr      error

	info       DeviceInfo
	driverKeep int64 // device used before the context
	used       int64 // this process
	free       int64
	ctx        bool
	handle     bool
	dnn        bool
	loaded     map[string]bool
	calls      []string

	// What each event costs.
	contextCost, handleCost, dnnHandleCost int64
	kernelCost                             map[string]int64
	convWorkspace                          int64
}

func newFakeH200() *fakeDriver {
	return &fakeDriver{
		pid: 4242, nvmlPid: 4242,
		info: DeviceInfo{Name: "NVIDIA H200", Major: 9, Minor: 0, PCIBusID: "00000000:1E:00.0",
			CUDATotalBytes: 150109880320, NVMLTotalBytes: 143771 * MiB, DriverVersion: "580.159.03", CUDAVersion: 13000},
		driverKeep:    615 * MiB,
		free:          150109880320,
		contextCost:   518 * MiB,
		handleCost:    4 * MiB,
		dnnHandleCost: 2 * MiB,
		kernelCost: map[string]int64{
			GemmFP32.String(): 62 * MiB, GemmBF16.String(): 58 * MiB, GemmFP32BiasLt.String(): 30 * MiB, "conv": 40 * MiB,
		},
		convWorkspace: 24 * MiB,
		loaded:        map[string]bool{},
	}
}

func roundPage(b int64) int64 { return (b + 2*MiB - 1) / (2 * MiB) * (2 * MiB) }

func (f *fakeDriver) grow(b int64) { f.used += b; f.free -= b }

func (f *fakeDriver) Open() ([]Library, error) {
	f.calls = append(f.calls, "Open")
	if f.openErr != nil {
		return nil, f.openErr
	}
	libs := []Library{{Name: "libcuda", Path: "/fake/libcuda.so.1"}}
	if !f.noNVML {
		libs = append(libs, Library{Name: "libnvidia-ml", Path: "/fake/libnvidia-ml.so.1"})
	}
	return libs, nil
}

func (f *fakeDriver) Device(ordinal int) (DeviceInfo, error) {
	if ordinal != 0 {
		return DeviceInfo{}, fmt.Errorf("no CUDA device %d (this machine has 1)", ordinal)
	}
	info := f.info
	if f.noNVML {
		info.NVMLTotalBytes, info.DriverVersion = 0, ""
	}
	return info, nil
}

func (f *fakeDriver) ProcessMemory() ([]ProcessMemory, int64, error) {
	if f.noNVML {
		return nil, 0, ErrNoNVML
	}
	var procs []ProcessMemory
	if f.ctx && f.nvmlPid != 0 {
		procs = append(procs, ProcessMemory{Pid: f.nvmlPid, UsedBytes: f.used})
	}
	return procs, f.driverKeep + f.used, nil
}

func (f *fakeDriver) Pid() int { return f.pid }

func (f *fakeDriver) RetainPrimaryContext() error {
	f.ctx = true
	f.grow(f.contextCost)
	return nil
}

func (f *fakeDriver) MemGetInfo() (int64, int64, error) {
	if !f.ctx {
		return 0, 0, errors.New("CUDA_ERROR_INVALID_CONTEXT")
	}
	return f.free, f.info.CUDATotalBytes, nil
}

func (f *fakeDriver) Alloc(b int64) (DevicePtr, error) {
	if !f.ctx {
		return 0, errors.New("no context")
	}
	f.grow(roundPage(b))
	return DevicePtr(0x7f0000000000 + f.used), nil
}

func (f *fakeDriver) Sync() error { return nil }

func (f *fakeDriver) LoadBLAS(maxMajor int) ([]Library, error) {
	if f.noBLAS {
		return nil, ErrNotFound
	}
	return []Library{{Name: "libcublasLt", Path: "/fake/libcublasLt.so.13", Version: "13.1.0"},
		{Name: "libcublas", Path: "/fake/libcublas.so.13", Version: "13.1.0"}}, nil
}

func (f *fakeDriver) CublasCreate() error {
	f.handle = true
	f.grow(f.handleCost)
	return nil
}

func (f *fakeDriver) CublasSetWorkspace(p DevicePtr, b int64) error {
	if !f.handle || p == 0 {
		return errors.New("no handle")
	}
	f.calls = append(f.calls, fmt.Sprintf("workspace %d", b))
	return nil
}

func (f *fakeDriver) Gemm(g GemmCall) error {
	if !f.handle {
		return errors.New("CUBLAS_STATUS_NOT_INITIALIZED")
	}
	if g.Kind == GemmFP32BiasLt && f.failLt {
		return errors.New("cuBLAS status 15: not supported")
	}
	if g.A == 0 || g.B == 0 || g.C == 0 || g.N != probeGemmN {
		return errors.New("bad GEMM call")
	}
	f.calls = append(f.calls, g.Kind.String())
	if k := g.Kind.String(); !f.loaded[k] {
		f.loaded[k] = true
		f.grow(f.kernelCost[k])
	}
	return nil
}

func (f *fakeDriver) LoadDNN() ([]Library, error) {
	if f.noDNN {
		return nil, ErrNotFound
	}
	return []Library{{Name: "libcudnn", Path: "/fake/libcudnn.so.9", Version: "9.10.2"}}, nil
}

func (f *fakeDriver) CudnnCreate() error {
	f.dnn = true
	f.grow(f.dnnHandleCost)
	return nil
}

func (f *fakeDriver) ConvPlan(c ConvShape) (int64, string, error) {
	if !f.dnn {
		return 0, "", errors.New("no cuDNN handle")
	}
	return f.convWorkspace, "IMPLICIT_PRECOMP_GEMM", nil
}

func (f *fakeDriver) Conv(c ConvShape, x, w, y, ws DevicePtr, wsBytes int64) error {
	if wsBytes != f.convWorkspace || ws == 0 {
		return errors.New("bad workspace")
	}
	if !f.loaded["conv"] {
		f.loaded["conv"] = true
		f.grow(f.kernelCost["conv"])
	}
	return nil
}

// ConvWorkspaces answers as a transposing engine would (x + y + w + 16
// bytes for every pass) and refuses tensors larger than the free memory.
func (f *fakeDriver) ConvWorkspaces(g spec.ConvGeometry) ([3]ConvChoice, error) {
	var out [3]ConvChoice
	if !f.dnn {
		return out, errors.New("no cuDNN handle")
	}
	es := g.DType.Size()
	x, y, w := g.N*g.Cin*g.H*g.W*es, g.N*g.Cout*g.Ho*g.Wo*es, g.Cout*g.Cin/max(g.Groups, 1)*g.KH*g.KW*es
	if x+y+w > f.free {
		return out, fmt.Errorf("allocating the convolution's tensors: %w", ErrOutOfMemory)
	}
	for i := range out {
		out[i] = ConvChoice{WorkspaceBytes: x + y + w + 16, Engine: int64(i), Tried: 1}
	}
	return out, nil
}

func (f *fakeDriver) Close() error {
	f.calls = append(f.calls, "Close")
	return nil
}
