package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/estimate"
)

// runCLI drives the CLI in-process.
func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestExitCodes(t *testing.T) {
	cases := []struct {
		args []string
		code int
	}{
		{nil, exitUsage},
		{[]string{"nope"}, exitUsage},
		{[]string{"--help"}, exitOK},
		{[]string{"version"}, exitOK},
		{[]string{"estimate"}, exitUsage},
		{[]string{"estimate", "--format", "yaml", "examples/seed-10m-adam.yaml"}, exitUsage},
		{[]string{"estimate", "--help"}, exitOK},
		{[]string{"shapes", "--help"}, exitOK},
		{[]string{"alloc", "--help"}, exitOK},
		{[]string{"calibrate", "--help"}, exitOK},
		{[]string{"estimate", "does-not-exist.yaml"}, exitFailed},
		{[]string{"estimate", "examples/seed-10m-adam.yaml"}, exitOK},
		{[]string{"estimate", "examples/seed-10m-adam.yaml", "--gpu", "nosuchgpu"}, exitFailed},
		{[]string{"alloc", "4MiB", "banana"}, exitFailed},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(c.args...)
		if code != c.code {
			t.Errorf("memplan %s: exit %d, want %d (stderr %q)", strings.Join(c.args, " "), code, c.code, stderr)
		}
	}
}

// --help prints the usage once, on stdout; a wrong number of arguments
// says what was wrong before the usage.
func TestUsageMessages(t *testing.T) {
	for _, cmd := range []string{"estimate", "check", "fit", "report", "shapes", "alloc", "oom", "reconcile", "calibrate", "version"} {
		code, out, stderr := runCLI(cmd, "--help")
		if code != exitOK || strings.Count(out, "usage: memplan "+cmd) != 1 || stderr != "" {
			t.Errorf("%s --help: exit %d, stdout %q, stderr %q (want the usage once, on stdout)", cmd, code, out, stderr)
		}
	}
	for _, args := range [][]string{{"check", "a.yaml", "b.yaml"}, {"version", "extra"}, {"reconcile", "a.yaml"}, {"report", "examples/seed-10m-adam.yaml"}, {"alloc"}} {
		code, _, stderr := runCLI(args...)
		first, _, _ := strings.Cut(stderr, "\n")
		if code != exitUsage || !strings.HasPrefix(first, "memplan "+args[0]+": ") || strings.Count(stderr, "usage: ") != 1 {
			t.Errorf("%v: exit %d, stderr %q (want exit 2, a line saying what is wrong, then the usage once)", args, code, stderr)
		}
	}
}

// The seed check of issue 2: 10,000,000 fp32 parameters with Adam hold
// 160 MB = 152.6 MiB of model states before activations, units labeled.
func TestSeedModelStates(t *testing.T) {
	code, out, stderr := runCLI("estimate", "examples/seed-10m-adam.yaml")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"152.6 MiB = 160.0 MB", "10000000 parameters, 38.1 MiB (40.0 MB)", "optimizer state", "76.3 MiB"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI("estimate", "--format", "json", "examples/seed-10m-adam.yaml")
	if code != exitOK {
		t.Fatal("json failed")
	}
	var r estimate.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	byName := map[string]int64{}
	for _, term := range r.Terms {
		byName[term.Name] = term.Bytes
	}
	if byName["parameters"] != 40_000_000 || byName["gradients"] != 40_000_000 || byName["optimizer state"] != 80_000_000 {
		t.Errorf("terms %v, want 40 MB weights, 40 MB gradients, 80 MB moments", byName)
	}
	if got := byName["model states (parameters + gradients + optimizer state)"]; got != 160_000_000 {
		t.Errorf("model states %d, want 160000000", got)
	}
}

// The JSON result carries exactly the keys of DESIGN.md's contract.
func TestJSONContract(t *testing.T) {
	_, out, _ := runCLI("estimate", "--format", "json", "examples/seed-10m-adam.yaml")
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &top); err != nil {
		t.Fatal(err)
	}
	want := []string{"name", "memplan_version", "model", "gpu", "iterations", "peak", "terms", "warnings"}
	if len(top) != len(want) {
		t.Errorf("keys %v, want %v", keys(top), want)
	}
	for _, k := range want {
		if _, ok := top[k]; !ok {
			t.Errorf("missing key %q", k)
		}
	}
	var r struct {
		Iterations []struct {
			Iteration int `json:"iteration"`
			Phases    []map[string]any
		} `json:"iterations"`
		Peak map[string]any `json:"peak"`
	}
	json.Unmarshal([]byte(out), &r)
	if len(r.Iterations) != 2 || r.Iterations[0].Iteration != 1 || r.Iterations[1].Iteration != 2 {
		t.Fatalf("iterations %+v", r.Iterations)
	}
	phases := []string{"forward", "backward", "optimizer", "zero_grad"}
	for i, ph := range r.Iterations[1].Phases {
		if ph["phase"] != phases[i] {
			t.Errorf("phase %d = %v, want %s", i, ph["phase"], phases[i])
		}
		for _, k := range []string{"peak_allocated_bytes", "peak_reserved_bytes", "end_allocated_bytes", "end_reserved_bytes"} {
			if _, ok := ph[k]; !ok {
				t.Errorf("phase lacks %s", k)
			}
		}
	}
	for _, k := range []string{"allocated_bytes", "reserved_bytes", "device_used_bytes", "iteration", "phase"} {
		if _, ok := r.Peak[k]; !ok {
			t.Errorf("peak lacks %s", k)
		}
	}
}

func keys(m map[string]json.RawMessage) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	return k
}

// The seed's "4 MiB tensor inside a 20 MiB segment", replayed by `memplan alloc`.
func TestAllocCommand(t *testing.T) {
	code, out, stderr := runCLI("alloc", "4MiB", "1024x1024xfp32", "21MiB", "free:1")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 {
		t.Fatalf("got %d lines:\n%s", len(lines), out)
	}
	for i, want := range [][]string{{"4.0 MiB", "20.0 MiB", "1"}, {"8.0 MiB", "20.0 MiB", "1"}, {"30.0 MiB", "42.0 MiB", "2"}, {"26.0 MiB", "42.0 MiB", "2"}} {
		f := strings.Fields(lines[i+1])
		if got := f[3] + " " + f[4]; got != want[0] {
			t.Errorf("step %d allocated %q, want %q", i+1, got, want[0])
		}
		if got := f[5] + " " + f[6]; got != want[1] {
			t.Errorf("step %d reserved %q, want %q", i+1, got, want[1])
		}
		if got := f[len(f)-1]; got != want[2] {
			t.Errorf("step %d segments %q, want %q", i+1, got, want[2])
		}
	}
	// A free row gives back its block's bytes; a free before any request says so.
	if f := strings.Fields(lines[4]); f[2] != "-4194304" {
		t.Errorf("free:1 row %q: want -4194304 bytes", lines[4])
	}
	if code, _, stderr := runCLI("alloc", "free:1"); code != exitFailed || !strings.Contains(stderr, "no request was made before it") {
		t.Errorf("free:1 alone: exit %d, %q", code, stderr)
	}
}

func TestShapes(t *testing.T) {
	code, out, stderr := runCLI("shapes", "examples/mlp10m-fp32-adam.yaml")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"0.weight", "[5000, 1000]", "20000000", "[64, 5000]", "activation, saved", "activation gradient"} {
		if !strings.Contains(out, want) {
			t.Errorf("shapes output lacks %q", want)
		}
	}
}

// Every example must estimate without error.
func TestExamplesEstimate(t *testing.T) {
	files, _ := filepath.Glob("examples/*.yaml")
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	for _, f := range files {
		if _, err := estimateFile(f, "", true); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestWriteReportAtomic(t *testing.T) {
	dir := t.TempDir()
	r, err := estimateFile("examples/seed-10m-adam.yaml", "", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeReport(filepath.Join(dir, "x.json"), r); err != nil {
		t.Fatal(err)
	}
	if err := writeReport(filepath.Join(dir, "x.bogus"), r); err == nil {
		t.Fatal("want an error for an unknown extension")
	}
	if err := writeReport(filepath.Join(dir, "missing", "x.json"), r); err == nil {
		t.Fatal("want an error for a missing folder")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestEventsFlag(t *testing.T) {
	code, out, stderr := runCLI("estimate", "--events", "examples/mlp10m-fp32-adam.yaml")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 20 || !strings.HasPrefix(lines[0], "iteration\tphase\taction") {
		t.Fatalf("unexpected events output:\n%s", out)
	}
	if !strings.Contains(out, "2\toptimizer\talloc\t20971520\ttemporary") {
		t.Errorf("the steady optimizer's foreach sqrt copy is missing:\n%s", out)
	}
}

// A panic (a bug) is one line on stderr and exit 1, not a Go crash.
func TestPanicIsOneLine(t *testing.T) {
	var stderr strings.Builder
	code := func() (code int) {
		defer reportBug(&stderr, &code)
		panic("index out of range")
	}()
	if code != exitFailed || strings.Count(stderr.String(), "\n") != 1 || !strings.HasPrefix(stderr.String(), "memplan: internal error: index out of range") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// A panic in a parallel worker is raised again on the caller's goroutine,
// where run's reportBug turns it into one line.
func TestInParallelRaisesAWorkersPanic(t *testing.T) {
	defer func() {
		if r := recover(); r != "job 3" {
			t.Errorf("recovered %v, want the worker's panic", r)
		}
	}()
	inParallel(8, func(i int) int {
		if i == 3 {
			panic("job 3")
		}
		return i
	})
	t.Error("inParallel returned after a worker panicked")
}
