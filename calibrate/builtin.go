package calibrate

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
)

// Builtin returns the profile named name, or an error listing the known names.
func Builtin(name string) (*Profile, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	for _, p := range builtinProfiles() {
		if p.Name == key {
			return p, nil
		}
	}
	return nil, fmt.Errorf("unknown GPU profile %q (known: %s; or a calibration file path)", name, strings.Join(BuiltinNames(), ", "))
}

// BuiltinNames lists the built-in profile names, sorted.
func BuiltinNames() []string {
	var names []string
	for _, p := range builtinProfiles() {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	return names
}

// h200YAML is the profile `memplan calibrate` wrote on an H200, with the
// figures it cannot measure taken from the public validation (see its
// provenance).
//
//go:embed profiles/h200.yaml
var h200YAML []byte

// builtinProfiles builds the built-in profiles afresh (no shared mutable state).
func builtinProfiles() []*Profile {
	h200, err := Parse(h200YAML, "calibrate/profiles/h200.yaml")
	if err != nil {
		panic("calibrate: the embedded H200 profile does not parse: " + err.Error()) // caught by the tests
	}
	h200.Name = "h200"
	out := []*Profile{h200}
	for _, d := range datasheetGPUs {
		out = append(out, d.profile())
	}
	return out
}

// datasheetGPU is a common GPU with no calibration run: its memory from
// the datasheet and nvidia-smi, its overheads from the H200 rules.
type datasheetGPU struct {
	name, gpuName string
	cc            int
	nvmlMiB       int64 // nvidia-smi's total
	cudaMiB       int64 // cudaMemGetInfo's total as PyTorch reports it; 0: not known
	cudaNote      string
}

// The CUDA-visible totals are the "total capacity" PyTorch's out-of-memory
// message reports on these cards (GiB to two decimals, rounded down to
// 2 MiB); they vary by about 0.1 GiB with the driver.
var datasheetGPUs = []datasheetGPU{
	{"a100-40gb", "NVIDIA A100-SXM4-40GB", 80, 40960, 40540, "39.59 GiB as PyTorch reports it"},
	{"a100-80gb", "NVIDIA A100-SXM4-80GB", 80, 81920, 81048, "79.15 GiB as PyTorch reports it"},
	{"h100-80gb", "NVIDIA H100 80GB HBM3", 90, 81559, 81008, "79.11 GiB as PyTorch reports it"},
	{"l4", "NVIDIA L4", 89, 23034, 0, ""},
	{"l40s", "NVIDIA L40S", 89, 46068, 45486, "44.42 GiB as PyTorch reports it"},
	{"rtx-4090", "NVIDIA GeForce RTX 4090", 89, 24564, 24216, "23.65 GiB as PyTorch reports it"},
	{"rtx-3090", "NVIDIA GeForce RTX 3090", 86, 24576, 24258, "23.69 GiB as PyTorch reports it"},
}

func (d datasheetGPU) profile() *Profile {
	major, minor := d.cc/10, d.cc%10
	ws := TorchCublasWorkspaceBytes(major, minor, "")
	total := d.cudaMiB * MiB
	totalNote := "total_bytes: CUDA-visible memory, " + d.cudaNote + " (varies about 0.1 GiB with the driver)"
	if d.cudaMiB == 0 {
		total = d.nvmlMiB * MiB
		totalNote = "total_bytes: nvidia-smi's total; what CUDA can allocate is somewhat less (the driver keeps some, 615 MiB on the H200)"
	}
	return &Profile{
		Name:              d.name,
		GPUName:           d.gpuName,
		TotalBytes:        total,
		NVMLTotalBytes:    d.nvmlMiB * MiB,
		ComputeCapability: d.cc,
		ContextBytes:      ruleContextBytes,
		KernelBytes: KernelBytes{
			Training:       ruleTrainingKernelBytes,
			Inference:      ruleInferenceKernelBytes,
			FusedTraining:  ruleFusedTrainingBytes,
			FusedInference: ruleFusedInferenceBytes,
		},
		WindowBytes:            ruleWindowBytes(),
		CublasWorkspaceBytes:   ws,
		CublasLtWorkspaceBytes: TorchCublasLtWorkspaceBytes("", ws),
		AllocationGranularity:  ruleGranularity,
		Calibrated:             false,
		Provenance: Provenance{
			Source: "uncalibrated: datasheet memory, context/kernel figures from the H200 rules",
			FromRules: []string{"total_bytes", "nvml_total_bytes", "context_bytes", "kernel_bytes.training", "kernel_bytes.inference",
				"window_bytes.gemm_handle", "window_bytes.gemm_kernel", "window_bytes.cast", "window_bytes.pow", "cublas_workspace_bytes", "cublaslt_workspace_bytes", "allocation_granularity"},
			Notes: []string{
				totalNote,
				"nvml_total_bytes: nvidia-smi's total for this card",
				"context_bytes, kernel_bytes, window_bytes, allocation_granularity: measured on an H200 (driver 580.159, CUDA 13.0, torch 2.11.0+cu130), not on this GPU; run `memplan calibrate` on one to measure the first three (window_bytes needs PyTorch: probe/module_addresses.py)",
				fmt.Sprintf("cublas_workspace_bytes: %s for compute capability %d.%d: %s", torchWorkspaceModel, major, minor, mib(ws)),
			},
		},
	}
}
