package calibrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuiltins(t *testing.T) {
	names := BuiltinNames()
	for _, want := range []string{"a100-40gb", "a100-80gb", "h100-80gb", "h200", "l4", "l40s", "rtx-3090", "rtx-4090"} {
		p, err := Resolve(want)
		if err != nil {
			t.Errorf("Resolve(%q): %v", want, err)
			continue
		}
		if p.Name != want {
			t.Errorf("Resolve(%q).Name = %q", want, p.Name)
		}
		if p.TotalBytes <= 0 || p.NVMLTotalBytes < p.TotalBytes || p.ContextBytes <= 0 || p.KernelBytes.Training <= 0 ||
			p.KernelBytes.Inference <= 0 || p.CublasWorkspaceBytes <= 0 || p.AllocationGranularity <= 0 || p.GPUName == "" {
			t.Errorf("%s: incomplete profile %+v", want, p)
		}
		if !p.Calibrated && p.TotalBytes%(2*MiB) != 0 {
			t.Errorf("%s: total %d is not whole 2 MiB", want, p.TotalBytes)
		}
		if want != "h200" {
			if p.Calibrated || !strings.HasPrefix(p.Provenance.Source, "uncalibrated: datasheet memory, context/kernel figures from the H200 rules") {
				t.Errorf("%s: calibrated %v source %q", want, p.Calibrated, p.Provenance.Source)
			}
		}
		// Every built-in survives a write and a strict read.
		path := filepath.Join(t.TempDir(), want+".yaml")
		if err := WriteFile(path, p); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadFile(path); err != nil {
			t.Errorf("%s: reading back: %v", want, err)
		}
		if !contains(names, want) {
			t.Errorf("BuiltinNames lacks %s: %v", want, names)
		}
	}
	if p, _ := Resolve("H200"); p == nil || p.Name != "h200" {
		t.Errorf("names are not case-insensitive")
	}
	// Each call gives a fresh copy.
	a, _ := Builtin("h200")
	a.ContextBytes = 1
	if b, _ := Builtin("h200"); b.ContextBytes == 1 {
		t.Errorf("built-in profiles share state")
	}
	// Workspace sizes follow PyTorch's rule per architecture.
	for name, want := range map[string]int64{"h100-80gb": 32 * MiB, "a100-80gb": 8519680, "rtx-4090": 8519680} {
		if p, _ := Builtin(name); p.CublasWorkspaceBytes != want {
			t.Errorf("%s workspace = %d, want %d", name, p.CublasWorkspaceBytes, want)
		}
	}
}

func TestH200Builtin(t *testing.T) {
	p, err := Builtin("h200")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Calibrated || p.GPUName != "NVIDIA H200" || p.ComputeCapability != 90 || p.TotalBytes != 150109880320 {
		t.Errorf("h200: %+v", p)
	}
	if p.CublasWorkspaceBytes != 32*MiB || p.CublasLtWorkspaceBytes != MiB {
		t.Errorf("h200 workspaces %d %d", p.CublasWorkspaceBytes, p.CublasLtWorkspaceBytes)
	}
	// The measured runs: outside the allocator, a training step showed
	// 740-742 MiB (context + kernels) without cuDNN convolutions and 16-bit
	// fused attention, 758-762 MiB with them; an inference forward 676-678
	// and 684-686 MiB.
	for _, c := range []struct {
		training, fused bool
		lo, hi          int64
	}{{true, false, 740, 742}, {true, true, 758, 762}, {false, false, 676, 678}, {false, true, 684, 686}} {
		if o := p.OutsideAllocator(c.training, c.fused); o < c.lo*MiB || o > c.hi*MiB {
			t.Errorf("h200 outside allocator (training %v, fused %v) = %s, want %d-%d MiB", c.training, c.fused, mib(o), c.lo, c.hi)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestResolveUnknown(t *testing.T) {
	_, err := Resolve("h900")
	if err == nil || !strings.Contains(err.Error(), `unknown GPU profile "h900"`) || !strings.Contains(err.Error(), "a100-80gb") {
		t.Errorf("err = %v", err)
	}
	if _, err := Resolve(""); err == nil {
		t.Errorf("empty name accepted")
	}
	_, err = Resolve("/no/such/profile.yaml")
	if err == nil || !strings.Contains(err.Error(), "/no/such/profile.yaml") {
		t.Errorf("err = %v", err)
	}
}

const goodProfile = `name: my-gpu
gpu_name: NVIDIA H200
total_bytes: 150109880320
compute_capability: 90
context_bytes: 543162368
kernel_bytes:
  training: 243269632
  inference: 176160768
cublas_workspace_bytes: 33554432
cublaslt_workspace_bytes: 1048576
allocation_granularity: 2097152
calibrated: true
provenance:
  source: a test
  measured: [context_bytes]
`

func writeTemp(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestResolveFile(t *testing.T) {
	path := writeTemp(t, "gpu.yaml", goodProfile)
	p, err := Resolve(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != path || p.ContextBytes != 543162368 || p.KernelBytes.Training != 243269632 || !p.Calibrated ||
		p.Provenance.Measured[0] != "context_bytes" || p.Probe != nil {
		t.Errorf("profile %+v", p)
	}
	if got := p.OutsideAllocator(false, false); got != 543162368+176160768 {
		t.Errorf("OutsideAllocator(false, false) = %d", got)
	}
	if got := p.OutsideAllocator(true, true); got != 543162368+243269632 {
		t.Errorf("OutsideAllocator(true, true) = %d (a profile without fused_training adds nothing)", got)
	}
	// A bare name that is no built-in but an existing file is read.
	dir := filepath.Dir(path)
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(dir)
	if p, err := Resolve("gpu.yaml"); err != nil || p.TotalBytes != 150109880320 {
		t.Errorf("Resolve(relative) = %v, %v", p, err)
	}
}

func TestResolveBadFiles(t *testing.T) {
	for _, c := range []struct {
		name, body, want string
	}{
		{"unknown key", strings.Replace(goodProfile, "context_bytes: 543162368", "context_bytes: 543162368\ncontext_byte: 1", 1),
			`:6:1: unknown key "context_byte" in the profile`},
		{"unknown nested key", strings.Replace(goodProfile, "  inference: 176160768", "  inference: 176160768\n  infrence: 3", 1),
			`:9:3: unknown key "infrence" in kernel_bytes (known: conv, fused_inference, fused_training, gemm_bf16, gemm_fp32, inference, training)`},
		{"wrong type", strings.Replace(goodProfile, "context_bytes: 543162368", "context_bytes: 518 MiB", 1),
			`:5:16: context_bytes: expected a whole number, found "518 MiB"`},
		{"not a mapping", strings.Replace(goodProfile, "kernel_bytes:\n  training: 243269632\n  inference: 176160768", "kernel_bytes: 5", 1),
			`:6:15: kernel_bytes: expected a mapping of keys, found "5"`},
		{"duplicate", goodProfile + "context_bytes: 1\n", `:16:1: key "context_bytes" given twice in the profile (first at line 5)`},
		{"missing total", strings.Replace(goodProfile, "total_bytes: 150109880320\n", "", 1), `:1:1: missing total_bytes`},
		{"negative", strings.Replace(goodProfile, "context_bytes: 543162368", "context_bytes: -5", 1), `:5:1: context_bytes must not be negative`},
		{"syntax", "name: [unclosed\n", `gpu.yaml:`},
		{"bad indentation", "name: x\n  total_bytes: 3\n", `gpu.yaml:2:1: YAML syntax`},
		{"missing context", strings.Replace(goodProfile, "context_bytes: 543162368\n", "", 1), `:1:1: missing context_bytes`},
		{"negative nccl", goodProfile + "nccl_bytes: -1073741824\n", `:16:1: nccl_bytes must not be negative`},
		{"nccl past the device", goodProfile + "nccl_bytes: 999999999999999\n", `:16:1: nccl_bytes (999999999999999) is not below total_bytes`},
		{"granularity", strings.Replace(goodProfile, "allocation_granularity: 2097152", "allocation_granularity: 3", 1), `:11:1: allocation_granularity 3 is not a power of two`},
		{"empty", "", `empty GPU profile`},
		{"a list", "- 1\n- 2\n", `:1:1: the profile: expected a mapping of keys, found a list`},
		{"unknown probe step key", goodProfile + "probe:\n  method: nvml-process\n  steps:\n    - step: context\n      used: 3\n",
			`:20:7: unknown key "used" in probe.steps[0]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeTemp(t, "gpu.yaml", c.body)
			_, err := Resolve(path)
			if err == nil {
				t.Fatalf("accepted:\n%s", c.body)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), path) {
				t.Errorf("error %q\nwant it to start with the path and contain %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "gpu.yaml")
	p, _ := Builtin("a100-80gb")
	if err := WriteFile(path, p); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(path)
	if !strings.Contains(string(first), "total_bytes: 84984987648 # 81048 MiB = 79.15 GiB") {
		t.Errorf("no MiB comment:\n%s", first)
	}
	// Overwrite: the new content replaces the old; no temporary file stays.
	p.ContextBytes = 600 * MiB
	if err := WriteFile(path, p); err != nil {
		t.Fatal(err)
	}
	back, err := LoadFile(path)
	if err != nil || back.ContextBytes != 600*MiB {
		t.Fatalf("read back %v, %v", back, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("folder holds %d entries, want just the profile: %v", len(entries), entries)
	}

	// A failed write leaves the old file untouched and no temporary file.
	if os.Geteuid() != 0 { // root ignores permissions
		os.Chmod(dir, 0o555)
		err = WriteFile(path, p)
		os.Chmod(dir, 0o755)
		if err == nil {
			t.Errorf("write into a read-only folder succeeded")
		}
	}
	// Renaming onto a folder fails after the temporary file was written.
	target := filepath.Join(dir, "adir")
	os.Mkdir(target, 0o755)
	os.WriteFile(filepath.Join(target, "x"), []byte("x"), 0o644)
	if err := WriteFile(target, p); err == nil {
		t.Errorf("writing over a folder succeeded")
	} else if !strings.Contains(err.Error(), "adir") {
		t.Errorf("err = %v", err)
	}
	entries, _ = os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
	if now, _ := os.ReadFile(path); string(now) == string(first) {
		t.Errorf("overwrite did not happen")
	}
	// Into a folder that does not exist: an error, nothing created.
	if err := WriteFile(filepath.Join(dir, "no", "such", "gpu.yaml"), p); err == nil {
		t.Errorf("write into a missing folder succeeded")
	}
	if err := WriteFile(path, nil); err == nil {
		t.Errorf("nil profile written")
	}
}

func TestLibrarySearch(t *testing.T) {
	files := map[string]bool{
		"/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcublas.so.13":   true,
		"/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcublasLt.so.13": true,
		"/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9":    true,
		"/usr/local/cuda-12.4/lib64/libcublas.so.12":                                      true,
		"/usr/local/cuda-12.4/lib64/libcublas.so.12.4.5.8":                                true,
		"/usr/local/cuda-12.4/lib64/libcublas.so":                                         true,
		"/usr/local/nvidia/lib64/libcuda.so.1":                                            true,
		"/usr/local/cuda/lib64/stubs/libcublas.so.13":                                     true,
	}
	env := searchEnv{
		Getenv: func(k string) string {
			return map[string]string{"LD_LIBRARY_PATH": "/usr/local/cuda/lib64/stubs:/x", "CUDA_HOME": "/usr/local/cuda-12.4"}[k]
		},
		Glob: func(pat string) ([]string, error) {
			var out []string
			seen := map[string]bool{}
			for f := range files {
				for d := f; d != "/" && d != "."; d = filepath.Dir(d) {
					if ok, _ := filepath.Match(pat, d); ok && !seen[d] {
						seen[d] = true
						out = append(out, d)
					}
				}
			}
			return out, nil
		},
		Exists: func(p string) bool { return files[p] },
	}
	dirs := cudaLibDirs(env)
	if len(dirs) < 3 || !strings.HasSuffix(dirs[0], "nvidia/cu13/lib") {
		t.Fatalf("dirs = %v", dirs)
	}
	for _, d := range dirs {
		if strings.Contains(d, "stubs") {
			t.Errorf("stub folder searched: %s", d)
		}
	}
	c := findLibrary(env, dirs, "libcublas", 13)
	if len(c) != 3 || c[0].Major != 13 || !strings.HasSuffix(c[0].Path, "cu13/lib/libcublas.so.13") || c[1].Major != 12 || c[2].Major != 0 {
		t.Errorf("cuBLAS candidates %+v", c)
	}
	if c := findLibrary(env, dirs, "libcublas", 12); len(c) != 2 || c[0].Major != 12 {
		t.Errorf("cuBLAS ≤12 candidates %+v", c)
	}
	if c := findLibrary(env, dirs, "libcudnn", 0); len(c) != 1 || c[0].Major != 9 {
		t.Errorf("cuDNN candidates %+v", c)
	}
	if got := driverCandidates(env, "libcuda.so.1"); len(got) != 2 || got[0] != "libcuda.so.1" || got[1] != "/usr/local/nvidia/lib64/libcuda.so.1" {
		t.Errorf("driver candidates %v", got)
	}
}
