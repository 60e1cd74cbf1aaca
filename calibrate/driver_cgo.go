//go:build cgo

package calibrate

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Nothing of CUDA is needed to build this: the few types and prototypes
// the probe uses are declared here and every function is found with dlsym
// at run time.

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef unsigned long long CUdeviceptr;
typedef void *CUstream;
typedef int cublasStatus_t;
typedef void *cublasHandle_t;
typedef int cudnnStatus_t;
typedef void *cudnnHandle_t;

// cublasLt.h
typedef struct { uint64_t data[8]; } mp_cublasLtMatmulAlgo_t;
typedef struct {
	mp_cublasLtMatmulAlgo_t algo;
	size_t workspaceSize;
	cublasStatus_t state;
	float wavesCount;
	int reserved[4];
} mp_cublasLtMatmulHeuristicResult_t;

// cudnn_cnn.h (legacy API, still in cuDNN 9)
typedef struct {
	int algo;
	cudnnStatus_t status;
	float time;
	size_t memory;
	int determinism;
	int mathType;
	int reserved[3];
} mp_cudnnConvolutionFwdAlgoPerf_t;

enum {
	MP_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
	MP_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
	MP_CUBLAS_OP_N = 0,
	MP_CUDA_R_32F = 0,
	MP_CUDA_R_16BF = 14,
	MP_CUBLAS_COMPUTE_32F = 68,
	MP_CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99,
	MP_CUBLAS_DEFAULT_MATH = 0,
	MP_CUBLASLT_MATMUL_DESC_TRANSA = 3,
	MP_CUBLASLT_MATMUL_DESC_TRANSB = 4,
	MP_CUBLASLT_MATMUL_DESC_EPILOGUE = 7,
	MP_CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8,
	MP_CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1,
	MP_CUBLASLT_EPILOGUE_BIAS = 4,
	MP_CUDNN_TENSOR_NCHW = 0,
	MP_CUDNN_DATA_FLOAT = 0,
	MP_CUDNN_CROSS_CORRELATION = 1,
	MP_CUDNN_FWD_ALGO_IMPLICIT_PRECOMP_GEMM = 1,
};

static char mp_err[512];

static const char *mp_last_error(void) { return mp_err; }

// mp_open loads a library globally; on failure it keeps dlerror's reason in mp_err.
static void *mp_open(const char *path) {
	void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(mp_err, sizeof mp_err, "%s", e ? e : "dlopen failed");
	}
	return h;
}

#define MP_SYM(h, var, name) do { \
	*(void **)(&var) = dlsym(h, name); \
	if (!var) { snprintf(mp_err, sizeof mp_err, "symbol %s missing", name); return -2; } \
} while (0)

// ---- CUDA driver ----
static void *mp_cuda;
static CUresult (*p_cuInit)(unsigned int);
static CUresult (*p_cuDriverGetVersion)(int *);
static CUresult (*p_cuDeviceGetCount)(int *);
static CUresult (*p_cuDeviceGet)(CUdevice *, int);
static CUresult (*p_cuDeviceGetName)(char *, int, CUdevice);
static CUresult (*p_cuDeviceGetAttribute)(int *, int, CUdevice);
static CUresult (*p_cuDeviceTotalMem)(size_t *, CUdevice);
static CUresult (*p_cuDeviceGetPCIBusId)(char *, int, CUdevice);
static CUresult (*p_cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
static CUresult (*p_cuDevicePrimaryCtxRelease)(CUdevice);
static CUresult (*p_cuCtxSetCurrent)(CUcontext);
static CUresult (*p_cuCtxSynchronize)(void);
static CUresult (*p_cuMemGetInfo)(size_t *, size_t *);
static CUresult (*p_cuMemAlloc)(CUdeviceptr *, size_t);
static CUresult (*p_cuMemFree)(CUdeviceptr);
static CUresult (*p_cuGetErrorName)(CUresult, const char **);
static CUresult (*p_cuGetErrorString)(CUresult, const char **);

static int mp_load_cuda(const char *path) {
	mp_cuda = mp_open(path);
	if (!mp_cuda) return -1;
	MP_SYM(mp_cuda, p_cuInit, "cuInit");
	MP_SYM(mp_cuda, p_cuDriverGetVersion, "cuDriverGetVersion");
	MP_SYM(mp_cuda, p_cuDeviceGetCount, "cuDeviceGetCount");
	MP_SYM(mp_cuda, p_cuDeviceGet, "cuDeviceGet");
	MP_SYM(mp_cuda, p_cuDeviceGetName, "cuDeviceGetName");
	MP_SYM(mp_cuda, p_cuDeviceGetAttribute, "cuDeviceGetAttribute");
	MP_SYM(mp_cuda, p_cuDeviceTotalMem, "cuDeviceTotalMem_v2");
	MP_SYM(mp_cuda, p_cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId");
	MP_SYM(mp_cuda, p_cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
	MP_SYM(mp_cuda, p_cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
	MP_SYM(mp_cuda, p_cuCtxSetCurrent, "cuCtxSetCurrent");
	MP_SYM(mp_cuda, p_cuCtxSynchronize, "cuCtxSynchronize");
	MP_SYM(mp_cuda, p_cuMemGetInfo, "cuMemGetInfo_v2");
	MP_SYM(mp_cuda, p_cuMemAlloc, "cuMemAlloc_v2");
	MP_SYM(mp_cuda, p_cuMemFree, "cuMemFree_v2");
	MP_SYM(mp_cuda, p_cuGetErrorName, "cuGetErrorName");
	MP_SYM(mp_cuda, p_cuGetErrorString, "cuGetErrorString");
	return 0;
}

static const char *mp_cu_error(CUresult r) {
	const char *name = NULL, *str = NULL;
	if (p_cuGetErrorName) p_cuGetErrorName(r, &name);
	if (p_cuGetErrorString) p_cuGetErrorString(r, &str);
	snprintf(mp_err, sizeof mp_err, "%s (%d): %s", name ? name : "CUDA error", r, str ? str : "");
	return mp_err;
}

static CUresult mp_cuInit(void) { return p_cuInit(0); }
static CUresult mp_cuDriverGetVersion(int *v) { return p_cuDriverGetVersion(v); }
static CUresult mp_cuDeviceGetCount(int *n) { return p_cuDeviceGetCount(n); }
static CUresult mp_cuDeviceGet(CUdevice *d, int ordinal) { return p_cuDeviceGet(d, ordinal); }
static CUresult mp_cuDeviceGetName(char *buf, int n, CUdevice d) { return p_cuDeviceGetName(buf, n, d); }
static CUresult mp_cuDeviceGetAttribute(int *v, int attr, CUdevice d) { return p_cuDeviceGetAttribute(v, attr, d); }
static CUresult mp_cuDeviceTotalMem(size_t *b, CUdevice d) { return p_cuDeviceTotalMem(b, d); }
static CUresult mp_cuDeviceGetPCIBusId(char *buf, int n, CUdevice d) { return p_cuDeviceGetPCIBusId(buf, n, d); }
static CUcontext mp_ctx;
static CUresult mp_retain(CUdevice d) {
	CUresult r = p_cuDevicePrimaryCtxRetain(&mp_ctx, d);
	if (r) return r;
	r = p_cuCtxSetCurrent(mp_ctx);
	if (r) return r;
	return p_cuCtxSynchronize();
}
static CUresult mp_release(CUdevice d) { return mp_ctx ? p_cuDevicePrimaryCtxRelease(d) : 0; }
static CUresult mp_cuCtxSynchronize(void) { return p_cuCtxSynchronize(); }
static CUresult mp_cuMemGetInfo(size_t *f, size_t *t) { return p_cuMemGetInfo(f, t); }
static CUresult mp_cuMemAlloc(CUdeviceptr *p, size_t n) { return p_cuMemAlloc(p, n); }
static CUresult mp_cuMemFree(CUdeviceptr p) { return p_cuMemFree(p); }

// ---- cuBLAS and cuBLASLt ----
static void *mp_cublaslt, *mp_cublas;
static cublasStatus_t (*p_cublasCreate)(cublasHandle_t *);
static cublasStatus_t (*p_cublasDestroy)(cublasHandle_t);
static cublasStatus_t (*p_cublasSetWorkspace)(cublasHandle_t, void *, size_t);
static cublasStatus_t (*p_cublasSetMathMode)(cublasHandle_t, int);
static cublasStatus_t (*p_cublasGetProperty)(int, int *);
static cublasStatus_t (*p_cublasSgemm)(cublasHandle_t, int, int, int, int, int, const float *,
	const float *, int, const float *, int, const float *, float *, int);
static cublasStatus_t (*p_cublasGemmEx)(cublasHandle_t, int, int, int, int, int, const void *,
	const void *, int, int, const void *, int, int, const void *, void *, int, int, int, int);
static const char *(*p_cublasGetStatusString)(cublasStatus_t);
static cublasStatus_t (*p_ltDescCreate)(void **, int, int);
static cublasStatus_t (*p_ltDescDestroy)(void *);
static cublasStatus_t (*p_ltDescSet)(void *, int, const void *, size_t);
static cublasStatus_t (*p_ltLayoutCreate)(void **, int, uint64_t, uint64_t, int64_t);
static cublasStatus_t (*p_ltLayoutDestroy)(void *);
static cublasStatus_t (*p_ltPrefCreate)(void **);
static cublasStatus_t (*p_ltPrefDestroy)(void *);
static cublasStatus_t (*p_ltPrefSet)(void *, int, const void *, size_t);
static cublasStatus_t (*p_ltHeuristic)(void *, void *, void *, void *, void *, void *, void *, int,
	mp_cublasLtMatmulHeuristicResult_t *, int *);
static cublasStatus_t (*p_ltMatmul)(void *, void *, const void *, const void *, void *, const void *, void *,
	const void *, const void *, void *, void *, void *, const mp_cublasLtMatmulAlgo_t *, void *, size_t, CUstream);
static size_t (*p_ltGetVersion)(void);

static int mp_load_cublas(const char *ltpath, const char *path) {
	// cuBLASLt first, globally, so that cuBLAS's dependency on it is met by
	// the copy already loaded whatever its folder.
	mp_cublaslt = dlopen(ltpath, RTLD_NOW | RTLD_GLOBAL);
	if (!mp_cublaslt) {
		const char *e = dlerror();
		snprintf(mp_err, sizeof mp_err, "%s", e ? e : "dlopen failed");
		return -1;
	}
	mp_cublas = mp_open(path);
	if (!mp_cublas) return -1;
	MP_SYM(mp_cublas, p_cublasCreate, "cublasCreate_v2");
	MP_SYM(mp_cublas, p_cublasDestroy, "cublasDestroy_v2");
	MP_SYM(mp_cublas, p_cublasSetWorkspace, "cublasSetWorkspace_v2");
	MP_SYM(mp_cublas, p_cublasSetMathMode, "cublasSetMathMode");
	MP_SYM(mp_cublas, p_cublasGetProperty, "cublasGetProperty");
	MP_SYM(mp_cublas, p_cublasSgemm, "cublasSgemm_v2");
	MP_SYM(mp_cublas, p_cublasGemmEx, "cublasGemmEx");
	*(void **)(&p_cublasGetStatusString) = dlsym(mp_cublas, "cublasGetStatusString");
	MP_SYM(mp_cublaslt, p_ltDescCreate, "cublasLtMatmulDescCreate");
	MP_SYM(mp_cublaslt, p_ltDescDestroy, "cublasLtMatmulDescDestroy");
	MP_SYM(mp_cublaslt, p_ltDescSet, "cublasLtMatmulDescSetAttribute");
	MP_SYM(mp_cublaslt, p_ltLayoutCreate, "cublasLtMatrixLayoutCreate");
	MP_SYM(mp_cublaslt, p_ltLayoutDestroy, "cublasLtMatrixLayoutDestroy");
	MP_SYM(mp_cublaslt, p_ltPrefCreate, "cublasLtMatmulPreferenceCreate");
	MP_SYM(mp_cublaslt, p_ltPrefDestroy, "cublasLtMatmulPreferenceDestroy");
	MP_SYM(mp_cublaslt, p_ltPrefSet, "cublasLtMatmulPreferenceSetAttribute");
	MP_SYM(mp_cublaslt, p_ltHeuristic, "cublasLtMatmulAlgoGetHeuristic");
	MP_SYM(mp_cublaslt, p_ltMatmul, "cublasLtMatmul");
	MP_SYM(mp_cublaslt, p_ltGetVersion, "cublasLtGetVersion");
	return 0;
}

static const char *mp_blas_error(cublasStatus_t s) {
	const char *str = p_cublasGetStatusString ? p_cublasGetStatusString(s) : NULL;
	snprintf(mp_err, sizeof mp_err, "cuBLAS status %d%s%s", s, str ? ": " : "", str ? str : "");
	return mp_err;
}

static cublasHandle_t mp_blas;
static cublasStatus_t mp_cublasCreate(void) {
	cublasStatus_t s = p_cublasCreate(&mp_blas);
	if (s) return s;
	// PyTorch's default: float32 matmul precision "highest", no TF32.
	return p_cublasSetMathMode(mp_blas, MP_CUBLAS_DEFAULT_MATH);
}
static cublasStatus_t mp_cublasSetWorkspace(CUdeviceptr p, size_t n) { return p_cublasSetWorkspace(mp_blas, (void *)(uintptr_t)p, n); }
static int mp_cublasVersion(void) {
	int a = 0, b = 0, c = 0;
	p_cublasGetProperty(0, &a);
	p_cublasGetProperty(1, &b);
	p_cublasGetProperty(2, &c);
	return a * 10000 + b * 100 + c;
}
static size_t mp_cublasLtVersion(void) { return p_ltGetVersion(); }

// torch.mm on fp32: cublasSgemm, no transposes (both operands contiguous).
static cublasStatus_t mp_sgemm(int n, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) {
	float alpha = 1.0f, beta = 0.0f;
	return p_cublasSgemm(mp_blas, MP_CUBLAS_OP_N, MP_CUBLAS_OP_N, n, n, n, &alpha,
		(const float *)(uintptr_t)a, n, (const float *)(uintptr_t)b, n, &beta, (float *)(uintptr_t)c, n);
}

// torch.mm on bf16: cublasGemmEx, bf16 in and out, fp32 compute.
static cublasStatus_t mp_bgemm(int n, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) {
	float alpha = 1.0f, beta = 0.0f;
	return p_cublasGemmEx(mp_blas, MP_CUBLAS_OP_N, MP_CUBLAS_OP_N, n, n, n, &alpha,
		(const void *)(uintptr_t)a, MP_CUDA_R_16BF, n, (const void *)(uintptr_t)b, MP_CUDA_R_16BF, n, &beta,
		(void *)(uintptr_t)c, MP_CUDA_R_16BF, n, MP_CUBLAS_COMPUTE_32F, MP_CUBLAS_GEMM_DEFAULT_TENSOR_OP);
}

// Linear with bias in fp32 (PyTorch's gemm_and_bias): cublasLtMatmul with
// the BIAS epilogue, on the cuBLAS handle cast to a cuBLASLt one.
static cublasStatus_t mp_ltgemm_bias(int n, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, CUdeviceptr bias,
	CUdeviceptr ws, size_t wsBytes) {
	void *desc = NULL, *la = NULL, *lb = NULL, *lc = NULL, *pref = NULL;
	cublasStatus_t s;
	int op = MP_CUBLAS_OP_N;
	unsigned int epi = MP_CUBLASLT_EPILOGUE_BIAS;
	const void *biasp = (const void *)(uintptr_t)bias;
	uint64_t wsLimit = wsBytes;
	float alpha = 1.0f, beta = 0.0f;
	mp_cublasLtMatmulHeuristicResult_t res;
	int got = 0;
	memset(&res, 0, sizeof res);
	if ((s = p_ltDescCreate(&desc, MP_CUBLAS_COMPUTE_32F, MP_CUDA_R_32F))) goto out;
	if ((s = p_ltDescSet(desc, MP_CUBLASLT_MATMUL_DESC_TRANSA, &op, sizeof op))) goto out;
	if ((s = p_ltDescSet(desc, MP_CUBLASLT_MATMUL_DESC_TRANSB, &op, sizeof op))) goto out;
	if ((s = p_ltDescSet(desc, MP_CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi))) goto out;
	if ((s = p_ltDescSet(desc, MP_CUBLASLT_MATMUL_DESC_BIAS_POINTER, &biasp, sizeof biasp))) goto out;
	if ((s = p_ltLayoutCreate(&la, MP_CUDA_R_32F, n, n, n))) goto out;
	if ((s = p_ltLayoutCreate(&lb, MP_CUDA_R_32F, n, n, n))) goto out;
	if ((s = p_ltLayoutCreate(&lc, MP_CUDA_R_32F, n, n, n))) goto out;
	if ((s = p_ltPrefCreate(&pref))) goto out;
	if ((s = p_ltPrefSet(pref, MP_CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsLimit, sizeof wsLimit))) goto out;
	if ((s = p_ltHeuristic(mp_blas, desc, la, lb, lc, lc, pref, 1, &res, &got))) goto out;
	if (got == 0) { s = 15; goto out; } // CUBLAS_STATUS_NOT_SUPPORTED
	s = p_ltMatmul(mp_blas, desc, &alpha, (const void *)(uintptr_t)a, la, (const void *)(uintptr_t)b, lb, &beta,
		(const void *)(uintptr_t)c, lc, (void *)(uintptr_t)c, lc, &res.algo, (void *)(uintptr_t)ws, wsBytes, NULL);
out:
	if (pref) p_ltPrefDestroy(pref);
	if (lc) p_ltLayoutDestroy(lc);
	if (lb) p_ltLayoutDestroy(lb);
	if (la) p_ltLayoutDestroy(la);
	if (desc) p_ltDescDestroy(desc);
	return s;
}

// ---- cuDNN ----
static void *mp_cudnn;
static cudnnStatus_t (*p_cudnnCreate)(cudnnHandle_t *);
static size_t (*p_cudnnGetVersion)(void);
static const char *(*p_cudnnGetErrorString)(cudnnStatus_t);
static cudnnStatus_t (*p_cudnnCreateTensorDescriptor)(void **);
static cudnnStatus_t (*p_cudnnSetTensor4dDescriptor)(void *, int, int, int, int, int, int);
static cudnnStatus_t (*p_cudnnCreateFilterDescriptor)(void **);
static cudnnStatus_t (*p_cudnnSetFilter4dDescriptor)(void *, int, int, int, int, int, int);
static cudnnStatus_t (*p_cudnnCreateConvolutionDescriptor)(void **);
static cudnnStatus_t (*p_cudnnSetConvolution2dDescriptor)(void *, int, int, int, int, int, int, int, int);
static cudnnStatus_t (*p_cudnnSetConvolutionMathType)(void *, int);
static cudnnStatus_t (*p_cudnnGetConvolutionForwardAlgorithm_v7)(cudnnHandle_t, void *, void *, void *, void *, int, int *,
	mp_cudnnConvolutionFwdAlgoPerf_t *);
static cudnnStatus_t (*p_cudnnGetConvolutionForwardWorkspaceSize)(cudnnHandle_t, void *, void *, void *, void *, int, size_t *);
static cudnnStatus_t (*p_cudnnConvolutionForward)(cudnnHandle_t, const void *, void *, const void *, void *, const void *,
	void *, int, void *, size_t, const void *, void *, void *);
// cudnn_graph.h: the backend (graph) API PyTorch's v8 convolutions use.
typedef void *mp_bdesc;
static cudnnStatus_t (*p_bCreate)(int, mp_bdesc *);
static cudnnStatus_t (*p_bDestroy)(mp_bdesc);
static cudnnStatus_t (*p_bSet)(mp_bdesc, int, int, int64_t, const void *);
static cudnnStatus_t (*p_bGet)(mp_bdesc, int, int, int64_t, int64_t *, void *);
static cudnnStatus_t (*p_bFinalize)(mp_bdesc);
static cudnnStatus_t (*p_bExecute)(cudnnHandle_t, mp_bdesc, mp_bdesc);

// mp_preload loads a library globally so that later loads find it by soname.
static int mp_preload(const char *path) { return dlopen(path, RTLD_NOW | RTLD_GLOBAL) ? 0 : -1; }

static int mp_load_cudnn(const char *path) {
	mp_cudnn = mp_open(path);
	if (!mp_cudnn) return -1;
	MP_SYM(mp_cudnn, p_cudnnCreate, "cudnnCreate");
	MP_SYM(mp_cudnn, p_cudnnGetVersion, "cudnnGetVersion");
	MP_SYM(mp_cudnn, p_cudnnGetErrorString, "cudnnGetErrorString");
	MP_SYM(mp_cudnn, p_cudnnCreateTensorDescriptor, "cudnnCreateTensorDescriptor");
	MP_SYM(mp_cudnn, p_cudnnSetTensor4dDescriptor, "cudnnSetTensor4dDescriptor");
	MP_SYM(mp_cudnn, p_cudnnCreateFilterDescriptor, "cudnnCreateFilterDescriptor");
	MP_SYM(mp_cudnn, p_cudnnSetFilter4dDescriptor, "cudnnSetFilter4dDescriptor");
	MP_SYM(mp_cudnn, p_cudnnCreateConvolutionDescriptor, "cudnnCreateConvolutionDescriptor");
	MP_SYM(mp_cudnn, p_cudnnSetConvolution2dDescriptor, "cudnnSetConvolution2dDescriptor");
	MP_SYM(mp_cudnn, p_cudnnSetConvolutionMathType, "cudnnSetConvolutionMathType");
	MP_SYM(mp_cudnn, p_cudnnGetConvolutionForwardAlgorithm_v7, "cudnnGetConvolutionForwardAlgorithm_v7");
	MP_SYM(mp_cudnn, p_cudnnGetConvolutionForwardWorkspaceSize, "cudnnGetConvolutionForwardWorkspaceSize");
	MP_SYM(mp_cudnn, p_cudnnConvolutionForward, "cudnnConvolutionForward");
	MP_SYM(mp_cudnn, p_bCreate, "cudnnBackendCreateDescriptor");
	MP_SYM(mp_cudnn, p_bDestroy, "cudnnBackendDestroyDescriptor");
	MP_SYM(mp_cudnn, p_bSet, "cudnnBackendSetAttribute");
	MP_SYM(mp_cudnn, p_bGet, "cudnnBackendGetAttribute");
	MP_SYM(mp_cudnn, p_bFinalize, "cudnnBackendFinalize");
	MP_SYM(mp_cudnn, p_bExecute, "cudnnBackendExecute");
	return 0;
}

static size_t mp_cudnnVersion(void) { return p_cudnnGetVersion(); }

static const char *mp_dnn_error(cudnnStatus_t s) {
	snprintf(mp_err, sizeof mp_err, "cuDNN status %d: %s", s, p_cudnnGetErrorString ? p_cudnnGetErrorString(s) : "");
	return mp_err;
}

static cudnnHandle_t mp_dnn;
static void *mp_xd, *mp_yd, *mp_wd, *mp_cd;
static int mp_algo = MP_CUDNN_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;

static cudnnStatus_t mp_cudnnCreate(void) { return p_cudnnCreate(&mp_dnn); }

static cudnnStatus_t mp_conv_plan(int n, int c, int h, int w, int k, int r, size_t *ws, int *algo) {
	cudnnStatus_t s;
	mp_cudnnConvolutionFwdAlgoPerf_t perf[8];
	int got = 0, i;
	int pad = r / 2;
	if ((s = p_cudnnCreateTensorDescriptor(&mp_xd))) return s;
	if ((s = p_cudnnSetTensor4dDescriptor(mp_xd, MP_CUDNN_TENSOR_NCHW, MP_CUDNN_DATA_FLOAT, n, c, h, w))) return s;
	if ((s = p_cudnnCreateTensorDescriptor(&mp_yd))) return s;
	if ((s = p_cudnnSetTensor4dDescriptor(mp_yd, MP_CUDNN_TENSOR_NCHW, MP_CUDNN_DATA_FLOAT, n, k, h, w))) return s;
	if ((s = p_cudnnCreateFilterDescriptor(&mp_wd))) return s;
	if ((s = p_cudnnSetFilter4dDescriptor(mp_wd, MP_CUDNN_DATA_FLOAT, MP_CUDNN_TENSOR_NCHW, k, c, r, r))) return s;
	if ((s = p_cudnnCreateConvolutionDescriptor(&mp_cd))) return s;
	if ((s = p_cudnnSetConvolution2dDescriptor(mp_cd, pad, pad, 1, 1, 1, 1, MP_CUDNN_CROSS_CORRELATION, MP_CUDNN_DATA_FLOAT))) return s;
	memset(perf, 0, sizeof perf);
	// The heuristics' first working choice, as PyTorch takes with
	// benchmark=False.
	if (p_cudnnGetConvolutionForwardAlgorithm_v7(mp_dnn, mp_xd, mp_wd, mp_cd, mp_yd, 8, &got, perf) == 0) {
		for (i = 0; i < got; i++) {
			if (perf[i].status == 0) {
				mp_algo = perf[i].algo;
				p_cudnnSetConvolutionMathType(mp_cd, perf[i].mathType);
				break;
			}
		}
	}
	*algo = mp_algo;
	return p_cudnnGetConvolutionForwardWorkspaceSize(mp_dnn, mp_xd, mp_wd, mp_cd, mp_yd, mp_algo, ws);
}

// ---- cuDNN backend API: PyTorch's engine choice for one convolution ----
// Enumerators of cudnn_graph.h (cuDNN 8.x and 9.x).
enum {
	MPB_ENGINE = 2, MPB_ENGINECFG = 3, MPB_ENGINEHEUR = 4, MPB_EXECUTION_PLAN = 5,
	MPB_OP_CONV_FWD = 10, MPB_OP_CONV_BWD_FILTER = 11, MPB_OP_CONV_BWD_DATA = 12,
	MPB_OPERATIONGRAPH = 15, MPB_VARIANT_PACK = 16, MPB_TENSOR = 17, MPB_CONVOLUTION = 1,
	MPT_HANDLE = 0, MPT_DATA_TYPE = 1, MPT_BOOLEAN = 2, MPT_INT64 = 3, MPT_FLOAT = 4, MPT_VOID_PTR = 6,
	MPT_CONVOLUTION_MODE = 7, MPT_HEUR_MODE = 8, MPT_NUMERICAL_NOTE = 11, MPT_BACKEND_DESCRIPTOR = 15,
	MPA_CONV_COMP_TYPE = 100, MPA_CONV_MODE = 101, MPA_CONV_DILATIONS = 102, MPA_CONV_FILTER_STRIDES = 103,
	MPA_CONV_POST_PADDINGS = 104, MPA_CONV_PRE_PADDINGS = 105, MPA_CONV_SPATIAL_DIMS = 106,
	MPA_ENGINEHEUR_MODE = 200, MPA_ENGINEHEUR_OPERATION_GRAPH = 201, MPA_ENGINEHEUR_RESULTS = 202,
	MPA_ENGINECFG_ENGINE = 300,
	MPA_PLAN_HANDLE = 400, MPA_PLAN_ENGINE_CONFIG = 401, MPA_PLAN_WORKSPACE_SIZE = 402,
	MPA_OPGRAPH_HANDLE = 800, MPA_OPGRAPH_OPS = 801,
	MPA_TENSOR_BYTE_ALIGNMENT = 900, MPA_TENSOR_DATA_TYPE = 901, MPA_TENSOR_DIMENSIONS = 902,
	MPA_TENSOR_STRIDES = 903, MPA_TENSOR_UNIQUE_ID = 906, MPA_TENSOR_IS_VIRTUAL = 907,
	MPA_VP_UNIQUE_IDS = 1000, MPA_VP_DATA_POINTERS = 1001, MPA_VP_WORKSPACE = 1003,
	MPA_ENGINE_GLOBAL_INDEX = 1301, MPA_ENGINE_NUMERICAL_NOTE = 1303,
	MP_NOTE_DOWN_CONVERT_INPUTS = 1,
	MP_HEUR_INSTANT = 0, MP_HEUR_FALLBACK = 2,
	MP_DNN_FLOAT = 0, MP_DNN_HALF = 2, MP_DNN_BFLOAT16 = 9,
};

// The attributes of the three convolution operations, in the order
// x, w, y, conv, alpha, beta (PyTorch's 'x', 'w', 'y' tensors: for
// backward-data x is the input gradient, for backward-filter w is the
// weight gradient, y is always the output or its gradient).
static const int mp_conv_attrs[3][6] = {
	{704, 703, 705, 702, 700, 701}, // forward: X, W, Y
	{710, 709, 711, 708, 706, 707}, // backward data: DX, W, DY
	{716, 715, 717, 714, 712, 713}, // backward filter: X, DW, DY
};
static const int mp_conv_ops[3] = {MPB_OP_CONV_FWD, MPB_OP_CONV_BWD_DATA, MPB_OP_CONV_BWD_FILTER};

#define MPB_TRY(call) do { if ((s = (call)) != 0) goto out; } while (0)

static cudnnStatus_t mp_tensor(mp_bdesc *t, int64_t uid, int dtype, const int64_t dims[4]) {
	cudnnStatus_t s;
	int64_t strides[4] = {dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1};
	// PyTorch's getAlignment for an allocation of the caching allocator
	// (512-byte aligned) gives 32.
	int64_t align = 32;
	int virt = 0;
	if ((s = p_bCreate(MPB_TENSOR, t))) return s;
	if ((s = p_bSet(*t, MPA_TENSOR_DATA_TYPE, MPT_DATA_TYPE, 1, &dtype))) return s;
	if ((s = p_bSet(*t, MPA_TENSOR_DIMENSIONS, MPT_INT64, 4, dims))) return s;
	if ((s = p_bSet(*t, MPA_TENSOR_STRIDES, MPT_INT64, 4, strides))) return s;
	if ((s = p_bSet(*t, MPA_TENSOR_UNIQUE_ID, MPT_INT64, 1, &uid))) return s;
	if ((s = p_bSet(*t, MPA_TENSOR_BYTE_ALIGNMENT, MPT_INT64, 1, &align))) return s;
	if ((s = p_bSet(*t, MPA_TENSOR_IS_VIRTUAL, MPT_BOOLEAN, 1, &virt))) return s;
	return p_bFinalize(*t);
}

// mp_heur_configs fills cfgs (at most max) with the engine configs of a
// heuristics mode, in cuDNN's order.
static cudnnStatus_t mp_heur_configs(mp_bdesc graph, int mode, mp_bdesc *cfgs, int64_t max, int64_t *got) {
	cudnnStatus_t s;
	mp_bdesc heur = NULL;
	int64_t n = 0, i;
	*got = 0;
	MPB_TRY(p_bCreate(MPB_ENGINEHEUR, &heur));
	MPB_TRY(p_bSet(heur, MPA_ENGINEHEUR_OPERATION_GRAPH, MPT_BACKEND_DESCRIPTOR, 1, &graph));
	MPB_TRY(p_bSet(heur, MPA_ENGINEHEUR_MODE, MPT_HEUR_MODE, 1, &mode));
	MPB_TRY(p_bFinalize(heur));
	MPB_TRY(p_bGet(heur, MPA_ENGINEHEUR_RESULTS, MPT_BACKEND_DESCRIPTOR, 0, &n, NULL));
	if (n > max) n = max;
	for (i = 0; i < n; i++) MPB_TRY(p_bCreate(MPB_ENGINECFG, &cfgs[i]));
	MPB_TRY(p_bGet(heur, MPA_ENGINEHEUR_RESULTS, MPT_BACKEND_DESCRIPTOR, n, got, cfgs));
out:
	if (heur) p_bDestroy(heur);
	return s;
}

// mp_engine_info reads a config's engine: its global index and whether
// PyTorch's filter drops it (the DOWN_CONVERT_INPUTS numerical note; with
// torch.backends.cudnn.allow_tf32 at its default, True, and deterministic
// off, no other note is filtered).
static cudnnStatus_t mp_engine_info(mp_bdesc cfg, int64_t *index, int *dropped) {
	cudnnStatus_t s;
	mp_bdesc eng = NULL;
	int64_t n = 0, i;
	int notes[32];
	*dropped = 0;
	*index = -1;
	MPB_TRY(p_bCreate(MPB_ENGINE, &eng));
	MPB_TRY(p_bGet(cfg, MPA_ENGINECFG_ENGINE, MPT_BACKEND_DESCRIPTOR, 1, &n, &eng));
	MPB_TRY(p_bGet(eng, MPA_ENGINE_GLOBAL_INDEX, MPT_INT64, 1, &n, index));
	n = 0;
	MPB_TRY(p_bGet(eng, MPA_ENGINE_NUMERICAL_NOTE, MPT_NUMERICAL_NOTE, 32, &n, notes));
	for (i = 0; i < n && i < 32; i++) {
		if (notes[i] == MP_NOTE_DOWN_CONVERT_INPUTS) *dropped = 1;
	}
out:
	if (eng) p_bDestroy(eng);
	return s;
}

// mp_try_config builds the plan of one config and runs it once on
// buffers of the problem's size, as PyTorch's try_configs does; it
// returns 0 and the plan's workspace size when both succeed.
static cudnnStatus_t mp_try_config(mp_bdesc cfg, CUdeviceptr bufs[3], int64_t *ws) {
	cudnnStatus_t s;
	mp_bdesc plan = NULL, pack = NULL;
	CUdeviceptr wsp = 0;
	int64_t uids[3] = {'x', 'w', 'y'};
	void *ptrs[3] = {(void *)(uintptr_t)bufs[0], (void *)(uintptr_t)bufs[1], (void *)(uintptr_t)bufs[2]};
	void *wsptr = NULL;
	int64_t got = 0;
	MPB_TRY(p_bCreate(MPB_EXECUTION_PLAN, &plan));
	MPB_TRY(p_bSet(plan, MPA_PLAN_HANDLE, MPT_HANDLE, 1, &mp_dnn));
	MPB_TRY(p_bSet(plan, MPA_PLAN_ENGINE_CONFIG, MPT_BACKEND_DESCRIPTOR, 1, &cfg));
	MPB_TRY(p_bFinalize(plan));
	MPB_TRY(p_bGet(plan, MPA_PLAN_WORKSPACE_SIZE, MPT_INT64, 1, &got, ws));
	if (*ws > 0) {
		if (p_cuMemAlloc(&wsp, (size_t)*ws)) { s = 2; goto out; } // CUDNN_STATUS_ALLOC_FAILED
		wsptr = (void *)(uintptr_t)wsp;
	}
	MPB_TRY(p_bCreate(MPB_VARIANT_PACK, &pack));
	MPB_TRY(p_bSet(pack, MPA_VP_UNIQUE_IDS, MPT_INT64, 3, uids));
	MPB_TRY(p_bSet(pack, MPA_VP_DATA_POINTERS, MPT_VOID_PTR, 3, ptrs));
	MPB_TRY(p_bSet(pack, MPA_VP_WORKSPACE, MPT_VOID_PTR, 1, &wsptr));
	MPB_TRY(p_bFinalize(pack));
	MPB_TRY(p_bExecute(mp_dnn, plan, pack));
	if (p_cuCtxSynchronize()) s = 8; // CUDNN_STATUS_EXECUTION_FAILED
out:
	if (pack) p_bDestroy(pack);
	if (plan) p_bDestroy(plan);
	if (wsp) p_cuMemFree(wsp);
	return s;
}

#define MP_MAX_CONFIGS 64

// mp_conv_workspace finds the workspace PyTorch (aten/src/ATen/native/
// cudnn/Conv_v8.cpp, benchmark off) asks for around one convolution call:
// the operation graph it builds (NCHW tensors 'x', 'w', 'y', 32-byte
// aligned, fp32 compute), the engine configs of heuristics mode INSTANT
// less those PyTorch filters out, then the fallback list; the first config
// whose plan builds and runs is the one PyTorch keeps. pass: 0 forward,
// 1 backward-data, 2 backward-filter. dims: x, w, y. tried counts the
// configs tried.
static cudnnStatus_t mp_conv_workspace(int pass, int dtype, const int64_t *xd, const int64_t *wd, const int64_t *yd,
	int64_t stride, int64_t pad, CUdeviceptr bufs[3], int64_t *ws, int64_t *engine, int *tried) {
	cudnnStatus_t s;
	mp_bdesc tx = NULL, tw = NULL, ty = NULL, conv = NULL, op = NULL, graph = NULL;
	mp_bdesc cfgs[MP_MAX_CONFIGS];
	int64_t ncfg = 0, i, two = 2, one[2] = {1, 1}, strides[2] = {stride, stride}, pads[2] = {pad, pad};
	int comp = MP_DNN_FLOAT, mode = 1; // CUDNN_CROSS_CORRELATION
	float alpha = 1.0f, beta = 0.0f;
	const int *at = mp_conv_attrs[pass];
	int m, found = 0;
	memset(cfgs, 0, sizeof cfgs);
	*tried = 0;
	*engine = -1;
	MPB_TRY(mp_tensor(&tx, 'x', dtype, xd));
	MPB_TRY(mp_tensor(&tw, 'w', dtype, wd));
	MPB_TRY(mp_tensor(&ty, 'y', dtype, yd));
	MPB_TRY(p_bCreate(MPB_CONVOLUTION, &conv));
	MPB_TRY(p_bSet(conv, MPA_CONV_COMP_TYPE, MPT_DATA_TYPE, 1, &comp));
	MPB_TRY(p_bSet(conv, MPA_CONV_MODE, MPT_CONVOLUTION_MODE, 1, &mode));
	MPB_TRY(p_bSet(conv, MPA_CONV_SPATIAL_DIMS, MPT_INT64, 1, &two));
	MPB_TRY(p_bSet(conv, MPA_CONV_DILATIONS, MPT_INT64, 2, one));
	MPB_TRY(p_bSet(conv, MPA_CONV_FILTER_STRIDES, MPT_INT64, 2, strides));
	MPB_TRY(p_bSet(conv, MPA_CONV_PRE_PADDINGS, MPT_INT64, 2, pads));
	MPB_TRY(p_bSet(conv, MPA_CONV_POST_PADDINGS, MPT_INT64, 2, pads));
	MPB_TRY(p_bFinalize(conv));
	MPB_TRY(p_bCreate(mp_conv_ops[pass], &op));
	MPB_TRY(p_bSet(op, at[0], MPT_BACKEND_DESCRIPTOR, 1, &tx));
	MPB_TRY(p_bSet(op, at[1], MPT_BACKEND_DESCRIPTOR, 1, &tw));
	MPB_TRY(p_bSet(op, at[2], MPT_BACKEND_DESCRIPTOR, 1, &ty));
	MPB_TRY(p_bSet(op, at[3], MPT_BACKEND_DESCRIPTOR, 1, &conv));
	MPB_TRY(p_bSet(op, at[4], MPT_FLOAT, 1, &alpha));
	MPB_TRY(p_bSet(op, at[5], MPT_FLOAT, 1, &beta));
	MPB_TRY(p_bFinalize(op));
	MPB_TRY(p_bCreate(MPB_OPERATIONGRAPH, &graph));
	MPB_TRY(p_bSet(graph, MPA_OPGRAPH_OPS, MPT_BACKEND_DESCRIPTOR, 1, &op));
	MPB_TRY(p_bSet(graph, MPA_OPGRAPH_HANDLE, MPT_HANDLE, 1, &mp_dnn));
	MPB_TRY(p_bFinalize(graph));
	for (m = 0; m < 2 && !found; m++) {
		int heur = m == 0 ? MP_HEUR_INSTANT : MP_HEUR_FALLBACK;
		for (i = 0; i < MP_MAX_CONFIGS; i++) if (cfgs[i]) { p_bDestroy(cfgs[i]); cfgs[i] = NULL; }
		ncfg = 0;
		if (mp_heur_configs(graph, heur, cfgs, MP_MAX_CONFIGS, &ncfg)) continue;
		for (i = 0; i < ncfg && !found; i++) {
			int64_t index;
			int dropped;
			if (mp_engine_info(cfgs[i], &index, &dropped) || dropped) continue;
			(*tried)++;
			if (mp_try_config(cfgs[i], bufs, ws) == 0) {
				*engine = index;
				found = 1;
			}
		}
	}
	s = found ? 0 : 9; // CUDNN_STATUS_NOT_SUPPORTED: no engine ran
out:
	for (i = 0; i < MP_MAX_CONFIGS; i++) if (cfgs[i]) p_bDestroy(cfgs[i]);
	if (graph) p_bDestroy(graph);
	if (op) p_bDestroy(op);
	if (conv) p_bDestroy(conv);
	if (ty) p_bDestroy(ty);
	if (tw) p_bDestroy(tw);
	if (tx) p_bDestroy(tx);
	return s;
}

static CUresult mp_alloc3(size_t a, size_t b, size_t c, CUdeviceptr out[3]) {
	CUresult r;
	out[0] = out[1] = out[2] = 0;
	if ((r = p_cuMemAlloc(&out[0], a))) return r;
	if ((r = p_cuMemAlloc(&out[1], b))) { p_cuMemFree(out[0]); out[0] = 0; return r; }
	if ((r = p_cuMemAlloc(&out[2], c))) { p_cuMemFree(out[0]); p_cuMemFree(out[1]); out[0] = out[1] = 0; return r; }
	return 0;
}
static void mp_free3(CUdeviceptr p[3]) { int i; for (i = 0; i < 3; i++) if (p[i]) p_cuMemFree(p[i]); }

static cudnnStatus_t mp_conv(CUdeviceptr x, CUdeviceptr w, CUdeviceptr y, CUdeviceptr ws, size_t wsBytes) {
	float alpha = 1.0f, beta = 0.0f;
	return p_cudnnConvolutionForward(mp_dnn, &alpha, mp_xd, (const void *)(uintptr_t)x, mp_wd, (const void *)(uintptr_t)w,
		mp_cd, mp_algo, (void *)(uintptr_t)ws, wsBytes, &beta, mp_yd, (void *)(uintptr_t)y);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/memplan/memplan/spec"
)

// cgoDriver is the real Driver: libcuda, NVML (go-nvml), cuBLAS/cuBLASLt
// and cuDNN, all loaded at run time.
type cgoDriver struct {
	env      searchEnv
	dev      C.CUdevice
	ctx      bool
	ptrs     []C.CUdeviceptr
	nvml     nvml.Interface
	nvmlDev  nvml.Device
	nvmlPath string
}

func newDriver() (Driver, error) { return &cgoDriver{env: osSearchEnv()}, nil }

func cstr(s string) *C.char { return C.CString(s) }

func lastError() string { return C.GoString(C.mp_last_error()) }

func cuErr(r C.CUresult) error {
	if r == 0 {
		return nil
	}
	return errors.New(C.GoString(C.mp_cu_error(r)))
}

func blasErr(s C.cublasStatus_t) error {
	if s == 0 {
		return nil
	}
	return errors.New(C.GoString(C.mp_blas_error(s)))
}

func dnnErr(s C.cudnnStatus_t) error {
	if s == 0 {
		return nil
	}
	return errors.New(C.GoString(C.mp_dnn_error(s)))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func (d *cgoDriver) Open() ([]Library, error) {
	var libs []Library
	cands := driverCandidates(d.env, "libcuda.so.1")
	var firstErr string
	loaded := ""
	for _, c := range cands {
		p := cstr(c)
		rc := C.mp_load_cuda(p)
		C.free(unsafe.Pointer(p))
		if rc == 0 {
			loaded = c
			break
		}
		if firstErr == "" {
			firstErr = lastError()
		}
		if rc == -2 { // the library loaded but lacks the API: not a driver
			firstErr = c + ": " + lastError()
		}
	}
	if loaded == "" {
		return nil, fmt.Errorf("cannot load the CUDA driver: %s (searched the loader path and %s); no NVIDIA driver here, so no GPU can be measured; built-in profiles (%s) and calibrated profile files still work with --gpu",
			oneLine(firstErr), strings.Join(driverDirs[:2], ", "), strings.Join(BuiltinNames(), ", "))
	}
	if err := cuErr(C.mp_cuInit()); err != nil {
		return nil, fmt.Errorf("cannot initialize the CUDA driver (cuInit: %s); no usable GPU here; built-in profiles (%s) and calibrated profile files still work with --gpu",
			oneLine(err.Error()), strings.Join(BuiltinNames(), ", "))
	}
	libs = append(libs, Library{Name: "libcuda", Path: resolvedPath(loaded, "libcuda.so")})

	for _, c := range driverCandidates(d.env, "libnvidia-ml.so.1") {
		lib := nvml.New(nvml.WithLibraryPath(c))
		if ret := lib.Init(); ret == nvml.SUCCESS {
			d.nvml, d.nvmlPath = lib, c
			break
		}
	}
	if d.nvml != nil {
		v, _ := d.nvml.SystemGetNVMLVersion()
		libs = append(libs, Library{Name: "libnvidia-ml", Path: resolvedPath(d.nvmlPath, "libnvidia-ml.so"), Version: v})
	}
	return libs, nil
}

// resolvedPath finds the file the loader took for a soname, through
// /proc/self/maps; it returns what was asked for when it cannot tell.
func resolvedPath(asked, stem string) string {
	if strings.ContainsRune(asked, '/') {
		if r, err := filepath.EvalSymlinks(asked); err == nil {
			return r
		}
		return asked
	}
	data, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return asked
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 6 && strings.Contains(filepath.Base(f[5]), stem) {
			return f[5]
		}
	}
	return asked
}

func (d *cgoDriver) Device(ordinal int) (DeviceInfo, error) {
	var info DeviceInfo
	var n C.int
	if err := cuErr(C.mp_cuDeviceGetCount(&n)); err != nil {
		return info, err
	}
	if ordinal < 0 || ordinal >= int(n) {
		return info, fmt.Errorf("no CUDA device %d (this machine has %d)", ordinal, int(n))
	}
	if err := cuErr(C.mp_cuDeviceGet(&d.dev, C.int(ordinal))); err != nil {
		return info, err
	}
	buf := make([]byte, 256)
	if err := cuErr(C.mp_cuDeviceGetName((*C.char)(unsafe.Pointer(&buf[0])), C.int(len(buf)), d.dev)); err != nil {
		return info, err
	}
	info.Name = C.GoString((*C.char)(unsafe.Pointer(&buf[0])))
	var major, minor, ver C.int
	if err := cuErr(C.mp_cuDeviceGetAttribute(&major, C.MP_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d.dev)); err != nil {
		return info, err
	}
	if err := cuErr(C.mp_cuDeviceGetAttribute(&minor, C.MP_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d.dev)); err != nil {
		return info, err
	}
	info.Major, info.Minor = int(major), int(minor)
	var total C.size_t
	if err := cuErr(C.mp_cuDeviceTotalMem(&total, d.dev)); err != nil {
		return info, err
	}
	info.CUDATotalBytes = int64(total)
	if err := cuErr(C.mp_cuDriverGetVersion(&ver)); err != nil {
		return info, err
	}
	info.CUDAVersion = int(ver)
	if C.mp_cuDeviceGetPCIBusId((*C.char)(unsafe.Pointer(&buf[0])), C.int(len(buf)), d.dev) == 0 {
		info.PCIBusID = C.GoString((*C.char)(unsafe.Pointer(&buf[0])))
	}
	if d.nvml != nil {
		dev, ret := d.nvml.DeviceGetHandleByPciBusId(info.PCIBusID)
		if ret != nvml.SUCCESS {
			dev, ret = d.nvml.DeviceGetHandleByIndex(ordinal)
		}
		if ret != nvml.SUCCESS {
			return info, fmt.Errorf("NVML has no handle for device %s: %s", info.PCIBusID, nvml.ErrorString(ret))
		}
		d.nvmlDev = dev
		if mem, ret := dev.GetMemoryInfo(); ret == nvml.SUCCESS {
			info.NVMLTotalBytes = int64(mem.Total)
		}
		if v, ret := d.nvml.SystemGetDriverVersion(); ret == nvml.SUCCESS {
			info.DriverVersion = v
		}
	}
	return info, nil
}

func (d *cgoDriver) ProcessMemory() ([]ProcessMemory, int64, error) {
	if d.nvml == nil || d.nvmlDev == nil {
		return nil, 0, ErrNoNVML
	}
	mem, ret := d.nvmlDev.GetMemoryInfo()
	if ret != nvml.SUCCESS {
		return nil, 0, fmt.Errorf("nvmlDeviceGetMemoryInfo: %s", nvml.ErrorString(ret))
	}
	infos, ret := d.nvmlDev.GetComputeRunningProcesses()
	if ret != nvml.SUCCESS {
		return nil, 0, fmt.Errorf("nvmlDeviceGetComputeRunningProcesses: %s", nvml.ErrorString(ret))
	}
	var out []ProcessMemory
	for _, p := range infos {
		out = append(out, ProcessMemory{Pid: int(p.Pid), UsedBytes: int64(p.UsedGpuMemory)})
	}
	return out, int64(mem.Used), nil
}

func (d *cgoDriver) Pid() int { return os.Getpid() }

func (d *cgoDriver) RetainPrimaryContext() error {
	if err := cuErr(C.mp_retain(d.dev)); err != nil {
		return err
	}
	d.ctx = true
	return nil
}

func (d *cgoDriver) MemGetInfo() (int64, int64, error) {
	var free, total C.size_t
	if err := cuErr(C.mp_cuMemGetInfo(&free, &total)); err != nil {
		return 0, 0, err
	}
	return int64(free), int64(total), nil
}

func (d *cgoDriver) Alloc(bytes int64) (DevicePtr, error) {
	var p C.CUdeviceptr
	if err := cuErr(C.mp_cuMemAlloc(&p, C.size_t(bytes))); err != nil {
		return 0, err
	}
	d.ptrs = append(d.ptrs, p)
	return DevicePtr(p), nil
}

func (d *cgoDriver) Sync() error { return cuErr(C.mp_cuCtxSynchronize()) }

func (d *cgoDriver) LoadBLAS(maxMajor int) ([]Library, error) {
	dirs := cudaLibDirs(d.env)
	cands := findLibrary(d.env, dirs, "libcublas", maxMajor)
	if len(cands) == 0 {
		return nil, ErrNotFound
	}
	var errs []string
	for _, c := range cands {
		lt := filepath.Join(c.Dir, "libcublasLt"+strings.TrimPrefix(filepath.Base(c.Path), "libcublas"))
		if !d.env.Exists(lt) {
			continue
		}
		cl, cp := cstr(lt), cstr(c.Path)
		rc := C.mp_load_cublas(cl, cp)
		C.free(unsafe.Pointer(cl))
		C.free(unsafe.Pointer(cp))
		if rc == 0 {
			v := int(C.mp_cublasVersion())
			ltv := int(C.mp_cublasLtVersion())
			return []Library{
				{Name: "libcublasLt", Path: lt, Version: fmt.Sprintf("%d.%d.%d", ltv/10000, ltv/100%100, ltv%100)},
				{Name: "libcublas", Path: c.Path, Version: fmt.Sprintf("%d.%d.%d", v/10000, v/100%100, v%100)},
			}, nil
		}
		errs = append(errs, c.Path+": "+oneLine(lastError()))
		break // a half-loaded cuBLAS cannot be unloaded cleanly; report
	}
	if len(errs) == 0 {
		return nil, ErrNotFound
	}
	return nil, errors.New(strings.Join(errs, "; "))
}

func (d *cgoDriver) CublasCreate() error { return blasErr(C.mp_cublasCreate()) }

func (d *cgoDriver) CublasSetWorkspace(p DevicePtr, bytes int64) error {
	return blasErr(C.mp_cublasSetWorkspace(C.CUdeviceptr(p), C.size_t(bytes)))
}

func (d *cgoDriver) Gemm(g GemmCall) error {
	n := C.int(g.N)
	a, b, c := C.CUdeviceptr(g.A), C.CUdeviceptr(g.B), C.CUdeviceptr(g.C)
	switch g.Kind {
	case GemmFP32:
		return blasErr(C.mp_sgemm(n, a, b, c))
	case GemmBF16:
		return blasErr(C.mp_bgemm(n, a, b, c))
	case GemmFP32BiasLt:
		return blasErr(C.mp_ltgemm_bias(n, a, b, c, C.CUdeviceptr(g.Bias), C.CUdeviceptr(g.Workspace), C.size_t(g.WorkspaceBytes)))
	}
	return fmt.Errorf("unknown GEMM kind %d", g.Kind)
}

func (d *cgoDriver) LoadDNN() ([]Library, error) {
	cands := findLibrary(d.env, cudaLibDirs(d.env), "libcudnn", 0)
	if len(cands) == 0 {
		return nil, ErrNotFound
	}
	c := cands[0]
	// cuDNN 9's libcudnn is a shim that dlopens its sub-libraries by
	// soname; load those from the same folder first, as PyTorch does, so
	// that they are found wherever the folder is.
	if c.Major >= 9 {
		for _, sub := range []string{"libcudnn_graph", "libcudnn_engines_precompiled", "libcudnn_engines_runtime_compiled",
			"libcudnn_heuristic", "libcudnn_ops", "libcudnn_cnn", "libcudnn_adv"} {
			sp := filepath.Join(c.Dir, fmt.Sprintf("%s.so.%d", sub, c.Major))
			if d.env.Exists(sp) {
				cp := cstr(sp)
				C.mp_preload(cp)
				C.free(unsafe.Pointer(cp))
			}
		}
	}
	p := cstr(c.Path)
	rc := C.mp_load_cudnn(p)
	C.free(unsafe.Pointer(p))
	if rc != 0 {
		return nil, fmt.Errorf("%s: %s", c.Path, oneLine(lastError()))
	}
	v := int(C.mp_cudnnVersion())
	// cuDNN 9 encodes major*10000 + minor*100 + patch; 8 used major*1000.
	ver := fmt.Sprintf("%d.%d.%d", v/10000, v/100%100, v%100)
	if v < 10000 {
		ver = fmt.Sprintf("%d.%d.%d", v/1000, v/100%10, v%100)
	}
	return []Library{{Name: "libcudnn", Path: c.Path, Version: ver}}, nil
}

func (d *cgoDriver) CudnnCreate() error { return dnnErr(C.mp_cudnnCreate()) }

var cudnnFwdAlgos = []string{"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"}

func (d *cgoDriver) ConvPlan(c ConvShape) (int64, string, error) {
	var ws C.size_t
	var algo C.int
	if err := dnnErr(C.mp_conv_plan(C.int(c.N), C.int(c.C), C.int(c.H), C.int(c.W), C.int(c.K), C.int(c.R), &ws, &algo)); err != nil {
		return 0, "", err
	}
	name := fmt.Sprintf("algorithm %d", int(algo))
	if int(algo) >= 0 && int(algo) < len(cudnnFwdAlgos) {
		name = cudnnFwdAlgos[algo]
	}
	return int64(ws), name, nil
}

func (d *cgoDriver) ConvWorkspaces(g spec.ConvGeometry) ([3]ConvChoice, error) {
	var out [3]ConvChoice
	var dt C.int
	switch g.DType {
	case spec.FP32:
		dt = C.MP_DNN_FLOAT
	case spec.BF16:
		dt = C.MP_DNN_BFLOAT16
	case spec.FP16:
		dt = C.MP_DNN_HALF
	default:
		return out, fmt.Errorf("convolution in %s: cuDNN convolutions are fp32, bf16 or fp16", g.DType)
	}
	groups := max(g.Groups, 1)
	xd := [4]C.int64_t{C.int64_t(g.N), C.int64_t(g.Cin), C.int64_t(g.H), C.int64_t(g.W)}
	wd := [4]C.int64_t{C.int64_t(g.Cout), C.int64_t(g.Cin / groups), C.int64_t(g.KH), C.int64_t(g.KW)}
	yd := [4]C.int64_t{C.int64_t(g.N), C.int64_t(g.Cout), C.int64_t(g.Ho), C.int64_t(g.Wo)}
	es := g.DType.Size()
	var bufs [3]C.CUdeviceptr
	if r := C.mp_alloc3(C.size_t(g.N*g.Cin*g.H*g.W*es), C.size_t(g.Cout*(g.Cin/groups)*g.KH*g.KW*es),
		C.size_t(g.N*g.Cout*g.Ho*g.Wo*es), &bufs[0]); r != 0 {
		if r == 2 { // CUDA_ERROR_OUT_OF_MEMORY
			return out, fmt.Errorf("allocating the convolution's tensors: %w", ErrOutOfMemory)
		}
		return out, fmt.Errorf("allocating the convolution's tensors: %w", cuErr(r))
	}
	defer C.mp_free3(&bufs[0])
	for pass := range out {
		var ws, engine C.int64_t
		var tried C.int
		s := C.mp_conv_workspace(C.int(pass), dt, &xd[0], &wd[0], &yd[0], C.int64_t(g.Stride), C.int64_t(g.Pad), &bufs[0], &ws, &engine, &tried)
		if err := dnnErr(s); err != nil {
			return out, fmt.Errorf("%s pass (%d engine configs tried): %w", spec.ConvPass(pass), int(tried), err)
		}
		out[pass] = ConvChoice{WorkspaceBytes: int64(ws), Engine: int64(engine), Tried: int(tried)}
	}
	return out, nil
}

func (d *cgoDriver) Conv(c ConvShape, x, w, y, ws DevicePtr, wsBytes int64) error {
	return dnnErr(C.mp_conv(C.CUdeviceptr(x), C.CUdeviceptr(w), C.CUdeviceptr(y), C.CUdeviceptr(ws), C.size_t(wsBytes)))
}

// Close frees the probe's memory and releases the context. The libraries
// stay loaded: unloading CUDA libraries in a live process is not safe, and
// the process ends soon after.
func (d *cgoDriver) Close() error {
	if d.ctx {
		for _, p := range d.ptrs {
			C.mp_cuMemFree(p)
		}
		d.ptrs = nil
		if err := cuErr(C.mp_release(d.dev)); err != nil {
			return err
		}
		d.ctx = false
	}
	if d.nvml != nil {
		d.nvml.Shutdown()
		d.nvml = nil
	}
	return nil
}
