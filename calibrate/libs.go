package calibrate

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Where the probe looks for the NVIDIA libraries. The driver's own libraries
// (libcuda, libnvidia-ml) come first by their soname, through the dynamic
// loader's path, and then from the usual driver folders. The CUDA libraries
// (cuBLAS, cuBLASLt, cuDNN) are looked for first where PyTorch's own copies
// live (a Python environment's site-packages/nvidia/*/lib), since those are
// the ones a training run loads, then LD_LIBRARY_PATH, CUDA_HOME and
// /usr/local/cuda*.

// searchEnv is what the library search reads from the environment and the
// file system; tests replace it.
type searchEnv struct {
	Getenv func(string) string
	Glob   func(string) ([]string, error)
	Exists func(string) bool
}

func osSearchEnv() searchEnv {
	return searchEnv{
		Getenv: os.Getenv,
		Glob:   filepath.Glob,
		Exists: func(p string) bool { _, err := os.Stat(p); return err == nil },
	}
}

// driverDirs are the folders the driver's libraries are looked for in after
// the loader's own path.
var driverDirs = []string{
	"/usr/local/nvidia/lib64",
	"/usr/local/nvidia/lib",
	"/usr/lib/x86_64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu",
	"/usr/lib64",
	"/usr/lib",
	"/usr/lib/wsl/lib",
}

// driverCandidates lists what to dlopen, in order, for a driver library
// with the given soname: the bare soname first (the loader's search), then
// each driver folder that has it.
func driverCandidates(env searchEnv, soname string) []string {
	out := []string{soname}
	for _, dir := range driverDirs {
		p := filepath.Join(dir, soname)
		if env.Exists(p) {
			out = append(out, p)
		}
	}
	return out
}

// pythonPrefixes are environments whose site-packages may hold the NVIDIA
// wheels PyTorch uses.
func pythonPrefixes(env searchEnv) []string {
	var out []string
	for _, v := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if p := env.Getenv(v); p != "" {
			out = append(out, p)
		}
	}
	out = append(out, "/opt/torch/.venv", "/opt/conda", "/usr/local", "/usr")
	if h := env.Getenv("HOME"); h != "" {
		out = append(out, filepath.Join(h, ".local"))
	}
	return out
}

// cudaLibDirs lists, in the order they are tried, the folders that may hold
// cuBLAS, cuBLASLt and cuDNN.
func cudaLibDirs(env searchEnv) []string {
	var dirs []string
	seen := map[string]bool{}
	add := func(d string) {
		d = filepath.Clean(d)
		if d == "" || seen[d] || strings.Contains(d, "stubs") {
			return
		}
		seen[d] = true
		dirs = append(dirs, d)
	}
	for _, prefix := range pythonPrefixes(env) {
		for _, pat := range []string{
			"lib/python3*/site-packages/nvidia/*/lib",
			"lib/python3*/dist-packages/nvidia/*/lib",
			"lib64/python3*/site-packages/nvidia/*/lib",
		} {
			matches, _ := env.Glob(filepath.Join(prefix, pat))
			sort.Strings(matches)
			for _, m := range matches {
				add(m)
			}
		}
	}
	for _, d := range filepath.SplitList(env.Getenv("LD_LIBRARY_PATH")) {
		if d != "" {
			add(d)
		}
	}
	for _, v := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if p := env.Getenv(v); p != "" {
			add(filepath.Join(p, "lib64"))
			add(filepath.Join(p, "lib"))
		}
	}
	add("/usr/local/cuda/lib64")
	cudas, _ := env.Glob("/usr/local/cuda-*")
	sort.Sort(sort.Reverse(sort.StringSlice(cudas)))
	for _, c := range cudas {
		add(filepath.Join(c, "lib64"))
	}
	for _, d := range driverDirs[2:] {
		add(d)
	}
	return dirs
}

// libCandidate is one file that may be loaded for a library.
type libCandidate struct {
	Dir, Path string
	Major     int // the soname's major version (libcublas.so.13 → 13); 0 when unversioned
}

// findLibrary lists the files named base.so.N (or base.so) in dirs, for
// majors no higher than maxMajor (0: any), best first: the highest major
// wins (the newest the driver supports), then the folder earlier in dirs.
func findLibrary(env searchEnv, dirs []string, base string, maxMajor int) []libCandidate {
	var out []libCandidate
	for _, dir := range dirs {
		matches, _ := env.Glob(filepath.Join(dir, base+".so*"))
		for _, m := range matches {
			rest := strings.TrimPrefix(filepath.Base(m), base+".so")
			major := 0
			if rest != "" {
				parts := strings.Split(strings.TrimPrefix(rest, "."), ".")
				if len(parts) != 1 {
					continue // take the soname link, not libfoo.so.13.1.0.3
				}
				v, err := strconv.Atoi(parts[0])
				if err != nil {
					continue
				}
				major = v
			}
			if maxMajor > 0 && major > maxMajor {
				continue
			}
			out = append(out, libCandidate{Dir: dir, Path: m, Major: major})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Major > out[j].Major })
	return out
}
