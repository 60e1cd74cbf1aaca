package family

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	for _, a := range []string{"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM", "Phi3ForCausalLM", "GemmaForCausalLM", "Gemma2ForCausalLM", "Gemma3ForCausalLM"} {
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
		{"../../examples/holdout25/qwen3-small-bf16-adamw-b4-s1024.yaml", 39985152},  // head_dim 128 ≠ 512/8, q/k norms
		{"../../examples/holdout25/qwen3-bias-mha-bf16-sgd-b4-s768.yaml", 77483264},  // attention_bias on all four
		{"../../examples/holdout25/qwen3-1.7b-bf16-adamw-b1-s2048.yaml", 1720574976}, // Qwen3-1.7B's shape
		{"../../examples/measured/phi3-small-bf16-adamw-b4-s1024.yaml", 45421056},    // fused qkv and gate_up
		{"../../examples/measured/phi3-small-mha-fp32-adam-b2-s512.yaml", 46469632},
		{"../../examples/measured/gemma-small-bf16-adamw-b4-s1024.yaml", 32117248},          // tied by default
		{"../../examples/measured/gemma-small-hd256-bf16-sgd-b2-s1024.yaml", 39457280},      // head_dim 256 by default
		{"../../examples/measured/gemma-small-eager-amp-fp16-adamw-b2-s512.yaml", 48501248}, // untied
		{"../../examples/measured/gemma2-small-bf16-adamw-b2-s1024.yaml", 32121344},         // four norms a layer
		{"../../examples/measured/gemma3-small-bf16-adamw-b2-s1024.yaml", 39990528},         // and per-head norms
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

// A 16-bit sum too large for 32-bit indexing accumulates its sub-sums in
// an fp32 buffer of its outputs (measured: RoBERTa's fp16 LM-head bias
// gradient over 64 × 510 tokens); fp32 sums and sums that fit make none.
func TestSumAccumulation(t *testing.T) {
	for _, c := range []struct {
		elems   int64
		dt      spec.DType
		outputs int64
		want    int64
	}{
		{64 * 510 * 50265, spec.FP16, 50265, 201060},
		{64 * 510 * 50265, spec.BF16, 50265, 201060},
		{64 * 510 * 50265, spec.FP32, 50265, 0},
		{32 * 510 * 50265, spec.FP16, 50265, 0}, // 1.64 GB
		{1 << 30, spec.BF16, 1024, 0},           // the last offset is 2^31 - 1
		{1<<30 + 1, spec.BF16, 1024, 4096},      // one element more
		{1<<31 + 10, spec.UInt8, 4, 0},          // not a 16-bit float
	} {
		if got := spec.SumAccumulation(c.elems, c.dt, c.outputs); got != c.want {
			t.Errorf("SumAccumulation(%d, %s, %d) = %d, want %d", c.elems, c.dt, c.outputs, got, c.want)
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
		{"phi3 odd rotary dims", llamaYAML("Phi3ForCausalLM", smallCfg+"    partial_rotary_factor: 0.3\n", ""),
			"model.config.partial_rotary_factor: a partial rotary factor of 0.3 turns 19 of a head's 64 dimensions (allowed: a factor that turns an even number of them, at least 2)"},
		{"phi3 rotary factor in rope_parameters", llamaYAML("Phi3ForCausalLM", smallCfg+"    rope_parameters: {rope_type: default, partial_rotary_factor: 0.01}\n", ""),
			"model.config.rope_parameters: a partial rotary factor of 0.01 turns 0 of a head's 64 dimensions"},
		{"phi3 odd head_dim", llamaYAML("Phi3ForCausalLM", smallCfg+"    head_dim: 63\n", ""),
			"model.config.head_dim: a partial rotary factor of 1 turns 63 of a head's 63 dimensions"},
		{"phi3 tensor parallel", llamaYAML("Phi3ForCausalLM", smallCfg, "  mode: train\n  batch_size: 2\n  seq_len: 128\n  precision: bf16\n  optimizer: adamw\n  parallel: {tensor: 2}\n"),
			"training.parallel.tensor 2: tensor parallelism is not modelled for Phi3ForCausalLM"},
		{"gemma both ways", llamaYAML("GemmaForCausalLM", smallCfg+"    use_bidirectional_attention: true\n", ""),
			"model.config.use_bidirectional_attention: true makes every layer attend both ways, which is not modelled (allowed: false or null)"},
		{"gemma3 sliding layers without window", llamaYAML("Gemma3ForCausalLM", smallCfg+"    sliding_window: null\n", ""),
			"model.config.sliding_window: is null, but Gemma2 and Gemma3 build a sliding-window mask in every forward, which transformers cannot do without one (allowed: a positive window)"},
		{"gemma2 window null, no sliding layers", llamaYAML("Gemma2ForCausalLM", smallCfg+"    head_dim: 64\n    sliding_window: null\n    layer_types: [full_attention, full_attention]\n", ""),
			"model.config.sliding_window: is null, but Gemma2 and Gemma3 build a sliding-window mask"},
		{"qwen3 head_dim null", llamaYAML("Qwen3ForCausalLM", smallCfg+"    head_dim: null\n", ""),
			"model.config.head_dim: null is not allowed (allowed: a positive integer)"},
		{"gemma kv heads null", llamaYAML("GemmaForCausalLM", "    vocab_size: 1000\n    hidden_size: 256\n    intermediate_size: 512\n    num_hidden_layers: 2\n    num_attention_heads: 4\n    num_key_value_heads: null\n", ""),
			"model.config.num_key_value_heads: null is not allowed (allowed: a positive integer)"},
		{"gemma2 final soft-capping 0", llamaYAML("Gemma2ForCausalLM", smallCfg+"    head_dim: 64\n    final_logit_softcapping: 0\n", ""),
			"model.config.final_logit_softcapping: 0 is not allowed (allowed: a positive number, or null for none)"},
		{"qwen3 sliding layers without window", llamaYAML("Qwen3ForCausalLM", smallCfg+"    layer_types: [full_attention, sliding_attention]\n", ""),
			"model.config.layer_types: lists sliding_attention layers but the sliding window is off"},
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
				for _, arch := range []string{"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM", "Phi3ForCausalLM", "GemmaForCausalLM", "Gemma2ForCausalLM", "Gemma3ForCausalLM"} {
					g, err := expandYAML(t, llamaYAML(arch, smallCfg+"    tie_word_embeddings: true\n    head_dim: 64\n", tr))
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

// Qwen3's head_dim is 128 whatever hidden_size says, with a norm of that
// width per query and key head; Phi3 registers o_proj first, fuses q/k/v and
// gate/up, and turns partial_rotary_factor of each head.
func TestQwen3AndPhi3Parameters(t *testing.T) {
	names := func(g *spec.Graph) map[string][]int64 {
		m := map[string][]int64{}
		for _, id := range g.Params {
			m[g.Tensors[id].Name] = g.Tensors[id].Shape
		}
		for _, id := range g.Resident {
			m[g.Tensors[id].Name] = g.Tensors[id].Shape
		}
		return m
	}
	g, err := expandYAML(t, llamaYAML("Qwen3ForCausalLM", smallCfg, ""))
	if err != nil {
		t.Fatal(err)
	}
	p := names(g)
	for name, want := range map[string][]int64{
		"model.layers.0.self_attn.q_proj.weight": {512, 256}, "model.layers.0.self_attn.k_proj.weight": {256, 256},
		"model.layers.0.self_attn.o_proj.weight": {256, 512}, "model.layers.0.self_attn.q_norm.weight": {128},
		"model.layers.1.self_attn.k_norm.weight": {128},
	} {
		if !slices.Equal(p[name], want) {
			t.Errorf("Qwen3 %s: shape %v, want %v", name, p[name], want)
		}
	}
	g, err = expandYAML(t, llamaYAML("Phi3ForCausalLM", smallCfg+"    partial_rotary_factor: 0.5\n", ""))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, id := range g.Params[1:7] {
		order = append(order, strings.TrimPrefix(g.Tensors[id].Name, "model.layers.0."))
	}
	if want := "self_attn.o_proj.weight self_attn.qkv_proj.weight mlp.gate_up_proj.weight mlp.down_proj.weight input_layernorm.weight post_attention_layernorm.weight"; strings.Join(order, " ") != want {
		t.Errorf("Phi3 layer parameters in order %v, want %s", order, want)
	}
	p = names(g)
	for name, want := range map[string][]int64{
		"model.layers.0.self_attn.qkv_proj.weight": {512, 256}, "model.layers.0.mlp.gate_up_proj.weight": {1024, 256},
		"model.rotary_emb.inv_freq": {16},
	} {
		if !slices.Equal(p[name], want) {
			t.Errorf("Phi3 %s: shape %v, want %v", name, p[name], want)
		}
	}
}

// Gemma2 alternates sliding and full layers (sliding first); Gemma3 makes
// one full layer in six (or every sliding_window_pattern), and one rotary
// embedding per layer type present.
func TestGemmaLayerTypes(t *testing.T) {
	cfg := "    vocab_size: 1000\n    hidden_size: 256\n    intermediate_size: 512\n    num_hidden_layers: 7\n    num_attention_heads: 4\n    num_key_value_heads: 2\n    head_dim: 64\n    sliding_window: 64\n"
	for _, c := range []struct {
		arch, extra string
		want        []int64
		rotaries    int
	}{
		{"Gemma2ForCausalLM", "", []int64{64, 0, 64, 0, 64, 0, 64}, 1},
		{"Gemma3ForCausalLM", "", []int64{64, 64, 64, 64, 64, 0, 64}, 2},
		{"Gemma3ForCausalLM", "    sliding_window_pattern: 3\n", []int64{64, 64, 0, 64, 64, 0, 64}, 2},
		{"Gemma3ForCausalLM", "    layer_types: [full_attention, full_attention, full_attention, full_attention, full_attention, full_attention, full_attention]\n", []int64{0, 0, 0, 0, 0, 0, 0}, 1},
	} {
		g, err := expandYAML(t, llamaYAML(c.arch, cfg+c.extra, ""))
		if err != nil {
			t.Fatalf("%s %q: %v", c.arch, c.extra, err)
		}
		// A layer slides when its SDPA takes the window's mask: with GQA
		// it then repeats k and v.
		var got []int64
		for i := range 7 {
			w := int64(0)
			for _, op := range g.Ops {
				if op.Name == fmt.Sprintf("model.layers.%d.self_attn.repeat_k", i) {
					w = 64
				}
			}
			got = append(got, w)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s %q: windows %v, want %v", c.arch, c.extra, got, c.want)
		}
		if n := countKind(g, "freqs"); n != c.rotaries {
			t.Errorf("%s %q: %d rotary embeddings, want %d", c.arch, c.extra, n, c.rotaries)
		}
	}
}

// Hub config.json files as published (written by other transformers
// versions, with keys 5.17 ignores: torch_dtype, cache_implementation,
// rope_local_base_freq, a list eos_token_id …) load through hf_config and
// expand to the models' parameter counts.
func TestHubConfigsOfNewFamilies(t *testing.T) {
	for _, c := range []struct {
		file string
		want int64
	}{
		{"qwen3-0.6b.json", 596049920},    // Qwen3-0.6B: 0.44B besides the tied embedding
		{"phi3-mini-4k.json", 3821079552}, // Phi-3-mini-4k
		{"gemma2-2b.json", 2614341888},    // Gemma-2-2B
		{"gemma3-1b.json", 999885952},     // Gemma-3-1B (text)
	} {
		dir := t.TempDir()
		data, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "config.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		desc := filepath.Join(dir, "m.yaml")
		src := "name: m\nmodel: {hf_config: config.json}\ntraining: {batch_size: 1, seq_len: 2048, precision: bf16, optimizer: adamw}\ngpu: h200\n"
		if err := os.WriteFile(desc, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := spec.Load(desc)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		g, err := Expand(m)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if got := g.ParamCount(); got != c.want {
			t.Errorf("%s: %d parameters, want %d", c.file, got, c.want)
		}
	}
}

// DynamicLayer makes its empty key and value tensors in the first key's
// dtype, and torch.cat promotes: under autocast the rotary-embedded key is
// fp32 (bf16 projection × fp32 cos), so the value's cache copy is fp32 as
// well and SDPA casts it back (measured: Qwen2.5-0.5B under amp-bf16,
// holdout35). In pure bf16 both stay bf16.
func TestLlamaCacheTakesTheKeysDType(t *testing.T) {
	for _, c := range []struct {
		precision string
		want      spec.DType
	}{{"amp-bf16", spec.FP32}, {"bf16", spec.BF16}} {
		g, err := expandYAML(t, llamaYAML("Qwen2ForCausalLM", smallCfg, "  mode: train\n  batch_size: 2\n  seq_len: 128\n  precision: "+c.precision+"\n  optimizer: adamw\n"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, op := range g.Ops {
			if strings.HasSuffix(op.Name, ".cache_keys") || strings.HasSuffix(op.Name, ".cache_values") {
				n++
				if dt := g.Tensors[op.Outputs[0]].DType; dt != c.want {
					t.Errorf("%s: %s is %v, want %v", c.precision, op.Name, dt, c.want)
				}
			}
		}
		if n == 0 {
			t.Fatalf("%s: no cache copies", c.precision)
		}
	}
}
