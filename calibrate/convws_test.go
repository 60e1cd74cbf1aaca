package calibrate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/memplan/memplan/spec"
)

// TestRunMeasuresConvWorkspaces: --convs geometries are measured pass by
// pass into the profile; one whose tensors do not fit is skipped and said.
func TestRunMeasuresConvWorkspaces(t *testing.T) {
	t.Setenv("CUDA_MODULE_LOADING", "")
	f := newFakeH200()
	small := spec.ConvGeometry{N: 8, Cin: 64, H: 56, W: 56, Cout: 64, Ho: 56, Wo: 56, KH: 3, KW: 3, Stride: 1, Pad: 1, Groups: 1, DType: spec.BF16}
	huge := small
	huge.N = 1 << 22 // far more than the device holds
	var progress bytes.Buffer
	p, err := runWith(f, Options{Convs: []spec.ConvGeometry{small, huge}}, &progress, fixedNow)
	if err != nil {
		t.Fatalf("runWith: %v", err)
	}
	if len(p.ConvWorkspaces) != 1 {
		t.Fatalf("conv_workspaces: %+v", p.ConvWorkspaces)
	}
	c := p.ConvWorkspaces[0]
	x := int64(8 * 64 * 56 * 56 * 2)
	want := 2*x + 64*64*9*2 + 16
	if c.DType != "bf16" || c.N != 8 || c.KH != 3 || c.Forward != want || c.BackwardData != want || c.BackwardFilter != want {
		t.Errorf("entry %+v, want workspaces %d", c, want)
	}
	if g, err := c.Geometry(); err != nil || g != small {
		t.Errorf("geometry %+v (%v), want %+v", g, err, small)
	}
	if !strings.Contains(progress.String(), "1 geometries skipped") {
		t.Errorf("progress does not say the skipped geometry:\n%s", progress.String())
	}
	tbl := p.ConvTable()
	if tbl.Len() != 1 {
		t.Errorf("ConvTable holds %d geometries", tbl.Len())
	}

	f = newFakeH200()
	f.noDNN = true
	if _, err := runWith(f, Options{Convs: []spec.ConvGeometry{small}}, &progress, fixedNow); err == nil || !strings.Contains(err.Error(), "needs cuDNN") {
		t.Errorf("without cuDNN: %v", err)
	}
}

// TestConvWorkspacesRoundTrip: the entries survive writing and reading,
// one line each, and a bad entry is refused at its line.
func TestConvWorkspacesRoundTrip(t *testing.T) {
	p, err := Builtin("h200")
	if err != nil {
		t.Fatal(err)
	}
	g := spec.ConvGeometry{N: 32, Cin: 3, H: 160, W: 160, Cout: 64, Ho: 80, Wo: 80, KH: 7, KW: 7, Stride: 2, Pad: 3, Groups: 1, DType: spec.FP32}
	p.ConvWorkspaces = []ConvWorkspace{convWorkspaceOf(g, [3]int64{1000, 0, 3000}, [3]int64{7, -1, 9})}
	data, err := Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "  - {dtype: fp32, batch: 32, c: 3, h: 160, w: 160, k: 64, kh: 7, kw: 7, stride: 2, pad: 3, groups: 1, forward: 1000") {
		t.Errorf("entry not written on one line:\n%s", data)
	}
	back, err := Parse(data, "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(back.ConvWorkspaces) != 1 || back.ConvWorkspaces[0].BackwardFilter != 3000 {
		t.Fatalf("read back %+v", back.ConvWorkspaces)
	}
	if got, _ := back.ConvWorkspaces[0].Geometry(); got != g {
		t.Errorf("geometry %+v, want %+v", got, g)
	}
	bad := strings.Replace(string(data), "dtype: fp32", "dtype: int8", 1)
	_, err = Parse([]byte(bad), "p.yaml")
	if err == nil || !strings.Contains(err.Error(), "conv_workspaces[0]: dtype \"int8\" (allowed: fp32, bf16, fp16)") || !strings.HasPrefix(err.Error(), "p.yaml:") {
		t.Errorf("bad dtype: %v", err)
	}
	bad = strings.Replace(string(data), "kh: 7", "kh: 0", 1)
	if _, err = Parse([]byte(bad), "p.yaml"); err == nil || !strings.Contains(err.Error(), "kh must be positive") {
		t.Errorf("bad kernel: %v", err)
	}
}
