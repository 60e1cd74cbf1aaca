package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// config.json is JSON as transformers reads it: a trailing comma, which the
// YAML decoder would take, is refused at its line and column.
func TestHFConfigIsStrictJSON(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("config.json", "{\n  \"architectures\": [\"GPT2LMHeadModel\"],\n  \"n_layer\": 2,\n}\n")
	desc := write("m.yaml", "name: m\nmodel: {hf_config: config.json}\ntraining: {batch_size: 1, seq_len: 64, precision: fp32, optimizer: adamw}\n")
	_, err := Load(desc)
	want := filepath.Join(dir, "config.json") + ":4:1: config.json is not valid JSON"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("trailing comma: %v (want it refused at %s)", err, want)
	}
	write("config.json", "{\n  \"architectures\": [\"GPT2LMHeadModel\"],\n  \"n_layer\": 2\n}\n")
	if m, err := Load(desc); err != nil || m.Architecture != "GPT2LMHeadModel" {
		t.Errorf("valid config.json: %v", err)
	}
	// Python's json.load takes NaN and Infinity (outside strings), so do we.
	write("config.json", "{\"architectures\": [\"GPT2LMHeadModel\"], \"x\": NaN, \"y\": -Infinity, \"z\": \"NaN, \\\"Infinity\"}")
	if _, err := Load(desc); err != nil {
		t.Errorf("NaN and -Infinity as Python writes them: %v", err)
	}
	// 1e400 is Python's inf: a number past float64 is still JSON.
	write("config.json", "{\"architectures\": [\"GPT2LMHeadModel\"], \"x\": 1e400}")
	if _, err := Load(desc); err != nil {
		t.Errorf("1e400: %v", err)
	}
	write("config.json", "{\"architectures\": [\"GPT2LMHeadModel\"]} {}")
	if _, err := Load(desc); err == nil || !strings.Contains(err.Error(), ":1:40: config.json is not valid JSON: more after the JSON object") {
		t.Errorf("a second object: %v", err)
	}
}

// A profile path the description gives is relative to the description, as
// hf_config's is; one a caller sets is the caller's; a built-in name stays.
func TestGPUProfileIsRelativeToTheDescription(t *testing.T) {
	m, err := Parse("runs/a.yaml", []byte("model: {architecture: GPT2LMHeadModel}\ntraining: {batch_size: 1, seq_len: 8}\ngpu: ../profiles/g.yaml\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.GPUProfile(); got != filepath.Join("profiles", "g.yaml") {
		t.Errorf("from the description: %q", got)
	}
	if err := m.Set("gpu", "x/g.yaml"); err != nil {
		t.Fatal(err)
	}
	if got := m.GPUProfile(); got != "x/g.yaml" {
		t.Errorf("set by the caller: %q", got)
	}
	if err := m.Set("gpu", "h200"); err != nil || m.GPUProfile() != "h200" {
		t.Errorf("built-in: %q, %v", m.GPUProfile(), err)
	}
}
