package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// fit's answer must fit, and one more must not.
func TestFitAnswerIsTight(t *testing.T) {
	code, out, stderr := runCLI("fit", "examples/gpt2-fp32-adamw-b8.yaml", "--headroom", "5%")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m := regexp.MustCompile(`largest batch_size: (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no answer in:\n%s", out)
	}
	best, _ := strconv.Atoi(m[1])
	p, err := newPlanner("examples/gpt2-fp32-adamw-b8.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	limit := int64(float64(p.prof.TotalBytes) * 0.95)
	for _, c := range []struct {
		batch int
		fits  bool
	}{{best, true}, {best + 1, false}} {
		ok, r, err := p.fits(limit, [2]string{"training.batch_size", strconv.Itoa(c.batch)})
		if err != nil {
			t.Fatal(err)
		}
		if ok != c.fits {
			t.Errorf("batch %d: fits=%v (peak %d, limit %d), want %v", c.batch, ok, r.Peak.DeviceUsedBytes, limit, c.fits)
		}
	}
	for _, want := range []string{"activation_checkpointing: true", "precision: bf16", "expandable_segments: true", "largest seq_len at batch 8"} {
		if !strings.Contains(out, want) {
			t.Errorf("fit output lacks %q", want)
		}
	}
}

func TestCheckExitCodes(t *testing.T) {
	if code, out, _ := runCLI("check", "examples/gpt2-fp32-adamw-b8.yaml", "--budget", "80GiB"); code != exitOK || !strings.HasPrefix(out, "FITS") {
		t.Errorf("80GiB: exit %d, %q", code, out)
	}
	if code, out, _ := runCLI("check", "examples/gpt2-fp32-adamw-b8.yaml", "--budget", "8GiB"); code != exitNoFit || !strings.HasPrefix(out, "DOES NOT FIT") {
		t.Errorf("8GiB: exit %d, %q", code, out)
	}
	if code, _, _ := runCLI("check", "examples/gpt2-fp32-adamw-b8.yaml", "--budget", "lots"); code != exitUsage {
		t.Errorf("bad budget: exit %d", code)
	}
	if code, _, _ := runCLI("fit", "examples/gpt2-fp32-adamw-b8.yaml", "--headroom", "120%"); code != exitUsage {
		t.Errorf("bad headroom: exit %d", code)
	}
}

func TestSweep(t *testing.T) {
	code, out, stderr := runCLI("estimate", "examples/gpt2-fp32-adamw-b8.yaml", "--set", "training.batch_size=1,2", "--set", "training.seq_len=128,256", "--format", "csv")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 {
		t.Fatalf("want header + 4 rows, got %d", len(rows))
	}
	prev := int64(0)
	for _, r := range rows[1:] {
		if r[len(r)-1] != "" {
			t.Fatalf("row error: %v", r)
		}
		v, _ := strconv.ParseInt(r[4], 10, 64) // device_used_bytes
		if r[1] == "256" && v <= prev {
			t.Errorf("longer sequences must need more memory: %v", rows)
		}
		prev = v
	}
	if code, _, _ := runCLI("estimate", "examples/gpt2-fp32-adamw-b8.yaml", "--set", "training.bogus=1"); code != exitFailed {
		t.Errorf("unknown --set key: exit %d", code)
	}
	code, out, _ = runCLI("estimate", "examples/gpt2-fp32-adamw-b8.yaml", "--set", "training.batch_size=1", "--format", "jsonl")
	if code != exitOK || !strings.Contains(out, `"device_used_bytes"`) {
		t.Errorf("jsonl: exit %d %q", code, out)
	}
}

// A sweep's gpu axis estimates each point against that GPU's profile (its
// context, kernels and convolution workspaces), exactly as --gpu does.
func TestSweepGPUAxis(t *testing.T) {
	const ex = "examples/resnet50-fp32-sgd-b64.yaml"
	code, out, stderr := runCLI("estimate", ex, "--set", "gpu=h200,a100-80gb", "--format", "csv")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("want header + 2 rows: %v %v", rows, err)
	}
	for _, r := range rows[1:] {
		code, js, stderr := runCLI("estimate", ex, "--gpu", r[0], "--format", "json")
		if code != exitOK {
			t.Fatalf("--gpu %s: exit %d: %s", r[0], code, stderr)
		}
		var res struct {
			Peak struct {
				AllocatedBytes  int64 `json:"allocated_bytes"`
				DeviceUsedBytes int64 `json:"device_used_bytes"`
			} `json:"peak"`
		}
		if err := json.Unmarshal([]byte(js), &res); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprint(res.Peak.AllocatedBytes, " ", res.Peak.DeviceUsedBytes); r[1]+" "+r[3] != want {
			t.Errorf("gpu=%s: sweep row %v, --gpu gives allocated and nvidia-smi %s", r[0], r, want)
		}
	}
	if rows[1][3] == rows[2][3] {
		t.Errorf("two GPUs, one nvidia-smi figure: %v", rows)
	}
}

// A value no point could take is refused before anything runs; a point
// that cannot be estimated keeps its row, with the error, and the sweep
// exits 1.
func TestSweepErrors(t *testing.T) {
	for _, set := range []string{"training.batch_size=1,x", "gpu=h200,no-such-gpu", "training.precision=bf16,fp12"} {
		code, out, stderr := runCLI("estimate", "examples/gpt2-fp32-adamw-b8.yaml", "--set", set)
		if code != exitFailed || out != "" || !strings.Contains(stderr, set) {
			t.Errorf("--set %s: exit %d, stdout %q, stderr %q (want exit 1, nothing written, the setting named)", set, code, out, stderr)
		}
	}
	code, out, stderr := runCLI("estimate", "examples/gpt2-fp32-adamw-b8.yaml", "--set", "training.seq_len=128,2048", "--format", "csv")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != exitFailed || err != nil || len(rows) != 3 || rows[1][len(rows[1])-1] != "" || !strings.Contains(rows[2][len(rows[2])-1], "n_positions") {
		t.Errorf("one point past n_positions: exit %d, rows %q, stderr %q (want exit 1 and both rows, the second with its error)", code, rows, stderr)
	}
	if !strings.Contains(stderr, "1 of 2 grid points") {
		t.Errorf("stderr %q does not count the failed points", stderr)
	}
}

// TestFitOptionsAllEstimate: every alternative in fit's tables is estimated
// (an SGD-with-momentum description switched to AdamW, sharded layouts
// that need their ranks), none answered with an error.
func TestFitOptionsAllEstimate(t *testing.T) {
	code, out, stderr := runCLI("fit", "examples/resnet50-fp32-sgd-b64.yaml")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "setting training.") {
			t.Errorf("an option failed: %s", line)
		}
	}
	for _, want := range []string{"optimizer: adamw foreach", "zero1", "fsdp"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q line:\n%s", want, out)
		}
	}
}
