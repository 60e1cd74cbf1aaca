package calibrate

import (
	"regexp"
	"strconv"
	"strings"
)

// How PyTorch 2.11 sizes its cuBLAS workspaces
// (aten/src/ATen/cuda/CublasHandlePool.cpp). One workspace is allocated
// through the caching allocator per (cuBLAS handle, stream) at the first
// GEMM, so it counts as allocated memory:
//
//   - cuBLAS: CUBLAS_WORKSPACE_CONFIG (":SIZE_KiB:COUNT" pairs, summed) or,
//     unset, 4096 KiB × 8 = 32 MiB on compute capability 9.0 exactly (H100,
//     H200) and ":4096:2:16:8" = 4096 KiB × 2 + 16 KiB × 8 = 8.125 MiB on
//     every other GPU. A value with no ":SIZE:COUNT" pair falls back to the
//     default (PyTorch warns).
//   - cuBLASLt (addmm with a bias, i.e. Linear with bias): CUBLASLT_WORKSPACE_SIZE
//     in KiB, default 1024 KiB = 1 MiB, capped at the cuBLAS workspace size;
//     a separate workspace unless TORCH_CUBLASLT_UNIFIED_WORKSPACE=1.

// torchWorkspaceModel names the PyTorch source the sizes follow.
const torchWorkspaceModel = "PyTorch 2.11 aten/src/ATen/cuda/CublasHandlePool.cpp"

var workspaceConfigPair = regexp.MustCompile(`:([0-9]+):([0-9]+)`)

// TorchCublasWorkspaceBytes is the cuBLAS workspace PyTorch allocates per
// (handle, stream) on a GPU of compute capability major.minor, given the
// value of CUBLAS_WORKSPACE_CONFIG ("" when unset).
func TorchCublasWorkspaceBytes(major, minor int, config string) int64 {
	def := int64(4096*1024*2 + 16*1024*8)
	if major == 9 && minor == 0 {
		def = 4096 * 8 * 1024
	}
	if config == "" {
		return def
	}
	pairs := workspaceConfigPair.FindAllStringSubmatch(config, -1)
	if len(pairs) == 0 {
		return def
	}
	var total int64
	for _, m := range pairs {
		size, err1 := strconv.ParseInt(m[1], 10, 64)
		count, err2 := strconv.ParseInt(m[2], 10, 64)
		if err1 != nil || err2 != nil {
			return def
		}
		total += size * 1024 * count
	}
	return total
}

// TorchCublasLtWorkspaceBytes is the cuBLASLt workspace PyTorch allocates per
// (handle, stream), given CUBLASLT_WORKSPACE_SIZE in KiB ("" when unset) and
// the cuBLAS workspace size it is capped at.
func TorchCublasLtWorkspaceBytes(sizeKiB string, cublasBytes int64) int64 {
	kib := int64(1024)
	if v, err := strconv.ParseInt(strings.TrimSpace(sizeKiB), 10, 32); err == nil {
		kib = v
	}
	b := kib * 1024
	if cublasBytes > 0 && b > cublasBytes {
		b = cublasBytes
	}
	return b
}
