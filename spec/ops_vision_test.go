package spec

import (
	"strings"
	"testing"
)

// TestConvWorkspaceInterpolation leaves each measured workspace above
// 1 MiB out of the table in turn, at a batch with measured batches on both
// sides, and sizes it again from the rest: the line through the
// neighbouring batches must reproduce most of them to the byte, and do
// better than the engine-class rule.
func TestConvWorkspaceInterpolation(t *testing.T) {
	table := newConvTable(0)
	for k, v := range measuredConvWorkspaces().ws {
		table.set(k, v)
	}
	var n, exact, near, ruleNear int
	for key, v := range measuredConvWorkspaces().ws {
		if key.n == measuredConvBatches[0] || key.n == measuredConvBatches[len(measuredConvBatches)-1] {
			continue
		}
		table.remove(key)
		for pass := ConvForward; pass <= ConvBackwardFilter; pass++ {
			want := v[pass]
			if want <= 1<<20 {
				continue
			}
			got, ok := table.interpolate(pass, key)
			if !ok {
				t.Fatalf("%+v: no neighbours to interpolate from", key)
			}
			rule := convWorkspaceRule(pass, geometryOf(key))
			n++
			if abs64(got-want) <= 512 {
				exact++
			}
			if 20*abs64(got-want) <= want {
				near++
			}
			if 20*abs64(rule-want) <= want {
				ruleNear++
			}
		}
		table.set(key, v)
	}
	t.Logf("%d workspaces: interpolated %d to the byte, %d within 5%%; the rule %d within 5%%", n, exact, near, ruleNear)
	if n < 2000 || 100*exact < 78*n || 100*near < 85*n || near <= ruleNear {
		t.Errorf("%d workspaces: interpolated %d to the byte and %d within 5%%, the rule %d within 5%%", n, exact, near, ruleNear)
	}
}

// TestConvWorkspaceSizeInterpolation leaves each interior image size of
// every shape of the built-in table out in turn (all its batches) and sizes
// its workspaces above 1 MiB again from the sizes around it: most must come
// out to the byte, and the bytes missed must be well under half the
// engine-class rule's.
func TestConvWorkspaceSizeInterpolation(t *testing.T) {
	table := newConvTable(0)
	type place struct {
		family convKey
		size   int64
	}
	bySize := map[place][]convKey{}
	for k, v := range measuredConvWorkspaces().ws {
		table.set(k, v)
		if k.h == k.w {
			at := place{k.family(), k.h}
			bySize[at] = append(bySize[at], k)
		}
	}
	var n, exact, near int
	var missed, ruleMissed, total int64
	for at, keys := range bySize {
		sizes := table.sizes[at.family]
		if at.size == sizes[0] || at.size == sizes[len(sizes)-1] {
			continue
		}
		for _, k := range keys {
			table.remove(k)
		}
		for _, k := range keys {
			v := measuredConvWorkspaces().ws[k]
			for pass := ConvForward; pass <= ConvBackwardFilter; pass++ {
				want := v[pass]
				if want <= 1<<20 {
					continue
				}
				got, ok := table.interpolateSize(pass, geometryOf(k))
				if !ok {
					continue // a batch the neighbouring sizes do not span
				}
				n++
				if got == want {
					exact++
				}
				if 20*abs64(got-want) <= want {
					near++
				}
				missed += abs64(got - want)
				ruleMissed += abs64(convWorkspaceRule(pass, geometryOf(k)) - want)
				total += want
			}
		}
		for _, k := range keys {
			table.set(k, measuredConvWorkspaces().ws[k])
		}
	}
	t.Logf("%d workspaces: %d to the byte, %d within 5%%; bytes missed %.1f%% (the rule %.1f%%)",
		n, exact, near, 100*float64(missed)/float64(total), 100*float64(ruleMissed)/float64(total))
	if n < 30000 || 100*exact < 65*n || 100*near < 80*n || 2*missed > ruleMissed {
		t.Errorf("%d workspaces: %d to the byte, %d within 5%%; bytes missed %d, the rule %d", n, exact, near, missed, ruleMissed)
	}
}

// TestConvWorkspaceSizeInterpolationBounds: a size outside the measured
// ones, or one the table holds, is not interpolated.
func TestConvWorkspaceSizeInterpolationBounds(t *testing.T) {
	table := measuredConvWorkspaces()
	// ResNet-50's stem in fp32 at batch 32: measured at 32 to 512 px.
	stem := func(px int64) ConvGeometry {
		return geometryOf(convKey{dt: FP32, n: 32, cin: 3, h: px, w: px, cout: 64, kh: 7, kw: 7, stride: 2, pad: 3, groups: 1})
	}
	for _, px := range []int64{16, 224, 600} {
		if v, ok := table.interpolateSize(ConvBackwardFilter, stem(px)); ok {
			t.Errorf("%d px: interpolated %d, want no interpolation", px, v)
		}
	}
	if _, ok := table.interpolateSize(ConvBackwardFilter, stem(200)); !ok {
		t.Error("200 px: not interpolated between 192 and 224")
	}
	// 256×196 has 224×224's pixels: that square's workspace, or the rule
	// where the rule gives the square's.
	wide := stem(224)
	wide.H, wide.W, wide.Wo = 256, 196, (196+2*3-7)/2+1
	got, ok := table.interpolateSize(ConvBackwardFilter, wide)
	square := table.ws[keyOf(stem(224))][ConvBackwardFilter]
	if want := square; convWorkspaceRule(ConvBackwardFilter, stem(224)) == square {
		want = convWorkspaceRule(ConvBackwardFilter, wide)
		if !ok || got != want {
			t.Errorf("256×196: %d, %v; want the rule's %d", got, ok, want)
		}
	} else if !ok || got != want {
		t.Errorf("256×196: %d, %v; want 224×224's %d", got, ok, want)
	}
}

// geometryOf is the geometry of a table key.
func geometryOf(k convKey) ConvGeometry {
	return ConvGeometry{N: k.n, Cin: k.cin, H: k.h, W: k.w, Cout: k.cout,
		Ho: ConvOut(k.h, k.kh, k.stride, k.pad, 1), Wo: ConvOut(k.w, k.kw, k.stride, k.pad, 1),
		KH: k.kh, KW: k.kw, Stride: k.stride, Pad: k.pad, Groups: k.groups, DType: k.dt}
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestConvWorkspaceSourceText: the sources' JSON names read back, and an
// unknown one is refused with the names allowed.
func TestConvWorkspaceSourceText(t *testing.T) {
	for s := ConvFromProfile; s <= ConvFromRule; s++ {
		text, err := s.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back ConvWorkspaceSource
		if err := back.UnmarshalText(text); err != nil || back != s {
			t.Errorf("%s: read back %v, %v", text, back, err)
		}
	}
	var s ConvWorkspaceSource
	err := s.UnmarshalText([]byte("guess"))
	if err == nil || !strings.Contains(err.Error(), "profile, profile-sizes, h200-table, h200-sizes, rule") {
		t.Errorf("unknown source: %v", err)
	}
	if _, err := ConvWorkspaceSource(9).MarshalText(); err == nil {
		t.Error("source 9 marshalled")
	}
}

// A profile's measured workspaces are interpolated between its image sizes
// too, before the built-in H200 table: the target GPU's engines.
func TestProfileConvWorkspacesBetweenSizes(t *testing.T) {
	geo := func(px int64) ConvGeometry {
		return geometryOf(convKey{dt: FP32, n: 8, cin: 48, h: px, w: px, cout: 96, kh: 3, kw: 3, stride: 1, pad: 1, groups: 1})
	}
	var table ConvWorkspaceTable
	table.Set(geo(28), [3]int64{1000000, 0, 0})
	table.Set(geo(56), [3]int64{4000000, 0, 0})
	b := NewBuilder(Training{Mode: ModeTrain, BatchSize: 8, Precision: PrecisionFP32, ConvWorkspaces: &table})
	// Affine in the pixel count between 28² and 56²: 42² = 1764.
	want := int64(1000000 + (1764-784)*3000000/(3136-784))
	if got := b.ConvWorkspace(ConvForward, geo(42)); got != want {
		t.Errorf("forward at 42 px: %d, want %d", got, want)
	}
	if src := b.g.Convs[len(b.g.Convs)-1].Source; src != ConvFromProfileSizes {
		t.Errorf("source %v, want %v", src, ConvFromProfileSizes)
	}
	// Measured exactly: the profile's own entry.
	if got := b.ConvWorkspace(ConvForward, geo(56)); got != 4000000 {
		t.Errorf("forward at 56 px: %d, want the measured 4000000", got)
	}
}
