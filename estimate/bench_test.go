package estimate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/estimate"
	"github.com/memplan/memplan/spec"
)

// customGraph returns a description of a custom graph with n layers:
// residual blocks of linear/gelu/linear/layernorm on a [batch, seq, 1024] input.
func customGraph(n int) []byte {
	var b strings.Builder
	b.WriteString("name: bench\nmodel:\n  inputs:\n    x: {shape: [batch, seq, 1024], dtype: fp32}\n    y: {shape: [batch, seq, 1024], dtype: fp32}\n  layers:\n")
	for i := 0; i < n/5; i++ {
		b.WriteString("    - residual:\n")
		b.WriteString("        - layernorm: {dim: 1024}\n        - linear: {in: 1024, out: 4096}\n        - gelu: {approximate: tanh}\n        - linear: {in: 4096, out: 1024}\n")
		b.WriteString("    - dropout: {p: 0.1}\n")
	}
	b.WriteString("  loss: mse\ntraining: {batch_size: 8, seq_len: 512, precision: amp-bf16, optimizer: adamw}\n")
	return []byte(b.String())
}

// BenchmarkEstimateCustom2000 estimates a custom graph of 2,000 layers; the
// work is arithmetic over tensor sizes, so it must not grow with batch or seq.
func BenchmarkEstimateCustom2000(b *testing.B) {
	m, err := spec.Parse("bench.yaml", customGraph(2000))
	if err != nil {
		b.Fatal(err)
	}
	g, err := spec.ExpandCustom(m)
	if err != nil {
		b.Fatal(err)
	}
	p, _ := calibrate.Builtin("h200")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := estimate.Run(m, g, p, estimate.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// The estimate's cost does not depend on tensor sizes: a 64× larger batch
// takes the same work (no per-element arithmetic).
func TestCostIndependentOfSizes(t *testing.T) {
	p, _ := calibrate.Builtin("h200")
	var peaks []int64
	for _, batch := range []int{1, 64} {
		src := strings.Replace(string(customGraph(50)), "batch_size: 8", fmt.Sprintf("batch_size: %d", batch), 1)
		m, err := spec.Parse("x.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		g, err := spec.ExpandCustom(m)
		if err != nil {
			t.Fatal(err)
		}
		res := testing.Benchmark(func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				estimate.Run(m, g, p, estimate.Options{})
			}
		})
		r, _ := estimate.Run(m, g, p, estimate.Options{})
		peaks = append(peaks, r.Peak.AllocatedBytes)
		t.Logf("batch %d: %s, peak %d", batch, res, r.Peak.AllocatedBytes)
	}
	if peaks[1] <= peaks[0] {
		t.Errorf("a larger batch must need more memory: %v", peaks)
	}
}
