package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/report"
)

// reconcileCases are the measured runs reconcile's golden files cover: an HF
// transformer, torchvision ResNets (training and inference), and custom
// graphs (a residual convnet, the 10M MLP, a transformer block stack).
var reconcileCases = []struct{ name, yaml, measured string }{
	{"gpt2-fp32-adamw-b8", "examples/measured/gpt2-fp32-adamw-b8.yaml", "testdata/measured/h200/gpt2-fp32-adamw-b8.json"},
	{"resnet50-fp32-sgd-b64", "examples/resnet50-fp32-sgd-b64.yaml", "testdata/validation/h200/resnet50-fp32-sgd-b64.json"},
	{"resnet18-fp32-sgd-b64", "examples/measured/resnet18-fp32-sgd-b64.yaml", "testdata/measured/h200/resnet18-fp32-sgd-b64.json"},
	{"resnet50-fp32-infer-b64", "examples/measured/resnet50-fp32-infer-b64.yaml", "testdata/measured/h200/resnet50-fp32-infer-b64.json"},
	{"custom-convnet-fp32-sgd-b64", "examples/measured/custom-convnet-fp32-sgd-b64.yaml", "testdata/measured/h200/custom-convnet-fp32-sgd-b64.json"},
	{"mlp10m-fp32-adam", "examples/measured/mlp10m-fp32-adam.yaml", "testdata/measured/h200/mlp10m-fp32-adam.json"},
	{"custom-transformer-fp32-adamw-b8", "examples/measured/custom-transformer-fp32-adamw-b8.yaml", "testdata/measured/h200/custom-transformer-fp32-adamw-b8.json"},
}

// TestReconcileFixtures keeps reconcile/testdata/*.estimate.json, the
// estimates reconcile's golden files are made from, next to the live
// pipeline: -update rewrites them; otherwise a drift is reported, not
// failed (reconcile's goldens test reconcile, not the estimator).
func TestReconcileFixtures(t *testing.T) {
	for _, c := range reconcileCases {
		name := c.name
		r, err := estimateFile(c.yaml, "", false)
		if err != nil {
			if *update {
				t.Errorf("%s: %v", name, err)
			} else {
				t.Logf("%s: the live estimate fails (%v); reconcile's golden keeps the frozen one", name, err)
			}
			continue
		}
		var buf bytes.Buffer
		if err := report.WriteJSON(&buf, r, report.Options{}); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("reconcile", "testdata", name+".estimate.json")
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (run go test -run TestReconcileFixtures -update . and then go test ./reconcile -update)", name, err)
			continue
		}
		if !bytes.Equal(old, buf.Bytes()) {
			t.Logf("%s: the live estimate differs from %s; refresh with -update here, then go test ./reconcile -update", name, path)
		}
	}
}

func TestReconcileCLI(t *testing.T) {
	yaml, measured := reconcileCases[0].yaml, reconcileCases[0].measured
	code, out, stderr := runCLI("reconcile", yaml, measured)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r, err := estimateFile(yaml, "", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"reconcile gpt2-fp32-adamw-b8", "nvidia-smi (process)", "largest per-phase miss", "segments and rounding", "peak staleness", "outside the allocator"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for _, term := range r.Terms {
		if !strings.Contains(out, term.Name) {
			t.Errorf("output lacks the term %q", term.Name)
		}
	}
	for _, ph := range []string{"forward", "backward", "optimizer", "zero_grad"} {
		if strings.Count(out, " "+ph+" ") < 2 {
			t.Errorf("output lacks two rows of %s", ph)
		}
	}

	html := filepath.Join(t.TempDir(), "r.html")
	if code, _, stderr := runCLI("reconcile", yaml, measured, "-o", html); code != exitOK {
		t.Fatalf("-o html: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(html)
	if err != nil || !bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) {
		t.Errorf("-o r.html: %v, %.40q", err, b)
	}
	code, out, _ = runCLI("reconcile", "--format", "json", yaml, measured)
	var v map[string]any
	if code != exitOK || json.Unmarshal([]byte(out), &v) != nil || v["rows"] == nil {
		t.Errorf("--format json: exit %d, %.200s", code, out)
	}

	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"reconcile", yaml}, exitUsage},
		{[]string{"reconcile", "--format", "pdf", yaml, measured}, exitUsage},
		{[]string{"reconcile", yaml, "does-not-exist.json"}, exitFailed},
		{[]string{"reconcile", yaml, "README.md"}, exitFailed},
		{[]string{"reconcile", "does-not-exist.yaml", measured}, exitFailed},
		{[]string{"reconcile", "--help"}, exitOK},
		{[]string{"reconcile", yaml, measured, "-o", filepath.Join(t.TempDir(), "r.xlsx")}, exitUsage},
		{[]string{"reconcile", yaml, measured, "--format", "json", "-o", filepath.Join(t.TempDir(), "r.html")}, exitUsage},
	} {
		if code, _, _ := runCLI(c.args...); code != c.code {
			t.Errorf("%v: exit %d, want %d", c.args, code, c.code)
		}
	}
}

// A measured run of another model, or from another GPU, is compared but
// said to be so in the warnings.
func TestReconcileWarnsOfMismatch(t *testing.T) {
	yaml, measured := reconcileCases[0].yaml, reconcileCases[0].measured
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{yaml, "testdata/measured/h200/bert-amp-bf16-adamw-b8.json"}, "it is not the model that was measured"},
		{[]string{yaml, measured, "--gpu", "l4"}, "the run was measured on NVIDIA H200, the estimate is for NVIDIA L4"},
	} {
		code, out, stderr := runCLI(append([]string{"reconcile", "--format", "json"}, c.args...)...)
		var rep struct{ Warnings []string }
		if code != exitOK || json.Unmarshal([]byte(out), &rep) != nil {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		if !strings.Contains(strings.Join(rep.Warnings, "\n"), c.want) {
			t.Errorf("%v: warnings %q lack %q", c.args, rep.Warnings, c.want)
		}
	}
	code, out, _ := runCLI("reconcile", "--format", "json", yaml, measured)
	var rep struct{ Warnings []string }
	if code != exitOK || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Warnings) != 0 {
		t.Errorf("the matching run: exit %d, warnings %q (want none)", code, rep.Warnings)
	}
}
