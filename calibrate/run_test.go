package calibrate

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

var fixedNow = func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }

func TestRunWithFakeH200(t *testing.T) {
	t.Setenv("CUBLAS_WORKSPACE_CONFIG", "")
	t.Setenv("CUBLASLT_WORKSPACE_SIZE", "")
	t.Setenv("CUDA_MODULE_LOADING", "")
	f := newFakeH200()
	var progress bytes.Buffer
	p, err := runWith(f, Options{Device: 0}, &progress, fixedNow)
	if err != nil {
		t.Fatalf("runWith: %v", err)
	}
	checks := []struct {
		name      string
		got, want int64
	}{
		{"TotalBytes", p.TotalBytes, 150109880320},
		{"NVMLTotalBytes", p.NVMLTotalBytes, 143771 * MiB},
		{"ContextBytes", p.ContextBytes, 518 * MiB},
		{"AllocationGranularity", p.AllocationGranularity, 2 * MiB},
		{"CublasWorkspaceBytes", p.CublasWorkspaceBytes, 32 * MiB},
		{"CublasLtWorkspaceBytes", p.CublasLtWorkspaceBytes, 1 * MiB},
		{"GemmFP32", p.KernelBytes.GemmFP32, 66 * MiB}, // handle 4 + kernels 62
		{"GemmBF16", p.KernelBytes.GemmBF16, 58 * MiB},
		{"Conv", p.KernelBytes.Conv, 42 * MiB}, // handle 2 + kernels 40
		{"Training", p.KernelBytes.Training, 224 * MiB},
		{"FusedTraining", p.KernelBytes.FusedTraining, 16 * MiB},
		{"Inference", p.KernelBytes.Inference, 160 * MiB},
		{"FusedInference", p.KernelBytes.FusedInference, 8 * MiB},
		{"WindowGemmHandle", p.WindowBytes.GemmHandle, 64 * MiB},
		{"WindowGemmKernel", p.WindowBytes.GemmKernel, 96 * MiB},
		{"WindowCast", p.WindowBytes.Cast, 32 * MiB},
		{"WindowPow", p.WindowBytes.Pow, 64 * MiB},
		{"ComputeCapability", int64(p.ComputeCapability), 90},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if p.Name != "h200" || p.GPUName != "NVIDIA H200" || !p.Calibrated {
		t.Errorf("name %q gpu %q calibrated %v", p.Name, p.GPUName, p.Calibrated)
	}
	pv := p.Provenance
	if pv.Driver != "580.159.03" || pv.CUDA != "13.0" || pv.Date != "2026-11-30T12:00:00Z" {
		t.Errorf("provenance %+v", pv)
	}
	for _, k := range []string{"context_bytes", "allocation_granularity", "kernel_bytes.gemm_fp32", "kernel_bytes.gemm_bf16", "kernel_bytes.conv", "total_bytes", "nvml_total_bytes"} {
		if !slices.Contains(pv.Measured, k) {
			t.Errorf("measured lacks %s: %v", k, pv.Measured)
		}
	}
	for _, k := range []string{"kernel_bytes.training", "kernel_bytes.inference", "window_bytes.gemm_handle", "window_bytes.gemm_kernel", "window_bytes.cast", "window_bytes.pow", "cublas_workspace_bytes", "cublaslt_workspace_bytes"} {
		if !slices.Contains(pv.FromRules, k) {
			t.Errorf("from_rules lacks %s: %v", k, pv.FromRules)
		}
	}
	if p.Probe == nil || p.Probe.Method != "nvml-process" || p.Probe.DeviceUsedBeforeBytes != 615*MiB {
		t.Fatalf("probe %+v", p.Probe)
	}
	steps := map[string]ProbeStep{}
	for _, s := range p.Probe.Steps {
		steps[s.Step] = s
	}
	if s := steps["cublasCreate"]; s.GrowthBytes != 4*MiB {
		t.Errorf("cublasCreate step %+v", s)
	}
	// workspace 32, fp32 3×4, bf16 3×2, Lt fp32 3×4, bias 4 KiB→2, Lt workspace 1→2 (2 MiB pages)
	if s := steps["GEMM buffers"]; s.GrowthBytes != 66*MiB {
		t.Errorf("GEMM buffers step %+v", s)
	}
	if s := steps["cuMemAlloc 20 MiB"]; s.GrowthBytes != 20*MiB || s.FreeDropBytes != 20*MiB {
		t.Errorf("segment step %+v", s)
	}
	if !slices.Contains(f.calls, "workspace 33554432") {
		t.Errorf("the cuBLAS workspace was not set to 32 MiB: %v", f.calls)
	}
	// One progress line per step, each a complete line.
	lines := strings.Split(strings.TrimSuffix(progress.String(), "\n"), "\n")
	if len(lines) < 10 {
		t.Errorf("only %d progress lines:\n%s", len(lines), progress.String())
	}
	for _, want := range []string{"device 0: NVIDIA H200, compute capability 9.0", "context: 518 MiB per process", "first fp32 GEMM", "first bf16 GEMM", "convolution"} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, progress.String())
		}
	}
	// The profile survives a write and a strict read.
	path := filepath.Join(t.TempDir(), "h200.yaml")
	if err := WriteFile(path, p); err != nil {
		t.Fatal(err)
	}
	back, err := LoadFile(path)
	if err != nil {
		t.Fatalf("reading back what Run wrote: %v", err)
	}
	back.Name = p.Name
	a, _ := Marshal(p)
	b, _ := Marshal(back)
	if !bytes.Equal(a, b) {
		t.Errorf("round trip differs:\n%s\n---\n%s", a, b)
	}
	if !bytes.Contains(a, []byte("gemm_handle: 67108864 # 64 MiB")) {
		t.Errorf("window_bytes written without its MiB comment:\n%s", a)
	}
}

func TestRunWithFakeVariants(t *testing.T) {
	t.Setenv("CUBLAS_WORKSPACE_CONFIG", "")
	t.Setenv("CUDA_MODULE_LOADING", "")
	t.Run("pid namespace", func(t *testing.T) {
		f := newFakeH200()
		f.nvmlPid = 31337
		p, err := runWith(f, Options{}, nil2(), fixedNow)
		if err != nil {
			t.Fatal(err)
		}
		if p.Probe.Method != "nvml-process" || p.ContextBytes != 518*MiB || !hasNote(p, "another PID namespace") {
			t.Errorf("method %s context %d notes %v", p.Probe.Method, p.ContextBytes, p.Provenance.Notes)
		}
	})
	t.Run("no process listed", func(t *testing.T) {
		f := newFakeH200()
		f.nvmlPid = 0
		p, err := runWith(f, Options{}, nil2(), fixedNow)
		if err != nil {
			t.Fatal(err)
		}
		if p.Probe.Method != "nvml-device" || p.ContextBytes != 518*MiB || p.KernelBytes.GemmFP32 != 66*MiB {
			t.Errorf("method %s context %d fp32 %d", p.Probe.Method, p.ContextBytes, p.KernelBytes.GemmFP32)
		}
	})
	t.Run("no NVML", func(t *testing.T) {
		f := newFakeH200()
		f.noNVML = true
		p, err := runWith(f, Options{}, nil2(), fixedNow)
		if err != nil {
			t.Fatal(err)
		}
		if p.Probe.Method != "cuda-free" || p.ContextBytes != 518*MiB || !slices.Contains(p.Provenance.FromRules, "context_bytes") || p.KernelBytes.GemmBF16 != 58*MiB {
			t.Errorf("method %s context %d rules %v bf16 %d", p.Probe.Method, p.ContextBytes, p.Provenance.FromRules, p.KernelBytes.GemmBF16)
		}
	})
	t.Run("no cuBLAS, no cuDNN", func(t *testing.T) {
		f := newFakeH200()
		f.noBLAS, f.noDNN = true, true
		p, err := runWith(f, Options{}, nil2(), fixedNow)
		if err != nil {
			t.Fatal(err)
		}
		if p.KernelBytes.GemmFP32 != 0 || p.KernelBytes.Conv != 0 || p.KernelBytes.Training != 224*MiB {
			t.Errorf("kernel bytes %+v", p.KernelBytes)
		}
		if slices.Contains(p.Provenance.Measured, "kernel_bytes.gemm_fp32") {
			t.Errorf("gemm_fp32 claimed measured: %v", p.Provenance.Measured)
		}
	})
	t.Run("Lt fails", func(t *testing.T) {
		f := newFakeH200()
		f.failLt = true
		p, err := runWith(f, Options{}, nil2(), fixedNow)
		if err != nil {
			t.Fatal(err)
		}
		if p.KernelBytes.GemmBF16 != 58*MiB || !hasNote(p, "cuBLASLt bias GEMM failed") {
			t.Errorf("bf16 %d notes %v", p.KernelBytes.GemmBF16, p.Provenance.Notes)
		}
	})
	t.Run("big kernels raise the rules", func(t *testing.T) {
		f := newFakeH200()
		f.kernelCost[GemmFP32.String()] = 300 * MiB
		p, err := runWith(f, Options{}, nil2(), fixedNow)
		if err != nil {
			t.Fatal(err)
		}
		if p.KernelBytes.Training != 362*MiB || p.KernelBytes.Inference != 362*MiB { // 4 + 300 + 58
			t.Errorf("kernel bytes %+v", p.KernelBytes)
		}
	})
	t.Run("A100 workspace", func(t *testing.T) {
		f := newFakeH200()
		f.info.Name, f.info.Major = "NVIDIA A100-SXM4-80GB", 8
		p, err := runWith(f, Options{}, nil2(), fixedNow)
		if err != nil {
			t.Fatal(err)
		}
		if p.CublasWorkspaceBytes != 4096*1024*2+16*1024*8 || p.Name != "a100-sxm4-80gb" || p.ComputeCapability != 80 {
			t.Errorf("workspace %d name %s cc %d", p.CublasWorkspaceBytes, p.Name, p.ComputeCapability)
		}
	})
	t.Run("bad device", func(t *testing.T) {
		_, err := runWith(newFakeH200(), Options{Device: 3}, nil2(), fixedNow)
		if err == nil || !strings.Contains(err.Error(), "device 3") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("open fails", func(t *testing.T) {
		f := newFakeH200()
		f.openErr = errors.New("cannot load the CUDA driver: boom")
		if _, err := runWith(f, Options{}, nil2(), fixedNow); err != f.openErr {
			t.Errorf("err = %v", err)
		}
	})
}

func nil2() *bytes.Buffer { return &bytes.Buffer{} }

func hasNote(p *Profile, s string) bool {
	for _, n := range p.Provenance.Notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// On this machine there is no GPU: Run must fail with one clear line.
func TestRunWithoutDriver(t *testing.T) {
	if _, err := os.Stat("/dev/nvidiactl"); err == nil {
		t.Skip("an NVIDIA driver is present")
	}
	for _, d := range driverDirs {
		if _, err := os.Stat(filepath.Join(d, "libcuda.so.1")); err == nil {
			t.Skipf("libcuda.so.1 is present in %s", d)
		}
	}
	var progress bytes.Buffer
	out := filepath.Join(t.TempDir(), "p.yaml")
	p, err := Run(Options{Output: out}, &progress)
	if err == nil {
		t.Fatalf("Run succeeded without a driver: %+v", p)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("error is not one line: %q", msg)
	}
	for _, want := range []string{"cannot load the CUDA driver", "built-in profiles", "h200", "still work"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q: %s", want, msg)
		}
	}
	if runtime.GOOS == "linux" && strings.Contains(msg, "cgo") == false && !strings.Contains(msg, "libcuda.so.1") {
		t.Errorf("error does not name libcuda.so.1: %s", msg)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a profile file was written: %v", err)
	}
}

func TestProfileKey(t *testing.T) {
	for in, want := range map[string]string{
		"NVIDIA H200":               "h200",
		"NVIDIA A100-SXM4-80GB":     "a100-sxm4-80gb",
		"NVIDIA GeForce RTX 4090":   "rtx-4090",
		"Tesla V100-SXM2-16GB":      "v100-sxm2-16gb",
		"  NVIDIA H100 80GB HBM3  ": "h100-80gb-hbm3",
		"???":                       "gpu",
	} {
		if got := ProfileKey(in); got != want {
			t.Errorf("ProfileKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTorchWorkspaceSizes(t *testing.T) {
	for _, c := range []struct {
		major, minor int
		env          string
		want         int64
	}{
		{9, 0, "", 32 * MiB},
		{8, 0, "", 4096*1024*2 + 16*1024*8},
		{8, 9, "", 4096*1024*2 + 16*1024*8},
		{10, 0, "", 4096*1024*2 + 16*1024*8},
		{9, 0, ":4096:8", 32 * MiB},
		{9, 0, ":16:8", 128 * 1024},
		{8, 0, ":4096:2:16:8", 4096*1024*2 + 16*1024*8},
		{9, 0, "garbage", 32 * MiB},
	} {
		if got := TorchCublasWorkspaceBytes(c.major, c.minor, c.env); got != c.want {
			t.Errorf("TorchCublasWorkspaceBytes(%d, %d, %q) = %d, want %d", c.major, c.minor, c.env, got, c.want)
		}
	}
	if got := TorchCublasLtWorkspaceBytes("", 32*MiB); got != MiB {
		t.Errorf("Lt default = %d", got)
	}
	if got := TorchCublasLtWorkspaceBytes("65536", 32*MiB); got != 32*MiB {
		t.Errorf("Lt capped = %d", got)
	}
	if got := TorchCublasLtWorkspaceBytes("x", 32*MiB); got != MiB {
		t.Errorf("Lt bad value = %d", got)
	}
}
