package main

import (
	"fmt"
	"strings"
	"testing"
)

// Issue 6's speed targets, on the Llama-3.1-405B config (126 layers, hidden
// 16384, vocab 128256, seq 8192): one estimate (estimate package,
// BenchmarkEstimateLlama405B), one fit search, a 1,000-point sweep.

// BenchmarkFitLlama405B is one largest-seq_len search at batch 1 for the
// FSDP-sharded 405B (the batch search ends at once: batch 1 does not fit),
// under the garbage collector's target `memplan fit` runs it at (batchGC).
func BenchmarkFitLlama405B(b *testing.B) {
	defer batchGC()()
	p, err := newPlanner("examples/parallel/llama3.1-405b-fsdp64-bf16-adamw.yaml", "")
	if err != nil {
		b.Fatal(err)
	}
	limit := int64(float64(p.prof.TotalBytes) * 0.95)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := p.largest("training.seq_len", limit, [2]string{"training.batch_size", "1"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSweep1000Llama405B is `memplan estimate --set … --format csv` of
// a 1,000-point grid (10 batch sizes × 100 sequence lengths) of the 405B
// model: the points run concurrently on every CPU.
func BenchmarkSweep1000Llama405B(b *testing.B) {
	batches, seqs := "training.batch_size=", "training.seq_len="
	for i := 1; i <= 10; i++ {
		batches += fmt.Sprint(i)
		if i < 10 {
			batches += ","
		}
	}
	for i := 1; i <= 100; i++ {
		seqs += fmt.Sprint(i * 80)
		if i < 100 {
			seqs += ","
		}
	}
	benchCommand(b, "estimate", "examples/llama3.1-405b-bf16-adamw.yaml", "--set", batches, "--set", seqs, "--format", "csv")
}

// BenchmarkEstimateCommandLlama405B is `memplan estimate` of the 405B
// example as a user runs it: the description read, expanded, simulated and
// written as JSON (the estimate package's BenchmarkEstimateLlama405B times
// the expansion and the simulation alone).
func BenchmarkEstimateCommandLlama405B(b *testing.B) {
	benchCommand(b, "estimate", "examples/llama3.1-405b-bf16-adamw.yaml", "--format", "json")
}

// benchCommand runs `memplan args…` b.N times, its output discarded.
func benchCommand(b *testing.B, args ...string) {
	b.Helper()
	for i := 0; i < b.N; i++ {
		if code := run(args, discard{}, discard{}); code != exitOK {
			b.Fatalf("memplan %s: exit %d", strings.Join(args, " "), code)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// BenchmarkFitLlama405BOneGPU is fit's two searches (largest batch, then
// largest seq_len at the description's batch) for the 405B config of issue 6
// on one H200 — where the answer is that nothing fits, found in two estimates
// — under the garbage collector's target `memplan fit` runs them at.
func BenchmarkFitLlama405BOneGPU(b *testing.B) {
	defer batchGC()()
	p, err := newPlanner("examples/llama3.1-405b-bf16-adamw.yaml", "")
	if err != nil {
		b.Fatal(err)
	}
	limit := int64(float64(p.prof.TotalBytes) * 0.95)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := p.largest("training.batch_size", limit); err != nil {
			b.Fatal(err)
		}
		if _, _, err := p.largest("training.seq_len", limit, [2]string{"training.batch_size", "1"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFitCommandLlama405BOneGPU is `memplan fit` of the 405B example on
// one H200 as a user runs it: both searches, the table of options (each
// estimated and searched) and the data-parallel table (each sharding
// estimated at data 8 and searched over powers of two up to 1,024 ranks).
func BenchmarkFitCommandLlama405BOneGPU(b *testing.B) {
	benchCommand(b, "fit", "examples/llama3.1-405b-bf16-adamw.yaml", "--gpu", "h200")
}

// BenchmarkFitCommandTinyLlama is `memplan fit` of a model that fits (TinyLlama
// bf16 at 4 × 2048 on its H200): its searches and settled windows run many
// full steps, where the 405B's stop while the model loads.
func BenchmarkFitCommandTinyLlama(b *testing.B) {
	benchCommand(b, "fit", "examples/tinyllama-bf16-adamw-b4.yaml")
}
