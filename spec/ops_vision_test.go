package spec

import "testing"

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
			ho := (key.h+2*key.pad-key.kh)/key.stride + 1
			wo := (key.w+2*key.pad-key.kw)/key.stride + 1
			rule := convWorkspaceRule(pass, ConvGeometry{N: key.n, Cin: key.cin, H: key.h, W: key.w, Cout: key.cout, Ho: ho, Wo: wo,
				KH: key.kh, KW: key.kw, Stride: key.stride, Pad: key.pad, Groups: 1, DType: key.dt})
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

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
