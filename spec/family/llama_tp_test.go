package family

import (
	"strings"
	"testing"

	"github.com/memplan/memplan/spec"
)

func llamaTP(t *testing.T, tp string) (*spec.Graph, error) {
	t.Helper()
	src := `model:
  architecture: LlamaForCausalLM
  config: {vocab_size: 32000, hidden_size: 1024, intermediate_size: 2816, num_hidden_layers: 2, num_attention_heads: 16, num_key_value_heads: 4, tie_word_embeddings: false}
training: {batch_size: 2, seq_len: 128, precision: bf16, optimizer: adamw, parallel: {tensor: ` + tp + `}}
`
	m, err := spec.Parse("tp.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return Expand(m)
}

// Tensor parallelism splits q/k/v/gate/up by rows and o/down by columns;
// embeddings, norms and lm_head stay whole.
func TestLlamaTensorParallel(t *testing.T) {
	g1, err := llamaTP(t, "1")
	if err != nil {
		t.Fatal(err)
	}
	g2, err := llamaTP(t, "2")
	if err != nil {
		t.Fatal(err)
	}
	const d, inner, vocab, layers = 1024, 2816, 32000, 2
	kv := int64(4 * 64)
	split := int64(layers) * (d*d + 2*kv*d + d*d + 3*inner*d)
	whole := int64(2*vocab*d + (2*layers+1)*d)
	if got, want := g1.ParamCount(), split+whole; got != want {
		t.Fatalf("tensor 1: %d parameters, want %d", got, want)
	}
	if got, want := g2.ParamCount(), split/2+whole; got != want {
		t.Errorf("tensor 2: %d parameters per rank, want %d", got, want)
	}
	if _, err := llamaTP(t, "8"); err == nil || !strings.Contains(err.Error(), "num_key_value_heads") {
		t.Errorf("tensor 8 with 4 kv heads: want a divisibility error naming num_key_value_heads, got %v", err)
	}
}
