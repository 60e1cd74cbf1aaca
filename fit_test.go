package main

import (
	"encoding/csv"
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
