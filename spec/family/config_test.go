package family

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memplan/memplan/spec"
)

// TestConfigKeysThatChangeMemory: keys transformers honours that change
// what a model allocates are modelled, or refused with what is allowed —
// never ignored.
func TestConfigKeysThatChangeMemory(t *testing.T) {
	const train = "  mode: train\n  batch_size: 2\n  seq_len: 128\n  precision: bf16\n  optimizer: adamw\n"
	const eager = train + "  attention: eager\n"
	const ckpt = train + "  activation_checkpointing: true\n"
	for _, c := range []struct {
		arch, config, training, want string // want "": accepted
	}{
		{"LlamaForCausalLM", smallCfg + "    attn_implementation: flash_attention_2\n", train, "model.config.attn_implementation: flash_attention_2 is not what training.attention says (sdpa)"},
		{"LlamaForCausalLM", smallCfg + "    attn_implementation: eager\n", eager, ""},
		{"LlamaForCausalLM", smallCfg + "    gradient_checkpointing: true\n", train, "set training.activation_checkpointing: true instead"},
		{"LlamaForCausalLM", smallCfg + "    gradient_checkpointing: true\n", ckpt, ""},
		{"LlamaForCausalLM", smallCfg + "    gradient_checkpointing: 1\n", train, "model.config.gradient_checkpointing: 1 makes transformers checkpoint every layer"},
		{"LlamaForCausalLM", smallCfg + "    gradient_checkpointing: 0\n", train, ""},
		{"LlamaForCausalLM", strings.Replace(smallCfg, "hidden_size: 256", "hidden_size: 2048", 1) + "    head_dim: null\n", train, "model.config.hidden_size: a head dimension of 512 is not modelled with SDPA"},
		{"LlamaForCausalLM", smallCfg + "    output_attentions: true\n", eager, "model.config.output_attentions: true keeps every layer's attentions"},
		{"LlamaForCausalLM", smallCfg + "    output_hidden_states: true\n", train, "model.config.output_hidden_states: true keeps every layer's hidden_states"},
		{"LlamaForCausalLM", smallCfg + "    output_hidden_states: false\n", train, ""},
		{"BertForMaskedLM", "    is_causal: true\n", train, "model.config.is_causal: true overrides the masks BertConfig builds"},
		{"BertForMaskedLM", "    is_causal: false\n", train, ""}, // what BERT does anyway
		{"LlamaForCausalLM", smallCfg + "    quantization_config: {quant_method: awq, bits: 4}\n", train, "model.config.quantization_config: a quantized checkpoint (awq) is not modelled"},
		{"LlamaForCausalLM", smallCfg + "    quantization_config: null\n", train, ""},
		{"LlamaForCausalLM", smallCfg + "    is_causal: true\n", train, ""},
		{"LlamaForCausalLM", smallCfg + "    hidden_act: null\n", train, "model.config.hidden_act: null is not allowed (allowed: silu, swish"},
		{"LlamaForCausalLM", smallCfg + "    attention_dropout: null\n", train, "model.config.attention_dropout: null is not allowed (allowed: a number from 0 to 1)"},
		{"Qwen2ForCausalLM", smallCfg + "    max_window_layers: null\n", train, "model.config.max_window_layers: null is not allowed (allowed: a non-negative integer)"},
		{"GPT2LMHeadModel", "    n_layer: 2\n    add_cross_attention: true\n", train, "model.config.add_cross_attention: true is not modelled (GPT-2's cross-attention blocks"},
		{"GPT2LMHeadModel", "    n_layer: 2\n    reorder_and_upcast_attn: true\n", eager, "model.config.reorder_and_upcast_attn: true is not modelled"},
		{"GPT2LMHeadModel", "    n_layer: 2\n    reorder_and_upcast_attn: true\n", train, ""}, // SDPA ignores it
		{"LlamaForCausalLM", smallCfg + "    head_dim: 512\n", train, "model.config.head_dim: a head dimension of 512 is not modelled with SDPA"},
		{"LlamaForCausalLM", smallCfg + "    head_dim: 512\n", eager, ""},
		{"Qwen2ForCausalLM", smallCfg + "    layer_types: [full_attention, sliding_attention]\n", train, "model.config.layer_types: lists sliding_attention layers but the sliding window is off"},
		{"Qwen2ForCausalLM", smallCfg + "    layer_types: [full_attention, sliding_attention]\n    use_sliding_window: true\n    sliding_window: 64\n", train, ""},
	} {
		_, err := expandYAML(t, llamaYAML(c.arch, c.config, c.training))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %q: %v", c.arch, c.config, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %q: error %v, want %q", c.arch, c.config, err, c.want)
		}
	}
}

// TestMistralHasNoBiases: modeling_mistral.py builds its projections with
// bias=False whatever attention_bias and mlp_bias say; Llama honours both.
func TestMistralHasNoBiases(t *testing.T) {
	params := func(arch, extra string) int64 {
		g, err := expandYAML(t, llamaYAML(arch, smallCfg+extra, ""))
		if err != nil {
			t.Fatal(err)
		}
		return g.ParamCount()
	}
	const biases = "    attention_bias: true\n    mlp_bias: true\n"
	if with, without := params("MistralForCausalLM", biases), params("MistralForCausalLM", ""); with != without {
		t.Errorf("Mistral: %d parameters with the bias keys, %d without", with, without)
	}
	if with, without := params("LlamaForCausalLM", biases), params("LlamaForCausalLM", ""); with <= without {
		t.Errorf("Llama: %d parameters with the bias keys, %d without", with, without)
	}
}

// TestViTLabelsFromId2Label: num_labels follows id2label, as
// PreTrainedConfig derives it; a mismatch with a given num_labels is refused.
func TestViTLabelsFromId2Label(t *testing.T) {
	vit := func(config string) (int64, error) {
		g, err := expandYAML(t, "name: t\nmodel:\n  architecture: ViTForImageClassification\n  config: {hidden_size: 64, num_hidden_layers: 1, num_attention_heads: 2, intermediate_size: 128, "+config+"}\ntraining: {batch_size: 2, image_size: 32, precision: fp32, optimizer: sgd}\n")
		if err != nil {
			return 0, err
		}
		return g.ParamCount(), nil
	}
	byMap, err := vit(`id2label: {"0": a, "1": b, "2": c}`)
	if err != nil {
		t.Fatal(err)
	}
	byCount, err := vit("num_labels: 3")
	if err != nil || byMap != byCount {
		t.Errorf("id2label of three: %d parameters, num_labels 3: %d (%v)", byMap, byCount, err)
	}
	if _, err := vit(`num_labels: 4, id2label: {"0": a, "1": b}`); err == nil || !strings.Contains(err.Error(), "2 labels but num_labels is 4") {
		t.Errorf("mismatch: %v", err)
	}
}

// TestGPT2FastGELU: FastGELUActivation saves its own chain — x, 0.5·x,
// x·0.7978845608, 0.044715·x, 1 + 0.044715·x·x, the tanh and 1 + tanh — not
// gelu_new's.
func TestGPT2FastGELU(t *testing.T) {
	g, err := expandYAML(t, "name: t\nmodel:\n  architecture: GPT2LMHeadModel\n  config: {n_layer: 1, n_embd: 64, n_head: 2, vocab_size: 100, activation_function: gelu_fast, resid_pdrop: 0, embd_pdrop: 0, attn_pdrop: 0}\ntraining: {batch_size: 2, seq_len: 16, precision: fp32, optimizer: sgd}\n")
	if err != nil {
		t.Fatal(err)
	}
	var saved []string
	for _, op := range g.Ops {
		if !strings.Contains(op.Name, ".mlp.act") {
			continue
		}
		for _, id := range op.Saved {
			if name := g.Tensors[id].Name; !slices.Contains(saved, name) {
				saved = append(saved, name)
			}
		}
	}
	slices.Sort(saved)
	want := []string{"transformer.h.0.mlp.act.half_x.out", "transformer.h.0.mlp.act.one_plus.out", "transformer.h.0.mlp.act.one_plus_sq.out",
		"transformer.h.0.mlp.act.scale_x.out", "transformer.h.0.mlp.act.scale_x_sq.out", "transformer.h.0.mlp.act.tanh.out", "transformer.h.0.mlp.c_fc.view_out.out"}
	if !slices.Equal(saved, want) {
		t.Errorf("saved by gelu_fast:\n%s\nwant\n%s", strings.Join(saved, "\n"), strings.Join(want, "\n"))
	}
}

// TestNullConfigKeyIsNone: a key given as null is Python's None, not the
// class default — Mistral's sliding_window: null (as in Mistral-7B-v0.2's
// config.json) means no window, where leaving the key out means 4096.
func TestNullConfigKeyIsNone(t *testing.T) {
	windowed := func(extra string) bool {
		g, err := expandYAML(t, llamaYAML("MistralForCausalLM", smallCfg+extra, "  mode: inference\n  batch_size: 1\n  seq_len: 8192\n  precision: bf16\n"))
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range g.Ops {
			if strings.Contains(op.Name, "sliding_window") {
				return true
			}
		}
		return false
	}
	if !windowed("") {
		t.Error("no sliding window with the default 4096 at 8192 tokens")
	}
	if windowed("    sliding_window: null\n") {
		t.Error("sliding_window: null still slides")
	}
	if _, err := expandYAML(t, llamaYAML("MistralForCausalLM", strings.Replace(smallCfg, "vocab_size: 1000", "vocab_size: null", 1), "")); err == nil || !strings.Contains(err.Error(), "missing or null") {
		t.Errorf("vocab_size: null: %v", err)
	}
}

// TestConfigNumbersByValue: a config number is compared by value, not by
// its decoded type — config.json's 32.0 is a float64 where 32 is an int64,
// and an interface comparison never finds them equal — and a float where
// an integer is wanted is quoted as one.
func TestConfigNumbersByValue(t *testing.T) {
	vit := func(extra string) error {
		_, err := expandYAML(t, "name: t\nmodel:\n  architecture: ViTForImageClassification\n  config: {hidden_size: 64, num_hidden_layers: 1, num_attention_heads: 2, intermediate_size: 128"+extra+"}\ntraining: {batch_size: 2, image_size: 32, precision: fp32, optimizer: sgd}\n")
		return err
	}
	for _, extra := range []string{", head_dim: 32", ", head_dim: 32.0"} {
		if err := vit(extra); err != nil {
			t.Errorf("ViT%s: %v", extra, err)
		}
	}
	if err := vit(", head_dim: 16.0"); err == nil || !strings.Contains(err.Error(), "head_dim: 16.0 is not modelled") {
		t.Errorf("ViT head_dim 16.0: %v", err)
	}
	if _, err := expandYAML(t, llamaYAML("BertForMaskedLM", "    num_hidden_layers: 1\n    chunk_size_feed_forward: 0.0\n", "")); err != nil {
		t.Errorf("BERT chunk_size_feed_forward 0.0: %v", err)
	}
	if _, err := expandYAML(t, llamaYAML("LlamaForCausalLM", smallCfg+"    head_dim: 64.0\n", "")); err == nil || !strings.Contains(err.Error(), "want a positive integer, got 64.0") {
		t.Errorf("Llama head_dim 64.0: %v", err)
	}
}

// TestTorchvisionSkipsHFKeys: the keys every HF config shares mean nothing
// to a torchvision constructor, which refuses them as unknown arguments.
func TestTorchvisionSkipsHFKeys(t *testing.T) {
	_, err := expandYAML(t, "name: t\nmodel:\n  architecture: torchvision.resnet18\n  config: {attn_implementation: eager}\ntraining: {batch_size: 2, image_size: 64, precision: fp32, optimizer: sgd}\n")
	if err == nil || !strings.Contains(err.Error(), "takes no such argument") {
		t.Errorf("torchvision.resnet18 with attn_implementation: %v", err)
	}
}

// A config key a letter or two from one the class reads is kept and
// ignored, as transformers does, with a warning naming the key it is near;
// keys far from any are not guessed at, and the bundled configs warn of
// nothing.
func TestMisspeltConfigKeyWarns(t *testing.T) {
	g, err := expandYAML(t, "name: t\nmodel:\n  architecture: GPT2LMHeadModel\n  config: {n_embdd: 4096, n_layer: 2, initializer_range: 0.02, completely_unrelated: 1}\ntraining: {batch_size: 1, seq_len: 64, precision: fp32, optimizer: adamw}\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Warnings) != 1 || !strings.Contains(g.Warnings[0], "llama.yaml:4:21: model.config.n_embdd") || !strings.Contains(g.Warnings[0], "did you mean n_embd?") {
		t.Errorf("warnings %q, want one naming n_embdd at its position and n_embd", g.Warnings)
	}
	files, _ := filepath.Glob("../../examples/*.yaml")
	more, _ := filepath.Glob("../../examples/*/*.yaml")
	for _, f := range append(files, more...) {
		m, err := spec.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		if g, err := Expand(m); err == nil && len(g.Warnings) != 0 {
			t.Errorf("%s: warnings %q", f, g.Warnings)
		}
	}
}

// An integer key given as a string, or past any model's size, says which.
func TestConfigIntegerMessages(t *testing.T) {
	for cfg, want := range map[string]string{
		`n_layer: "12"`:             `model.config.n_layer: want a positive integer, got "12" (a string)`,
		`vocab_size: 9999999999999`: "model.config.vocab_size: 9999999999999 is out of range (allowed: a positive integer up to 1099511627776)",
	} {
		_, err := expandYAML(t, "name: t\nmodel:\n  architecture: GPT2LMHeadModel\n  config: {"+cfg+"}\ntraining: {batch_size: 1, seq_len: 64, precision: fp32, optimizer: adamw}\n")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v (want %q)", cfg, err, want)
		}
	}
}

// Sizes past any device stop the expansion at the training section, with
// the tensor they broke and what to lower; digits too long for an int are
// out of range, not "not an integer".
func TestSizeOverflow(t *testing.T) {
	_, err := expandYAML(t, "name: t\nmodel:\n  architecture: GPT2LMHeadModel\n  config: {vocab_size: 1000000000}\ntraining: {batch_size: 16777216, seq_len: 1024, precision: fp32, optimizer: adamw}\n")
	var overflow *spec.SizeOverflowError
	if err == nil || !strings.HasPrefix(err.Error(), "llama.yaml:5:") || !strings.Contains(err.Error(), "is 2^60 bytes or more, which PyTorch refuses to allocate (allowed:") || !errors.As(err, &overflow) {
		t.Errorf("a logits tensor past 2^60 bytes: %v", err)
	}
	// Sizes an override made are at no line of the file.
	m, err := spec.Parse("llama.yaml", []byte("name: t\nmodel:\n  architecture: GPT2LMHeadModel\n  config: {vocab_size: 1000000000}\ntraining: {batch_size: 1, seq_len: 1024, precision: fp32, optimizer: adamw}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Set("training.batch_size", "16777216"); err != nil {
		t.Fatal(err)
	}
	if _, err := Expand(m); err == nil || !strings.HasPrefix(err.Error(), "tensor lm_head.out") {
		t.Errorf("an override's overflow: %v (want no file position)", err)
	}
	_, err = expandYAML(t, "name: t\nmodel:\n  architecture: GPT2LMHeadModel\ntraining: {batch_size: 99999999999999999999, seq_len: 64, precision: fp32, optimizer: adamw}\n")
	if err == nil || !strings.Contains(err.Error(), "training.batch_size: 99999999999999999999 is out of range") {
		t.Errorf("a batch of 20 digits: %v", err)
	}
}

// A layer count past any real model is refused before the graph is built
// (a billion layers would exhaust memory); so is a head size whose tensors
// PyTorch would refuse, however far the build has to go to reach them.
func TestHostileSizesRefused(t *testing.T) {
	for _, c := range []struct{ cfg, want string }{
		{"{n_layer: 99999999999}", "model.config.n_layer: 99999999999 layers is out of range (allowed: 1 to 10000)"},
		{"{n_layer: 10001}", "model.config.n_layer: 10001 layers is out of range"},
		{"{n_embd: 1073741824, n_head: 1, n_layer: 1}", "is 2^60 bytes or more, which PyTorch refuses to allocate"},
	} {
		m, err := spec.Parse("g.yaml", []byte("name: g\nmodel:\n  architecture: GPT2LMHeadModel\n  config: "+c.cfg+"\ntraining: {batch_size: 1, seq_len: 8}\n"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Expand(m); err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "g.yaml:") {
			t.Errorf("%s: %v (want %q)", c.cfg, err, c.want)
		}
	}
}
