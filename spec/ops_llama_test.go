package spec

import (
	"slices"
	"testing"
)

// TestFSDPCopyMetadata holds the launch metadata of FSDP2's copy-out
// (split_with_sizes_copy) and copy-in (_chunk_cat) to the sizes measured
// for GPT-2 (fp32) over two ranks: each parameter's dim-0 shard in bytes.
func TestFSDPCopyMetadata(t *testing.T) {
	shard := func(rows, cols int64) int64 { return (rows + 1) / 2 * cols * 4 }
	root := []int64{shard(50257, 768), shard(1024, 768), shard(768, 1), shard(768, 1)}
	block := []int64{shard(768, 1), shard(768, 1), shard(768, 2304), shard(2304, 1), shard(768, 768), shard(768, 1),
		shard(768, 1), shard(768, 1), shard(768, 3072), shard(3072, 1), shard(3072, 768), shard(768, 1)}
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"copy-out, root", SplitCopyMetadataBytes(root, 2), 30928},
		{"copy-out, block", SplitCopyMetadataBytes(block, 2), 28120},
		{"copy-in, root", ChunkCatMetadataBytes(root), 307920},
		{"copy-in, block", ChunkCatMetadataBytes(block), 55984},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d B, measured %d B", c.name, c.got, c.want)
		}
	}
}

// A 16-bit sum past 32-bit indexing is split into sub-sums by halving its
// outer dimension, the first half (rounded down) first; each makes and frees
// its staging pair in turn, after the accumulation buffer (measured: BERT's
// fp16 LM-head bias over 80 × 512 tokens, two sub-sums of 78,136,320 +
// 2,048 B).
func TestSumTempsSplit(t *testing.T) {
	if got := subSums(40960, 30522, BF16); !slices.Equal(got, []int64{20480, 20480}) {
		t.Errorf("subSums(40960, 30522) = %v, want two of 20480", got)
	}
	if got := subSums(7, 1<<28, FP16); !slices.Equal(got, []int64{3, 4}) { // 4 · 2^28 halves end at byte 2^31 - 2
		t.Errorf("subSums(7, 2^28) = %v, want [3 4]", got)
	}
	if got := subSums(17, 1<<28, FP16); !slices.Equal(got, []int64{4, 4, 4, 2, 3}) {
		t.Errorf("subSums(17, 2^28) = %v, want [4 4 4 2 3]", got)
	}
	if got := subSums(3, 3<<27, FP16); !slices.Equal(got, []int64{1, 2}) {
		t.Errorf("subSums(3, 3·2^27) = %v, want [1 2]", got)
	}
	temps, freedBy := sumTemps(40960, 30522, BF16)
	var sizes []int64
	for _, ts := range temps {
		sizes = append(sizes, ts.Shape[0])
	}
	if want := []int64{122088, 78136320, 1908, 78136320, 1908}; !slices.Equal(sizes, want) {
		t.Errorf("sumTemps sizes %v, want %v", sizes, want)
	}
	if want := []int{0, 2, 2, 4, 4}; !slices.Equal(freedBy, want) {
		t.Errorf("sumTemps frees %v, want %v", freedBy, want)
	}
	if _, freedBy := sumTemps(20480, 30522, BF16); freedBy != nil {
		t.Errorf("a sum that fits 32-bit indexing frees early: %v", freedBy)
	}
	if got := withFreedBy([]int{0, 3}, 4, []int{0, 2, 2}); !slices.Equal(got, []int{0, 3, 0, 0, 0, 6, 6}) {
		t.Errorf("withFreedBy = %v", got)
	}
}

// An fp32 sum past 32-bit indexing is split too (with_32bit_indexing does
// not look at the dtype), but accumulates in its output: no buffer before
// its sub-sums' staging pairs.
func TestSumTempsSplitFP32(t *testing.T) {
	temps, freedBy := sumTemps(40960, 30522, FP32) // 5.0 GB: four sub-sums of 10240 rows
	if got := subSums(40960, 30522, FP32); !slices.Equal(got, []int64{10240, 10240, 10240, 10240}) {
		t.Fatalf("subSums = %v", got)
	}
	var names []string
	for _, ts := range temps {
		names = append(names, ts.Name)
	}
	if len(temps) != 8 || names[0] != "reduce_staging" || names[1] != "reduce_semaphores" {
		t.Fatalf("sumTemps = %v", names)
	}
	if want := []int{1, 1, 3, 3, 5, 5, 7, 7}; !slices.Equal(freedBy, want) {
		t.Errorf("sumTemps frees %v, want %v", freedBy, want)
	}
	if st, _ := SumStaging(10240, 30522); temps[0].Shape[0] != st {
		t.Errorf("a sub-sum's staging %d B, want SumStaging(10240, 30522) = %d", temps[0].Shape[0], st)
	}
}
