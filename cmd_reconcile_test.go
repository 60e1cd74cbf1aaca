package main

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// A measured run from another GPU is compared but said to be so in the
// warnings.
func TestReconcileWarnsOfMismatch(t *testing.T) {
	yaml, measured := reconcileCases[0].yaml, reconcileCases[0].measured
	for _, c := range []struct {
		args []string
		want string
	}{
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

// A measured run of another model (its recorded parameter count is not the
// description's) is refused at its param_count, and nothing is written.
func TestReconcileRefusesAnotherModel(t *testing.T) {
	for _, c := range []struct{ yaml, measured, want string }{
		{"examples/mlp10m-fp32-adam.yaml", "testdata/validation/h200/gpt2-fp32-adamw-b8.json",
			`testdata/validation/h200/gpt2-fp32-adamw-b8.json:56:17: the run (case "gpt2-fp32-adamw-b8") has 124439808 parameters, examples/mlp10m-fp32-adam.yaml describes 10000000: it is another model (allowed: a run of the described model, with its parameter count)`},
		{reconcileCases[0].yaml, "testdata/measured/h200/bert-amp-bf16-adamw-b8.json",
			`testdata/measured/h200/bert-amp-bf16-adamw-b8.json:63:17: the run (case "bert-amp-bf16-adamw-b8") has 109514298 parameters, examples/measured/gpt2-fp32-adamw-b8.yaml describes 124439808: it is another model (allowed: a run of the described model, with its parameter count)`},
	} {
		out := filepath.Join(t.TempDir(), "r.html")
		code, stdout, stderr := runCLI("reconcile", c.yaml, c.measured, "-o", out)
		if code != exitFailed || stderr != "memplan: "+c.want+"\n" || stdout != "" {
			t.Errorf("%s %s: exit %d, stdout %q, stderr\n %q\nwant\n %q", c.yaml, c.measured, code, stdout, stderr, "memplan: "+c.want+"\n")
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: -o %s was written", c.measured, out)
		}
	}
}

// lineColOf is the 1-based line and column (in characters) of byte offset
// off in text, counted independently of the reconcile package.
func lineColOf(text string, off int) string {
	before := text[:off]
	line := strings.Count(before, "\n") + 1
	col := len([]rune(before[strings.LastIndex(before, "\n")+1:])) + 1
	return fmt.Sprintf("%d:%d", line, col)
}

// TestReconcileRefusesBadMeasured: malformed measured runs are refused with
// exit 1 and one line, FILE:LINE:COL: what is wrong (allowed: …).
func TestReconcileRefusesBadMeasured(t *testing.T) {
	const yaml = "examples/measured/mlp10m-fp32-adam.yaml"
	b, err := os.ReadFile("testdata/measured/h200/mlp10m-fp32-adam.json")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	// edit replaces the number after the last of anchors (each found after
	// the one before) with value, and returns the text and the value's place.
	edit := func(value string, anchors ...string) (string, string) {
		at := 0
		for _, a := range anchors {
			i := strings.Index(text[at:], a)
			if i < 0 {
				t.Fatalf("%q not in the measured run", a)
			}
			at += i + len(a)
		}
		end := at + strings.IndexAny(text[at:], ",\n}")
		return text[:at] + value + text[end:], lineColOf(text, at)
	}
	const never = " (allowed: 0 or more: bytes, counts and times are never negative)"
	type bad struct{ in, at, want string }
	var cases []bad
	add := func(in, at, want string) { cases = append(cases, bad{in, at, want}) }
	add("", "1:1", "empty file (allowed: the JSON memplan_probe.py writes)")
	add("\n  \n", "1:1", "empty file (allowed: the JSON memplan_probe.py writes)")
	add("\ufeff"+text, "1:1", "the file starts with a UTF-8 byte-order mark (allowed: the JSON memplan_probe.py writes, which has none; Python's json.load refuses one too)")
	half := len(text) / 2
	trunc := text[:half+strings.Index(text[half:], ",\n")+1] // cut after a value
	add(trunc+"\n", lineColOf(trunc, len(trunc)), "the file ends before the JSON object does (allowed: the JSON memplan_probe.py writes, whole)")
	body := strings.TrimRight(text, "\n")
	add(body+"\ngarbage\n", lineColOf(body+"\n", len(body)+1), "more after the JSON object (allowed: one JSON object, then only white space)")
	add(body+" }", lineColOf(body+" }", len(body)+1), "more after the JSON object (allowed: one JSON object, then only white space)")
	key := strings.Index(text, `"iterations": `) + len(`"iterations": `)
	add(text[:key]+`"many", "old": `+text[key:], lineColOf(text, key), `iterations is "many" (allowed: an array)`)
	in, at := edit(`"10000000"`, `"param_count": `)
	add(in, at, `param_count is "10000000" (allowed: a whole number from 0 to 9223372036854775807)`)
	in, at = edit("-78569472", `"iterations"`, `"after"`, `"allocated_bytes.all.peak": `)
	add(in, at, "iterations[0].phases.forward.after.allocated_bytes.all.peak is -78569472"+never)
	in, at = edit("-98566144", `"iterations"`, `"after"`, `"reserved_bytes.all.current": `)
	add(in, at, "iterations[0].phases.forward.after.reserved_bytes.all.current is -98566144"+never)
	in, at = edit("-5364776960", `"nvml_final"`, `"device_used": `)
	add(in, at, "nvml_final.device_used is -5364776960"+never)

	dir := t.TempDir()
	for i, c := range cases {
		path := filepath.Join(dir, fmt.Sprintf("m%d.json", i))
		if err := os.WriteFile(path, []byte(c.in), 0o644); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("memplan: %s:%s: %s\n", path, c.at, c.want)
		code, stdout, stderr := runCLI("reconcile", yaml, path)
		if code != exitFailed || stderr != want || stdout != "" {
			t.Errorf("case %d: exit %d, stdout %.40q, stderr\n %q\nwant\n %q", i, code, stdout, stderr, want)
		}
	}
}

// TestReconcileOutputNotInput: -o naming an input, however spelled, is a
// usage error and leaves the input as it was.
func TestReconcileOutputNotInput(t *testing.T) {
	dir := t.TempDir()
	desc, err := os.ReadFile(reconcileCases[0].yaml)
	if err != nil {
		t.Fatal(err)
	}
	run, err := os.ReadFile(reconcileCases[0].measured)
	if err != nil {
		t.Fatal(err)
	}
	yaml, measured := filepath.Join(dir, "d.yaml"), filepath.Join(dir, "m.json")
	if os.WriteFile(yaml, desc, 0o644) != nil || os.WriteFile(measured, run, 0o644) != nil {
		t.Fatal("cannot write the inputs")
	}
	link, hard := filepath.Join(dir, "l.json"), filepath.Join(dir, "h.json")
	if err := os.Symlink("m.json", link); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(measured, hard); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ out, what, in string }{
		{measured, "the measured run", measured},
		{filepath.Join(dir, "sub", "..", ".", "m.json"), "the measured run", measured},
		{link, "the measured run", measured},
		{hard, "the measured run", measured},
		{yaml, "the description", yaml},
	} {
		code, stdout, stderr := runCLI("reconcile", yaml, measured, "-o", c.out)
		want := fmt.Sprintf("memplan reconcile: -o %s is %s %s (allowed: an output file that is neither input)\n", c.out, c.what, c.in)
		if code != exitUsage || stderr != want || stdout != "" {
			t.Errorf("-o %s: exit %d, stdout %q, stderr\n %q\nwant\n %q", c.out, code, stdout, stderr, want)
		}
	}
	if b, _ := os.ReadFile(measured); !bytes.Equal(b, run) {
		t.Error("the measured run was overwritten")
	}
	if b, _ := os.ReadFile(yaml); !bytes.Equal(b, desc) {
		t.Error("the description was overwritten")
	}
	// another file in the same folder is fine
	if code, _, stderr := runCLI("reconcile", yaml, measured, "-o", filepath.Join(dir, "r.json")); code != exitOK {
		t.Errorf("-o r.json: exit %d: %s", code, stderr)
	}
}
