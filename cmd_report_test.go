package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"r.html", "r.xlsx"} {
		out := filepath.Join(dir, name)
		code, stdout, stderr := runCLI("report", "examples/mlp10m-fp32-adam.yaml", "-o", out)
		if code != exitOK {
			t.Fatalf("memplan report -o %s: exit %d: %s", name, code, stderr)
		}
		if !strings.Contains(stdout, "wrote "+out) {
			t.Errorf("stdout %q", stdout)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		switch filepath.Ext(name) {
		case ".html":
			if !strings.HasPrefix(string(b), "<!DOCTYPE html>") || !strings.Contains(string(b), `id="chart-timeline-1"`) {
				t.Errorf("%s is not the HTML report", name)
			}
		case ".xlsx":
			if !strings.HasPrefix(string(b), "PK") {
				t.Errorf("%s is not a zip", name)
			}
		}
	}
	// estimate -o writes the same kinds.
	if code, _, stderr := runCLI("estimate", "examples/mlp10m-fp32-adam.yaml", "-o", filepath.Join(dir, "e.xlsx")); code != exitOK {
		t.Errorf("memplan estimate -o e.xlsx: exit %d: %s", code, stderr)
	}

	// A custom template.
	tmpl := filepath.Join(dir, "mine.tmpl")
	if err := os.WriteFile(tmpl, []byte("<p>{{.Title}}</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "custom.html")
	if code, _, stderr := runCLI("report", "examples/mlp10m-fp32-adam.yaml", "-o", out, "--template", tmpl, "--gpu", "h200"); code != exitOK {
		t.Fatalf("--template: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != "<p>mlp10m-fp32-adam</p>" {
		t.Errorf("--template output %q", b)
	}

	before, _ := os.ReadDir(dir)
	cases := []struct {
		args []string
		code int
	}{
		{[]string{"report"}, exitUsage},
		{[]string{"report", "examples/mlp10m-fp32-adam.yaml"}, exitUsage},
		{[]string{"report", "examples/mlp10m-fp32-adam.yaml", "-o", filepath.Join(dir, "x.pdf")}, exitUsage},
		{[]string{"report", "examples/mlp10m-fp32-adam.yaml", "-o", filepath.Join(dir, "x.xlsx"), "--template", tmpl}, exitUsage},
		{[]string{"report", "--help"}, exitOK},
		{[]string{"report", "does-not-exist.yaml", "-o", filepath.Join(dir, "x.html")}, exitFailed},
		// A broken template fails before anything is written.
		{[]string{"report", "examples/mlp10m-fp32-adam.yaml", "-o", filepath.Join(dir, "x.html"), "--template", filepath.Join(dir, "missing.tmpl")}, exitFailed},
		{[]string{"report", "examples/mlp10m-fp32-adam.yaml", "-o", filepath.Join(dir, "no", "x.html")}, exitFailed},
	}
	for _, c := range cases {
		if code, _, stderr := runCLI(c.args...); code != c.code {
			t.Errorf("memplan %s: exit %d, want %d (stderr %q)", strings.Join(c.args, " "), code, c.code, stderr)
		}
	}
	after, _ := os.ReadDir(dir)
	if len(after) != len(before) {
		t.Errorf("failed runs left files behind: %d entries before, %d after", len(before), len(after))
	}
}
