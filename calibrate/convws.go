package calibrate

import (
	"fmt"

	"github.com/memplan/memplan/spec"
)

// ConvWorkspace is one convolution geometry's cuDNN workspaces on the
// profile's GPU, as `memplan calibrate --convs` measured them: what PyTorch
// asks the caching allocator for around each of the three calls (bytes;
// 0 when the engine needs none).
type ConvWorkspace struct {
	// DType is the convolution's element type: fp32, bf16 or fp16.
	DType string `yaml:"dtype" json:"dtype"`
	// N (batch), C, H, W are the input's shape; K the output channels; KH, KW the
	// kernel; Stride, Pad and Groups as nn.Conv2d takes them (square).
	N      int64 `yaml:"batch" json:"batch"`
	C      int64 `yaml:"c" json:"c"`
	H      int64 `yaml:"h" json:"h"`
	W      int64 `yaml:"w" json:"w"`
	K      int64 `yaml:"k" json:"k"`
	KH     int64 `yaml:"kh" json:"kh"`
	KW     int64 `yaml:"kw" json:"kw"`
	Stride int64 `yaml:"stride" json:"stride"`
	Pad    int64 `yaml:"pad" json:"pad"`
	Groups int64 `yaml:"groups" json:"groups"`
	// Forward, BackwardData and BackwardFilter are the workspaces.
	Forward        int64 `yaml:"forward" json:"forward"`
	BackwardData   int64 `yaml:"backward_data" json:"backward_data"`
	BackwardFilter int64 `yaml:"backward_filter" json:"backward_filter"`
	// Engines are the cuDNN engines' global indices (forward,
	// backward-data, backward-filter), for the record.
	Engines []int64 `yaml:"engines,omitempty" json:"engines,omitempty"`
}

// Geometry is the entry's convolution as the expansion describes it.
func (c ConvWorkspace) Geometry() (spec.ConvGeometry, error) {
	dt, err := spec.ParseDType(c.DType)
	if err != nil || (dt != spec.FP32 && dt != spec.BF16 && dt != spec.FP16) {
		return spec.ConvGeometry{}, fmt.Errorf("dtype %q (allowed: fp32, bf16, fp16)", c.DType)
	}
	for _, v := range []struct {
		name string
		n    int64
	}{{"batch", c.N}, {"c", c.C}, {"h", c.H}, {"w", c.W}, {"k", c.K}, {"kh", c.KH}, {"kw", c.KW}, {"stride", c.Stride}, {"groups", c.Groups}} {
		if v.n <= 0 {
			return spec.ConvGeometry{}, fmt.Errorf("%s must be positive, found %d", v.name, v.n)
		}
	}
	if c.Pad < 0 {
		return spec.ConvGeometry{}, fmt.Errorf("pad must not be negative, found %d", c.Pad)
	}
	if c.C%c.Groups != 0 || c.K%c.Groups != 0 {
		return spec.ConvGeometry{}, fmt.Errorf("groups %d must divide c %d and k %d", c.Groups, c.C, c.K)
	}
	ho := spec.ConvOut(c.H, c.KH, c.Stride, c.Pad, 1)
	wo := spec.ConvOut(c.W, c.KW, c.Stride, c.Pad, 1)
	if ho <= 0 || wo <= 0 {
		return spec.ConvGeometry{}, fmt.Errorf("a %dx%d input is too small for a %dx%d kernel", c.H, c.W, c.KH, c.KW)
	}
	return spec.ConvGeometry{N: c.N, Cin: c.C, H: c.H, W: c.W, Cout: c.K, Ho: ho, Wo: wo, KH: c.KH, KW: c.KW,
		Stride: c.Stride, Pad: c.Pad, Groups: c.Groups, DType: dt}, nil
}

// convWorkspaceOf is the profile entry of a geometry with its workspaces.
func convWorkspaceOf(g spec.ConvGeometry, ws [3]int64, engines [3]int64) ConvWorkspace {
	return ConvWorkspace{DType: g.DType.String(), N: g.N, C: g.Cin, H: g.H, W: g.W, K: g.Cout, KH: g.KH, KW: g.KW,
		Stride: g.Stride, Pad: g.Pad, Groups: max(g.Groups, 1),
		Forward: ws[spec.ConvForward], BackwardData: ws[spec.ConvBackwardData], BackwardFilter: ws[spec.ConvBackwardFilter],
		Engines: engines[:]}
}

// ConvTable is the profile's measured convolution workspaces as the
// expansion reads them (nil when it has none). Entries were checked when
// the profile was read.
func (p *Profile) ConvTable() *spec.ConvWorkspaceTable {
	if len(p.ConvWorkspaces) == 0 {
		return nil
	}
	t := &spec.ConvWorkspaceTable{}
	for _, c := range p.ConvWorkspaces {
		g, err := c.Geometry()
		if err != nil {
			continue
		}
		t.Set(g, [3]int64{c.Forward, c.BackwardData, c.BackwardFilter})
	}
	return t
}
