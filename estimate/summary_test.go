package estimate

import (
	"strings"
	"testing"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/spec"
)

// The workspace warning names what was not measured on the profile's GPU:
// rule-sized geometries anywhere, the H200 table's on another GPU, and on
// the H200 the geometries interpolated between the table's image sizes.
func TestConvWarning(t *testing.T) {
	uses := func(srcs ...spec.ConvWorkspaceSource) []spec.ConvUse {
		var u []spec.ConvUse
		for _, s := range srcs {
			u = append(u, spec.ConvUse{Source: s})
		}
		return u
	}
	h200 := &calibrate.Profile{GPUName: "NVIDIA H200"}
	a100 := &calibrate.Profile{GPUName: "NVIDIA A100-SXM4-80GB"}
	for _, c := range []struct {
		convs []spec.ConvUse
		p     *calibrate.Profile
		want  string
	}{
		{uses(spec.ConvFromH200Table, spec.ConvFromProfile, spec.ConvFromProfileSizes), h200, ""},
		{uses(spec.ConvFromH200Table, spec.ConvFromRule), h200, "1 of 2 convolution geometries have cuDNN workspaces no measurement covers"},
		{uses(spec.ConvFromH200Table, spec.ConvFromH200Sizes, spec.ConvFromH200Sizes), h200, "2 of 3 convolution geometries have cuDNN workspaces interpolated between the image sizes"},
		{uses(spec.ConvFromH200Table, spec.ConvFromProfile), a100, "1 of 2 convolution geometries have cuDNN workspaces not measured on NVIDIA A100-SXM4-80GB (1 from the H200 table, 0 from the engine-class rule)"},
		{uses(spec.ConvFromProfile, spec.ConvFromProfileSizes), a100, ""},
	} {
		got := convWarning(c.convs, c.p)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%v on %s: %q, want %q", c.convs, c.p.GPUName, got, c.want)
		}
	}
}

// A workspace past the largest batch its table measured is named.
func TestConvExtrapolatedWarning(t *testing.T) {
	if w := convExtrapolatedWarning([]spec.ConvUse{{}, {Extrapolated: true}}); !strings.Contains(w, "1 of 2 convolution geometries are at a batch past the largest") {
		t.Errorf("one extrapolated: %q", w)
	}
	if w := convExtrapolatedWarning([]spec.ConvUse{{}}); w != "" {
		t.Errorf("none extrapolated: %q", w)
	}
}
