package calibrate

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/memplan/memplan/spec"
)

// Options are the settings of one `memplan calibrate` run.
type Options struct {
	// Device is the CUDA device ordinal to measure (as CUDA numbers them,
	// after CUDA_VISIBLE_DEVICES).
	Device int
	// Output is where the caller will write the profile (WriteFile); Run
	// itself writes nothing.
	Output string
	// Convs are convolution geometries whose cuDNN workspaces to measure
	// (`--convs`: every convolution of the given descriptions, at the
	// batch sizes spec.ConvTableBatches lists and their own); they go into
	// the profile's conv_workspaces.
	Convs []spec.ConvGeometry
}

// Rules for what the probe cannot measure: they come from the public H200
// validation (torch 2.11.0+cu130, driver 580.159, CUDA 13.0), where the
// NVML per-process memory at the end of a training step minus reserved
// minus the 518 MiB context was 222–244 MiB over five training cases, and
// an inference forward grew it by 168 MiB.
const (
	ruleTrainingKernelBytes  = 224 * MiB
	ruleInferenceKernelBytes = 160 * MiB
	ruleFusedTrainingBytes   = 16 * MiB
	ruleFusedInferenceBytes  = 8 * MiB
	ruleContextBytes         = 518 * MiB
	ruleGranularity          = 2 * MiB
	// The address space a first GEMM's cuBLAS handle and kernel module
	// take in the driver's window (windowRule).
	ruleWindowGemmHandle = 64 * MiB
	ruleWindowGemmKernel = 96 * MiB
	ruleWindowCast       = 32 * MiB
	ruleWindowPow        = 64 * MiB
)

// windowRule is where window_bytes comes from.
const windowRule = "H200, driver 580.159, torch 2.11.0+cu130 (probe/module_addresses.py): a first fp32 or bf16 GEMM in a window filled downward mapped 64 MiB before its 32 MiB cuBLAS workspace segment and 96 MiB after it, a first cast to bf16 32 MiB, a first pow then mean 64 MiB; no probe without PyTorch sees it"

// Probe sizes: the GEMMs are the probe-seed's (1024×1024), the convolution
// the 3×3 one PYTORCH-MEMORY.md measured (32×64×56×56 fp32).
const (
	probeGemmN        = 1024
	probeSmallAlloc   = 512
	probeSegmentBytes = 20 * MiB
)

var probeConv = ConvShape{N: 32, C: 64, H: 56, W: 56, K: 64, R: 3}

// The kernel rules, as the profiles' provenance states them.
const (
	kernelRuleTraining  = "H200, torch 2.11.0+cu130: NVML per-process memory after a training step minus reserved minus the 518 MiB context was 222-224 MiB over 38 measured runs that run no cuDNN convolution and no 16-bit fused attention (fp32 and bf16 GEMMs, layer norm, GELU, fp32 memory-efficient attention, AdamW; probe/kernel_modules.py: 224 MiB for an MLP step alone); 224 MiB taken. It holds the cuBLAS handle and kernels, PyTorch's own kernels (about 90 MiB at its first elementwise kernel) and more"
	kernelRuleInference = "H200: an inference forward without cuDNN convolutions or 16-bit fused attention grew it by 158-160 MiB (probe/kernel_modules.py; six measured fp32 LM runs); 160 MiB taken"
	kernelRuleFused     = "H200 (probe/kernel_modules.py): a cuDNN convolution or a 16-bit flash/memory-efficient SDPA adds one module, +16 MiB to a training step (224 -> 240; 96 measured runs read 240-244) and +8 MiB to an inference forward (158 -> 166); both together add it once"
)

// Run measures the GPU through cgo (dlopen at run time) and returns the
// profile; progress gets one line per step. Without a GPU, a driver or cgo
// it returns an error of one line that says what could not be loaded.
func Run(opts Options, progress io.Writer) (*Profile, error) {
	if progress == nil {
		progress = io.Discard
	}
	d, err := newDriver()
	if err != nil {
		return nil, err
	}
	// PyTorch sets CUDA_MODULE_LOADING=LAZY when it is unset; the kernel
	// figures mean what they mean only under lazy loading.
	if os.Getenv("CUDA_MODULE_LOADING") == "" {
		os.Setenv("CUDA_MODULE_LOADING", "LAZY")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p, err := runWith(d, opts, progress, time.Now)
	if cerr := d.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("closing the CUDA libraries: %w", cerr)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// meter reads the per-process memory the way nvidia-smi shows it and keeps
// the steps.
type meter struct {
	d        Driver
	method   string
	pid      int
	baseUsed int64 // device used before the context (nvml-device)
	last     int64
	lastFree int64
	steps    []ProbeStep
}

func (m *meter) used() (int64, error) {
	switch m.method {
	case "nvml-process":
		procs, _, err := m.d.ProcessMemory()
		if err != nil {
			return 0, err
		}
		for _, p := range procs {
			if p.Pid == m.pid {
				return p.UsedBytes, nil
			}
		}
		return 0, fmt.Errorf("NVML no longer lists process %d", m.pid)
	case "nvml-device":
		_, dev, err := m.d.ProcessMemory()
		return dev - m.baseUsed, err
	default: // cuda-free: device-wide used as CUDA sees it
		free, total, err := m.d.MemGetInfo()
		return total - free, err
	}
}

// step reads after an action and records the growth since the last reading.
func (m *meter) step(name, note string) (ProbeStep, error) {
	if err := m.d.Sync(); err != nil {
		return ProbeStep{}, fmt.Errorf("%s: synchronizing: %w", name, err)
	}
	u, err := m.used()
	if err != nil {
		return ProbeStep{}, fmt.Errorf("%s: reading process memory: %w", name, err)
	}
	free, _, err := m.d.MemGetInfo()
	if err != nil {
		return ProbeStep{}, fmt.Errorf("%s: cuMemGetInfo: %w", name, err)
	}
	s := ProbeStep{Step: name, UsedBytes: u, GrowthBytes: u - m.last, FreeDropBytes: m.lastFree - free, Note: note}
	m.last, m.lastFree = u, free
	m.steps = append(m.steps, s)
	return s, nil
}

// figures collects which profile keys were measured and which came from rules.
type figures struct {
	measured, rules, notes []string
}

func (f *figures) measure(keys ...string) { f.measured = append(f.measured, keys...) }
func (f *figures) rule(key, note string) {
	f.rules = append(f.rules, key)
	if note != "" {
		f.notes = append(f.notes, key+": "+note)
	}
}
func (f *figures) note(format string, a ...any) { f.notes = append(f.notes, fmt.Sprintf(format, a...)) }

// runWith is Run on a given driver; tests pass a fake.
func runWith(d Driver, opts Options, progress io.Writer, now func() time.Time) (*Profile, error) {
	say := func(format string, a ...any) { fmt.Fprintf(progress, format+"\n", a...) }
	var f figures
	pr := &Probe{}

	// 1. Libraries.
	libs, err := d.Open()
	if err != nil {
		return nil, err
	}
	pr.Libraries = append(pr.Libraries, libs...)
	say("loaded %s", libList(libs))

	// 2. The device.
	info, err := d.Device(opts.Device)
	if err != nil {
		return nil, fmt.Errorf("selecting CUDA device %d: %w", opts.Device, err)
	}
	cudaVer := fmt.Sprintf("%d.%d", info.CUDAVersion/1000, info.CUDAVersion%1000/10)
	pr.CUDADeviceTotalBytes = info.CUDATotalBytes
	say("device %d: %s, compute capability %d.%d, %s (NVML) / %s (cuDeviceTotalMem), driver %s, CUDA %s",
		opts.Device, info.Name, info.Major, info.Minor, mib(info.NVMLTotalBytes), mib(info.CUDATotalBytes), orDash(info.DriverVersion), cudaVer)
	if ml := os.Getenv("CUDA_MODULE_LOADING"); ml != "" && ml != "LAZY" {
		f.note("CUDA_MODULE_LOADING=%s: kernels load eagerly, so the context holds them and the kernel figures are near zero", ml)
		say("warning: CUDA_MODULE_LOADING=%s; PyTorch's default is LAZY", ml)
	}

	// 3. Before the context.
	m := &meter{d: d, pid: d.Pid()}
	_, devBefore, nvmlErr := d.ProcessMemory()
	switch {
	case errors.Is(nvmlErr, ErrNoNVML):
		m.method = "cuda-free"
		say("NVML not available: growth read from cuMemGetInfo (device-wide); the context figure comes from the rules")
	case nvmlErr != nil:
		return nil, fmt.Errorf("reading NVML before the context: %w", nvmlErr)
	default:
		pr.DeviceUsedBeforeBytes = devBefore
		m.baseUsed = devBefore
		say("before the context: device used %s (memory the driver keeps)", mib(devBefore))
	}

	// 4. The context.
	if err := d.RetainPrimaryContext(); err != nil {
		return nil, fmt.Errorf("creating the CUDA context on device %d: %w", opts.Device, err)
	}
	free, total, err := d.MemGetInfo()
	if err != nil {
		return nil, fmt.Errorf("cuMemGetInfo: %w", err)
	}
	var contextBytes int64
	if m.method != "cuda-free" {
		procs, devAfter, err := d.ProcessMemory()
		if err != nil {
			return nil, fmt.Errorf("reading NVML after the context: %w", err)
		}
		m.method = "nvml-device"
		for _, p := range procs {
			if p.Pid == m.pid {
				m.method = "nvml-process"
			}
		}
		if m.method != "nvml-process" && len(procs) == 1 {
			f.note("NVML lists process %d, not this one (%d): another PID namespace; its figure is taken as this process's", procs[0].Pid, m.pid)
			m.pid = procs[0].Pid
			m.method = "nvml-process"
		}
		if m.method == "nvml-device" {
			f.note("NVML lists no process for this one: growth read from the device's used memory")
		}
		u, err := m.used()
		if err != nil {
			return nil, fmt.Errorf("reading NVML after the context: %w", err)
		}
		contextBytes = u
		m.last, m.lastFree = u, free
		m.steps = append(m.steps, ProbeStep{Step: "context", UsedBytes: u, GrowthBytes: u,
			Note: fmt.Sprintf("cuDevicePrimaryCtxRetain + cuCtxSynchronize; device used grew %s", mib(devAfter-devBefore))})
		f.measure("context_bytes")
		say("context: %s per process (%s); device used +%s; CUDA total %s, free %s", mib(u), m.method, mib(devAfter-devBefore), mib(total), mib(free))
	} else {
		contextBytes = ruleContextBytes
		u, _ := m.used()
		m.last, m.lastFree = u, free
		m.steps = append(m.steps, ProbeStep{Step: "context", UsedBytes: u, Note: "not measurable without NVML"})
		f.rule("context_bytes", "H200 rule (518 MiB NVML per process, probe-seed.json): NVML was not available")
		say("context: not measurable without NVML; using %s from the H200 rule; CUDA total %s, free %s", mib(contextBytes), mib(total), mib(free))
	}
	pr.Method = m.method

	// 5. Allocation granularity: one small cuMemAlloc.
	if _, err := d.Alloc(probeSmallAlloc); err != nil {
		return nil, fmt.Errorf("cuMemAlloc(%d): %w", probeSmallAlloc, err)
	}
	s, err := m.step("cuMemAlloc 512 B", "")
	if err != nil {
		return nil, err
	}
	gran := s.FreeDropBytes
	switch {
	case gran > 0:
		f.measure("allocation_granularity")
	case s.GrowthBytes > 0:
		gran = s.GrowthBytes
		f.measure("allocation_granularity")
	default:
		gran = ruleGranularity
		f.rule("allocation_granularity", "a 512 B cuMemAlloc moved neither free memory nor NVML; 2 MiB assumed")
	}
	say("allocation granularity: a 512 B cuMemAlloc took %s of free memory, %s per process", mib(s.FreeDropBytes), mib(s.GrowthBytes))

	// 6. One segment as the caching allocator would ask for it.
	if _, err := d.Alloc(probeSegmentBytes); err != nil {
		return nil, fmt.Errorf("cuMemAlloc(20 MiB): %w", err)
	}
	s, err = m.step("cuMemAlloc 20 MiB", "one large-pool segment of the caching allocator")
	if err != nil {
		return nil, err
	}
	say("a 20 MiB segment: +%s per process, free memory -%s", mib(s.GrowthBytes), mib(s.FreeDropBytes))

	kb := KernelBytes{}
	wsBytes := TorchCublasWorkspaceBytes(info.Major, info.Minor, os.Getenv("CUBLAS_WORKSPACE_CONFIG"))
	ltBytes := TorchCublasLtWorkspaceBytes(os.Getenv("CUBLASLT_WORKSPACE_SIZE"), wsBytes)
	f.rule("cublas_workspace_bytes", fmt.Sprintf("%s for compute capability %d.%d (CUBLAS_WORKSPACE_CONFIG=%s): %s per (handle, stream)",
		torchWorkspaceModel, info.Major, info.Minor, orUnset(os.Getenv("CUBLAS_WORKSPACE_CONFIG")), mib(wsBytes)))
	f.rule("cublaslt_workspace_bytes", fmt.Sprintf("%s (CUBLASLT_WORKSPACE_SIZE=%s): %s per (handle, stream)",
		torchWorkspaceModel, orUnset(os.Getenv("CUBLASLT_WORKSPACE_SIZE")), mib(ltBytes)))

	// 7. cuBLAS: handle, workspace, the first GEMM of each kind.
	var handleBytes, ltKernels int64 // per-process growth at cublasCreate and at the Lt bias GEMM
	blasLibs, err := d.LoadBLAS(info.CUDAVersion / 1000)
	switch {
	case errors.Is(err, ErrNotFound):
		say("cuBLAS not found: GEMM kernels not measured")
		f.note("cuBLAS was not found: gemm_fp32 and gemm_bf16 not measured")
	case err != nil:
		return nil, fmt.Errorf("loading cuBLAS: %w", err)
	default:
		pr.Libraries = append(pr.Libraries, blasLibs...)
		say("loaded %s", libList(blasLibs))
		if err := d.CublasCreate(); err != nil {
			return nil, fmt.Errorf("cublasCreate: %w", err)
		}
		s, err := m.step("cublasCreate", "PyTorch creates its cuBLAS handle at its first GEMM")
		if err != nil {
			return nil, err
		}
		handleBytes = s.GrowthBytes
		say("cublasCreate: +%s per process", mib(s.GrowthBytes))

		n := int64(probeGemmN)
		ws, err := d.Alloc(wsBytes)
		if err != nil {
			return nil, fmt.Errorf("allocating the cuBLAS workspace: %w", err)
		}
		if err := d.CublasSetWorkspace(ws, wsBytes); err != nil {
			return nil, fmt.Errorf("cublasSetWorkspace: %w", err)
		}
		calls := map[GemmKind]*GemmCall{}
		var bufBytes int64
		for _, k := range []GemmKind{GemmFP32, GemmBF16, GemmFP32BiasLt} {
			c := &GemmCall{Kind: k, N: probeGemmN}
			for _, p := range []*DevicePtr{&c.A, &c.B, &c.C} {
				if *p, err = d.Alloc(n * n * k.ElemBytes()); err != nil {
					return nil, fmt.Errorf("allocating GEMM matrices: %w", err)
				}
				bufBytes += n * n * k.ElemBytes()
			}
			calls[k] = c
		}
		lt := calls[GemmFP32BiasLt]
		if lt.Bias, err = d.Alloc(n * 4); err != nil {
			return nil, fmt.Errorf("allocating the bias: %w", err)
		}
		if lt.Workspace, err = d.Alloc(ltBytes); err != nil {
			return nil, fmt.Errorf("allocating the cuBLASLt workspace: %w", err)
		}
		lt.WorkspaceBytes = ltBytes
		s, err = m.step("GEMM buffers", fmt.Sprintf("cuBLAS workspace %s, cuBLASLt workspace %s, matrices and bias %s", mib(wsBytes), mib(ltBytes), mib(bufBytes+n*4)))
		if err != nil {
			return nil, err
		}
		say("buffers: cuBLAS workspace %s (PyTorch's size for sm_%d%d), cuBLASLt %s, matrices %s: +%s per process",
			mib(wsBytes), info.Major, info.Minor, mib(ltBytes), mib(bufBytes+n*4), mib(s.GrowthBytes))

		for _, k := range []GemmKind{GemmFP32, GemmBF16, GemmFP32BiasLt} {
			name := fmt.Sprintf("first %s %d×%d", k, probeGemmN, probeGemmN)
			if err := d.Gemm(*calls[k]); err != nil {
				if k == GemmFP32BiasLt {
					say("%s failed (%v): not measured", k, err)
					f.note("the cuBLASLt bias GEMM failed (%v): not measured", err)
					continue
				}
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			s, err := m.step(name, "growth from kernels loaded at first use")
			if err != nil {
				return nil, err
			}
			switch k {
			case GemmFP32:
				// What PyTorch's first GEMM pays outside the allocator:
				// the handle (created there) and the kernels.
				kb.GemmFP32 = handleBytes + s.GrowthBytes
				f.measure("kernel_bytes.gemm_fp32")
				f.note("kernel_bytes.gemm_fp32: cublasCreate %s + first fp32 GEMM %s (PyTorch creates the handle at its first GEMM)", mib(handleBytes), mib(s.GrowthBytes))
			case GemmBF16:
				kb.GemmBF16 = s.GrowthBytes
				f.measure("kernel_bytes.gemm_bf16")
				f.note("kernel_bytes.gemm_bf16: %s, what a first bf16 GEMM adds after an fp32 one", mib(s.GrowthBytes))
			default:
				ltKernels = s.GrowthBytes
				f.note("a first fp32 GEMM with bias through cuBLASLt (Linear with bias) added %s", mib(s.GrowthBytes))
			}
			say("%s: +%s per process", name, mib(s.GrowthBytes))
		}
	}

	// 8. cuDNN: handle and a first convolution.
	dnnLibs, err := d.LoadDNN()
	if err != nil && len(opts.Convs) > 0 {
		return nil, fmt.Errorf("measuring convolution workspaces (--convs) needs cuDNN: %w", err)
	}
	var convs []ConvWorkspace
	switch {
	case errors.Is(err, ErrNotFound):
		say("cuDNN not found: convolution kernels not measured")
		f.note("cuDNN was not found: kernel_bytes.conv not measured")
	case err != nil:
		say("cuDNN could not be loaded (%v): convolution kernels not measured", err)
		f.note("cuDNN could not be loaded (%v): kernel_bytes.conv not measured", err)
	default:
		pr.Libraries = append(pr.Libraries, dnnLibs...)
		say("loaded %s", libList(dnnLibs))
		conv, err := measureConv(d, m)
		if err != nil {
			say("convolution not measured: %v", err)
			f.note("the cuDNN convolution failed (%v): kernel_bytes.conv not measured", err)
		} else {
			kb.Conv = conv.handle + conv.kernels
			f.measure("kernel_bytes.conv")
			f.note("kernel_bytes.conv: cudnnCreate %s + first convolution %s (%s, %s)", mib(conv.handle), mib(conv.kernels), convString(probeConv), conv.algo)
			say("cudnnCreate: +%s per process; first convolution, %s (%s, workspace %s): +%s per process",
				mib(conv.handle), convString(probeConv), conv.algo, mib(conv.workspace), mib(conv.kernels))
		}
		if len(opts.Convs) > 0 {
			if err != nil {
				return nil, fmt.Errorf("measuring convolution workspaces (--convs): %w", err)
			}
			if convs, err = measureConvWorkspaces(d, opts.Convs, say); err != nil {
				return nil, err
			}
			f.measure("conv_workspaces")
			f.note("conv_workspaces: %d convolution geometries, each pass's engine chosen as PyTorch's cuDNN v8 path chooses it (heuristics mode INSTANT, its filter, the first config that builds and runs) and its workspace read from the plan", len(convs))
		}
	}

	// 9. What a whole step loads: from the rules, never below what the
	// probe's two GEMM kinds loaded here. A step also loads PyTorch's own
	// kernels (libtorch_cuda), which no probe without PyTorch can see.
	kb.Training, kb.Inference = ruleTrainingKernelBytes, ruleInferenceKernelBytes
	kb.FusedTraining, kb.FusedInference = ruleFusedTrainingBytes, ruleFusedInferenceBytes
	window := ruleWindowBytes()
	f.rule("window_bytes.gemm_handle", windowRule)
	f.rule("window_bytes.gemm_kernel", "")
	f.rule("window_bytes.cast", "")
	f.rule("window_bytes.pow", "")
	f.rule("kernel_bytes.training", kernelRuleTraining)
	f.rule("kernel_bytes.inference", kernelRuleInference)
	f.rule("kernel_bytes.fused_training", kernelRuleFused)
	f.rule("kernel_bytes.fused_inference", kernelRuleFused)
	floor := kb.GemmFP32 + kb.GemmBF16
	if floor > kb.Training {
		kb.Training = floor
		f.note("kernel_bytes.training raised to the GEMMs as measured (%s)", mib(floor))
	}
	if floor > kb.Inference {
		kb.Inference = floor
		f.note("kernel_bytes.inference raised to the GEMMs as measured (%s)", mib(floor))
	}
	all := kb.GemmFP32 + kb.GemmBF16 + ltKernels + kb.Conv
	say("kernels over a step (rules): training %s, inference %s; all the probe loaded (handles, GEMMs, bias GEMM, convolution): %s",
		mib(kb.Training), mib(kb.Inference), mib(all))

	pr.Steps = m.steps
	prov := Provenance{
		Source: fmt.Sprintf("memplan calibrate on %s (CUDA device %d, PCI %s)", info.Name, opts.Device, orDash(info.PCIBusID)),
		Date:   now().UTC().Format(time.RFC3339),
		Driver: info.DriverVersion,
		CUDA:   cudaVer,
	}
	f.measure("total_bytes", "compute_capability")
	if info.NVMLTotalBytes > 0 {
		f.measure("nvml_total_bytes")
	}
	prov.Measured, prov.FromRules, prov.Notes = f.measured, f.rules, f.notes
	p := &Profile{
		Name:                   ProfileKey(info.Name),
		GPUName:                info.Name,
		TotalBytes:             total,
		NVMLTotalBytes:         info.NVMLTotalBytes,
		ComputeCapability:      info.Major*10 + info.Minor,
		ContextBytes:           contextBytes,
		KernelBytes:            kb,
		WindowBytes:            window,
		CublasWorkspaceBytes:   wsBytes,
		CublasLtWorkspaceBytes: ltBytes,
		AllocationGranularity:  gran,
		ConvWorkspaces:         convs,
		Calibrated:             true,
		Provenance:             prov,
		Probe:                  pr,
	}
	return p, nil
}

type convResult struct {
	handle, kernels, workspace int64
	algo                       string
}

func measureConv(d Driver, m *meter) (convResult, error) {
	var r convResult
	if err := d.CudnnCreate(); err != nil {
		return r, fmt.Errorf("cudnnCreate: %w", err)
	}
	s, err := m.step("cudnnCreate", "")
	if err != nil {
		return r, err
	}
	r.handle = s.GrowthBytes
	ws, algo, err := d.ConvPlan(probeConv)
	if err != nil {
		return r, fmt.Errorf("planning the convolution: %w", err)
	}
	r.workspace, r.algo = ws, algo
	var bufs [4]DevicePtr
	for i, b := range []int64{probeConv.InputBytes(), probeConv.WeightBytes(), probeConv.OutputBytes(), ws} {
		if b == 0 {
			continue
		}
		if bufs[i], err = d.Alloc(b); err != nil {
			return r, fmt.Errorf("allocating convolution buffers: %w", err)
		}
	}
	if _, err := m.step("convolution buffers", fmt.Sprintf("input, weight, output and a %s workspace", mib(ws))); err != nil {
		return r, err
	}
	if err := d.Conv(probeConv, bufs[0], bufs[1], bufs[2], bufs[3], ws); err != nil {
		return r, fmt.Errorf("cudnnConvolutionForward: %w", err)
	}
	s, err = m.step("first convolution "+convString(probeConv), "algorithm "+algo+"; growth from kernels loaded at first use")
	if err != nil {
		return r, err
	}
	r.kernels = s.GrowthBytes
	return r, nil
}

// measureConvWorkspaces measures every geometry's three workspaces. A
// geometry whose tensors do not fit in the free memory is skipped and
// said; the others fail the run on error.
func measureConvWorkspaces(d Driver, geos []spec.ConvGeometry, say func(string, ...any)) ([]ConvWorkspace, error) {
	var out []ConvWorkspace
	skipped := 0
	for _, g := range geos {
		choices, err := d.ConvWorkspaces(g)
		if errors.Is(err, ErrOutOfMemory) {
			skipped++
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("measuring the workspaces of %s: %w", geometryString(g), err)
		}
		var ws, engines [3]int64
		for i, c := range choices {
			ws[i], engines[i] = c.WorkspaceBytes, c.Engine
		}
		out = append(out, convWorkspaceOf(g, ws, engines))
	}
	say("convolution workspaces: %d geometries measured (three passes each)", len(out))
	if skipped > 0 {
		say("%d geometries skipped: their tensors do not fit in the free memory", skipped)
	}
	return out, nil
}

// geometryString names a convolution for messages.
func geometryString(g spec.ConvGeometry) string {
	return fmt.Sprintf("%s %dx%d conv (stride %d, pad %d, groups %d) of %d×%d×%d×%d to %d channels",
		g.DType, g.KH, g.KW, g.Stride, g.Pad, max(g.Groups, 1), g.N, g.Cin, g.H, g.W, g.Cout)
}

func convString(c ConvShape) string {
	return fmt.Sprintf("%dx%d fp32 on %d×%d×%d×%d", c.R, c.R, c.N, c.C, c.H, c.W)
}

// ProfileKey turns an NVML device name into a profile key:
// "NVIDIA H200" → "h200", "NVIDIA A100-SXM4-80GB" → "a100-sxm4-80gb".
func ProfileKey(gpuName string) string {
	s := strings.TrimSpace(gpuName)
	for _, pre := range []string{"NVIDIA ", "Tesla ", "GeForce "} {
		s = strings.TrimPrefix(s, pre)
	}
	s = strings.ToLower(s)
	var b strings.Builder
	dash := false
	for _, r := range s {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	k := strings.TrimSuffix(b.String(), "-")
	if k == "" {
		return "gpu"
	}
	return k
}

func libList(libs []Library) string {
	var parts []string
	for _, l := range libs {
		s := l.Name
		if l.Version != "" {
			s += " " + l.Version
		}
		parts = append(parts, s+" ("+l.Path+")")
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// mib formats bytes as MiB, exact when whole.
func mib(b int64) string {
	if b%MiB == 0 {
		return fmt.Sprintf("%d MiB", b/MiB)
	}
	s := strings.TrimRight(fmt.Sprintf("%.3f", float64(b)/float64(MiB)), "0")
	return s + " MiB"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func orUnset(s string) string {
	if s == "" {
		return "unset"
	}
	return s
}

// ruleWindowBytes is window_bytes as the H200 probe measured it (windowRule).
func ruleWindowBytes() WindowBytes {
	return WindowBytes{GemmHandle: ruleWindowGemmHandle, GemmKernel: ruleWindowGemmKernel, Cast: ruleWindowCast, Pow: ruleWindowPow}
}
