package family

import (
	"strings"
	"testing"

	"github.com/memplan/memplan/spec"
)

func expandYAML(t *testing.T, src string) (*spec.Graph, error) {
	t.Helper()
	m, err := spec.Parse("llama.yaml", []byte(src))
	if err != nil {
		return nil, err
	}
	return Expand(m)
}

func mustExpandFile(t *testing.T, path string) *spec.Graph {
	t.Helper()
	m, err := spec.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Expand(m)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func llamaYAML(arch, config, training string) string {
	if training == "" {
		training = "  mode: train\n  batch_size: 2\n  seq_len: 128\n  precision: bf16\n  optimizer: adamw\n"
	}
	return "name: t\nmodel:\n  architecture: " + arch + "\n  config:\n" + config + "training:\n" + training + "gpu: h200\n"
}

const smallCfg = "    vocab_size: 1000\n    hidden_size: 256\n    intermediate_size: 512\n    num_hidden_layers: 2\n    num_attention_heads: 4\n    num_key_value_heads: 2\n"

func TestLlamaRegistered(t *testing.T) {
	known := strings.Join(Known(), " ")
	for _, a := range []string{"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM"} {
		if !strings.Contains(known, a) {
			t.Errorf("%s not registered (known: %s)", a, known)
		}
	}
}

// Parameter counts of the measured models (param_count of their JSON) and
// of the config classes' defaults (Llama-2-7B, Mistral-7B).
func TestLlamaParamCounts(t *testing.T) {
	for _, c := range []struct {
		path string
		want int64
	}{
		{"../../examples/tinyllama-bf16-adamw-b4.yaml", 1100048384},
		{"../../examples/measured/llama-small-bf16-adamw-b4.yaml", 155730944},
		{"../../examples/measured/mistral-small-bf16-adamw-b4.yaml", 155730944},
		{"../../examples/measured/qwen2-small-bf16-adamw-b4.yaml", 122975232}, // tied, q/k/v biases
		{"../../examples/mistral-bf16-adamw-b2.yaml", 7241732096},
	} {
		if got := mustExpandFile(t, c.path).ParamCount(); got != c.want {
			t.Errorf("%s: %d parameters, want %d", c.path, got, c.want)
		}
	}
	g, err := expandYAML(t, strings.Replace(llamaYAML("LlamaForCausalLM", "", ""), "  config:\n", "", 1))
	if err != nil {
		t.Fatal(err)
	}
	if got := g.ParamCount(); got != 6738415616 {
		t.Errorf("LlamaConfig defaults: %d parameters, want 6738415616 (Llama-2-7B)", got)
	}
}

// savedBytes sums the distinct storages autograd saves that are not
// parameters or inputs: the new memory the forward keeps for backward.
func savedBytes(g *spec.Graph) int64 {
	resident := map[spec.TensorID]bool{}
	for _, id := range append(append([]spec.TensorID(nil), g.Resident...), g.Inputs...) {
		resident[id] = true
	}
	seen := map[spec.TensorID]bool{}
	var n int64
	for _, op := range g.Ops {
		for _, s := range op.Saved {
			st := g.Storage(s)
			if resident[st] || seen[st] {
				continue
			}
			seen[st] = true
			n += g.Tensors[st].Bytes
		}
	}
	return n
}

// The saved tensors of tinyllama-bf16-adamw-b4 (inspect/*.saved.json): per
// layer input_layernorm 100696064 (fp32 copy, rstd, bf16 normalised), q_proj
// input 33554432, self_attn 76546064 (q_embed, k_embed and v at 4 KV heads,
// lse, output, philox seed and offset), post_attention_layernorm 100696064,
// gate input 33554432, silu input 92274688, mul operands 184549376, down
// input 92274688; plus cos/sin, the final norm, lm_head's input and the loss.
func TestLlamaSavedBytesTinyLlama(t *testing.T) {
	g := mustExpandFile(t, "../../examples/tinyllama-bf16-adamw-b4.yaml")
	const perLayer = 714145808
	want := int64(22*perLayer + 524288 + 100696064 + 33554432 + 1048641540)
	if got := savedBytes(g); got != want {
		t.Errorf("saved %d bytes, want %d (diff %d)", got, want, got-want)
	}
}

func TestSumStaging(t *testing.T) {
	for _, c := range []struct{ rows, cols, buf, sem int64 }{
		{8192, 2048, 134217728, 64},
		{4096, 1024, 33554432, 32},
		{4096, 256, 8388608, 8},
		{4096, 2816, 92274688, 88},
		{8192, 5632, 138412032, 176},
		{4096, 1536, 50331648, 48},
		{1000, 1000, 0, 0},
		{100, 1024, 0, 0},
	} {
		buf, sem := spec.SumStaging(c.rows, c.cols)
		if buf != c.buf || sem != c.sem {
			t.Errorf("SumStaging(%d, %d) = %d, %d; want %d, %d", c.rows, c.cols, buf, sem, c.buf, c.sem)
		}
	}
}

func TestLlamaConfigErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"hidden not divisible", llamaYAML("LlamaForCausalLM", "    hidden_size: 1000\n    num_attention_heads: 16\n", ""),
			"llama.yaml:5:18: model.config.hidden_size: 1000 is not divisible by num_attention_heads = 16"},
		{"heads not divisible by kv", llamaYAML("MistralForCausalLM", "    num_attention_heads: 32\n    num_key_value_heads: 5\n", ""),
			"llama.yaml:5:26: model.config.num_attention_heads: 32 is not divisible by num_key_value_heads = 5"},
		{"odd head_dim", llamaYAML("MistralForCausalLM", "    head_dim: 63\n", ""),
			"llama.yaml:5:15: model.config.head_dim: head dimension 63 is odd"},
		{"bad activation", llamaYAML("LlamaForCausalLM", "    hidden_act: tanh\n", ""),
			"llama.yaml:5:17: model.config.hidden_act: unsupported value \"tanh\""},
		{"negative vocab", llamaYAML("Qwen2ForCausalLM", "    vocab_size: -3\n", ""),
			"llama.yaml:5:17: model.config.vocab_size: want a positive integer"},
		{"layer_types length", llamaYAML("Qwen2ForCausalLM", smallCfg+"    layer_types: [full_attention]\n", ""),
			"model.config.layer_types: has 1 entries (allowed: one per layer, 2)"},
		{"no seq_len", llamaYAML("LlamaForCausalLM", smallCfg, "  mode: train\n  batch_size: 2\n  precision: bf16\n  optimizer: adamw\n"),
			"training.seq_len is not set"},
	} {
		_, err := expandYAML(t, c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

func countKind(g *spec.Graph, kind string) int {
	n := 0
	for _, op := range g.Ops {
		if op.Kind == kind || strings.HasSuffix(op.Name, "."+kind) {
			n++
		}
	}
	return n
}

// use_cache (the config default) copies k and v into the DynamicCache in
// every layer, except when training with gradient checkpointing.
func TestLlamaUseCache(t *testing.T) {
	train := "  mode: train\n  batch_size: 2\n  seq_len: 128\n  precision: bf16\n  optimizer: adamw\n"
	for _, c := range []struct {
		training string
		copies   int
	}{
		{train, 4},
		{train + "  activation_checkpointing: true\n", 0},
		{"  mode: inference\n  batch_size: 2\n  seq_len: 128\n  precision: bf16\n  optimizer: none\n", 4},
	} {
		g, err := expandYAML(t, llamaYAML("LlamaForCausalLM", smallCfg, c.training))
		if err != nil {
			t.Fatal(err)
		}
		if got := countKind(g, "cache_keys") + countKind(g, "cache_values"); got != c.copies {
			t.Errorf("%q: %d cache copies, want %d", c.training, got, c.copies)
		}
	}
}

// Mistral's sliding window needs an explicit mask (and repeated k/v) only
// from seq_len ≥ sliding_window on; Qwen2 only with use_sliding_window, from
// max_window_layers on.
func TestLlamaSlidingWindow(t *testing.T) {
	for _, c := range []struct {
		arch, cfg   string
		masks, reps int
	}{
		{"MistralForCausalLM", smallCfg + "    sliding_window: 256\n", 0, 0},
		{"MistralForCausalLM", smallCfg + "    sliding_window: 64\n", 1, 4},
		{"Qwen2ForCausalLM", smallCfg + "    sliding_window: 64\n", 0, 0},
		{"Qwen2ForCausalLM", smallCfg + "    sliding_window: 64\n    use_sliding_window: true\n    max_window_layers: 1\n", 1, 2},
		{"LlamaForCausalLM", smallCfg, 0, 0},
	} {
		g, err := expandYAML(t, llamaYAML(c.arch, c.cfg, ""))
		if err != nil {
			t.Fatal(err)
		}
		if m, r := countKind(g, "sliding_window_overlay"), countKind(g, "repeat_kv"); m != c.masks || r != c.reps {
			t.Errorf("%s %q: %d masks and %d repeat_kv, want %d and %d", c.arch, c.cfg, m, r, c.masks, c.reps)
		}
	}
}

// Every precision, attention implementation and mode expands; under fp32
// with GQA SDPA falls back to the math kernel, under autocast it runs cuDNN.
func TestLlamaVariantsExpand(t *testing.T) {
	for _, prec := range []string{"fp32", "bf16", "fp16", "amp-bf16", "amp-fp16"} {
		for _, attn := range []string{"sdpa", "eager"} {
			for _, extra := range []string{"", "  activation_checkpointing: true\n"} {
				tr := "  mode: train\n  batch_size: 2\n  seq_len: 64\n  precision: " + prec + "\n  optimizer: adamw\n  attention: " + attn + "\n" + extra
				for _, arch := range []string{"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM"} {
					g, err := expandYAML(t, llamaYAML(arch, smallCfg+"    tie_word_embeddings: true\n", tr))
					if err != nil {
						t.Fatalf("%s %s %s: %v", arch, prec, attn, err)
					}
					if attn == "sdpa" {
						cudnn, math := countKind(g, "sdpa_cudnn"), countKind(g, "bmm_qk")
						if prec == "fp32" && (cudnn != 0 || math != 2) || prec != "fp32" && (cudnn != 2 || math != 0) {
							t.Errorf("%s %s: %d cuDNN and %d math SDPA calls", arch, prec, cudnn, math)
						}
					}
				}
			}
		}
	}
}
