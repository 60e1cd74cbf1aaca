package calibrate

import (
	"fmt"
	"sort"
	"strings"
)

// Builtin returns the profile named name, or an error listing the known names.
func Builtin(name string) (*Profile, error) {
	for _, p := range builtinProfiles() {
		if p.Name == strings.ToLower(name) {
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

// builtinProfiles builds the built-in profiles afresh (no shared mutable state).
func builtinProfiles() []*Profile {
	return []*Profile{
		{
			// From shared/validation/h200/probe-seed.json and the public cases:
			// NVML process memory 518 MiB after the context; a training step
			// adds ~220-245 MiB of lazily loaded kernels, inference 168 MiB.
			Name:                   "h200",
			GPUName:                "NVIDIA H200",
			TotalBytes:             150109880320,
			NVMLTotalBytes:         143771 * MiB,
			ComputeCapability:      90,
			ContextBytes:           543162368,
			KernelBytes:            KernelBytes{Training: 232 * MiB, Inference: 168 * MiB, GemmFP32: 98 * MiB, GemmBF16: 92 * MiB},
			CublasWorkspaceBytes:   32 * MiB,
			CublasLtWorkspaceBytes: 1 * MiB,
			AllocationGranularity:  2 * MiB,
			Calibrated:             true,
			Provenance: Provenance{
				Source: "probe-seed.json and the public validation cases (H200, driver 580.159, CUDA 13.0, torch 2.11.0+cu130)",
				Driver: "580.159", CUDA: "13.0",
				Measured: []string{"context_bytes", "cublas_workspace_bytes", "cublaslt_workspace_bytes", "kernel_bytes"},
			},
		},
	}
}
