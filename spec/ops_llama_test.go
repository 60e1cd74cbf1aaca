package spec

import "testing"

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
