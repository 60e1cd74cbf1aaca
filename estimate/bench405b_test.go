package estimate_test

import (
	"testing"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/estimate"
	"github.com/memplan/memplan/spec"
	"github.com/memplan/memplan/spec/family"
)

// BenchmarkEstimateLlama405B is issue 6's speed target: one estimate of the
// Llama-3.1-405B example (126 layers, hidden 16384, vocab 128256, seq 8192).
func BenchmarkEstimateLlama405B(b *testing.B) {
	m, err := spec.Load("../examples/llama3.1-405b-bf16-adamw.yaml")
	if err != nil {
		b.Fatal(err)
	}
	p, _ := calibrate.Builtin("h200")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g, err := family.Expand(m)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := estimate.Run(m, g, p, estimate.Options{Concurrent: true}); err != nil {
			b.Fatal(err)
		}
	}
}
