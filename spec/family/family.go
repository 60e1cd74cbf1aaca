// Package family expands the model architectures memplan knows — the
// transformers classes (GPT-2, Llama, Mistral, Qwen2, Qwen3, Phi3, Gemma 1–3,
// BERT, ViT) and the torchvision ResNets, VGGs and MobileNetV2 — into spec
// Graphs, op by op as transformers 5.x and
// torchvision execute them, filling every config key not given with the
// defaults of its HF config class.
package family

import (
	"errors"
	"sort"
	"strings"

	"github.com/memplan/memplan/spec"
)

// expander builds the graph of one architecture.
type expander func(m *spec.Model, o options) (*spec.Graph, error)

// options tune an expansion.
type options struct {
	// everyCopy builds every copy of a repeated layer rather than writing
	// copies from the first ones (spec.Builder.Repeat); tests compare the two.
	everyCopy bool
	// built, when set, is given the builder (tests read its counters).
	built func(*spec.Builder)
}

// newBuilder starts a graph with the options applied.
func (o options) newBuilder(t spec.Training) *spec.Builder {
	b := spec.NewBuilder(t)
	if o.everyCopy {
		b.BuildEveryCopy()
	}
	if o.built != nil {
		o.built(b)
	}
	return b
}

// families maps architecture names to their expanders.
func families() map[string]expander {
	f := map[string]expander{}
	registerGPT2(f)
	registerLlama(f)
	registerBERT(f)
	registerViT(f)
	registerResNet(f)
	registerVision(f)
	return f
}

// Known lists the architecture names Expand accepts, sorted.
func Known() []string {
	var names []string
	for n := range families() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Expand turns a validated description into its graph: a custom layer graph
// through spec.ExpandCustom, an architecture through its family.
func Expand(m *spec.Model) (*spec.Graph, error) { return expand(m, options{}) }

func expand(m *spec.Model, o options) (*spec.Graph, error) {
	if m.Training.Attention == spec.AttentionEager && !eagerAttention()[m.Architecture] {
		what := m.Architecture
		if m.IsCustom() {
			what = "a custom layer graph"
		}
		return nil, m.Training.KeyPos("attention", m.At("training")).Errorf("training.attention eager: eager attention is not modelled for %s (allowed: sdpa; eager is modelled for %s)", what, strings.Join(sortedKeys(eagerAttention()), ", "))
	}
	if m.IsCustom() {
		if tp := m.Training.Parallel.TensorRanks(); tp > 1 {
			return nil, m.Training.KeyPos("parallel.tensor", m.At("training")).Errorf("training.parallel.tensor %d: tensor parallelism is not modelled for a custom layer graph (allowed: 1; modelled for %s)", tp, strings.Join(sortedKeys(tensorParallel()), ", "))
		}
		return spec.ExpandCustom(m)
	}
	f, ok := families()[m.Architecture]
	if !ok {
		return nil, m.At("model.architecture").Errorf("unknown architecture %q (known: %s; or omit it and give inputs, layers and loss)", m.Architecture, strings.Join(Known(), ", "))
	}
	// A size the architecture does not read is refused, not ignored.
	image := m.Architecture == "ViTForImageClassification" || strings.HasPrefix(m.Architecture, "torchvision.")
	if _, set := m.Training.Pos["seq_len"]; set && image {
		return nil, m.Training.KeyPos("seq_len", m.At("training")).Errorf("training.seq_len does not apply to %s, an image model (allowed: training.image_size)", m.Architecture)
	}
	if _, set := m.Training.Pos["image_size"]; set && !image {
		return nil, m.Training.KeyPos("image_size", m.At("training")).Errorf("training.image_size does not apply to %s, a text model (allowed: training.seq_len)", m.Architecture)
	}
	if tp := m.Training.Parallel.TensorRanks(); tp > 1 && !tensorParallel()[m.Architecture] {
		return nil, m.Training.KeyPos("parallel.tensor", m.At("training")).Errorf("training.parallel.tensor %d: tensor parallelism is not modelled for %s (allowed: 1; modelled for %s)", tp, m.Architecture, strings.Join(sortedKeys(tensorParallel()), ", "))
	}
	g, err := f(m, o)
	var overflow *spec.SizeOverflowError
	if posErr := (*spec.PosError)(nil); errors.As(err, &overflow) && !errors.As(err, &posErr) {
		// The sizes that made it are the training section's (or the
		// config's) — unless an override set them: then no line holds them.
		pos := m.At("training")
		if t := &m.Training; t.Overridden("batch_size") || t.Overridden("seq_len") || t.Overridden("image_size") {
			pos = spec.Pos{}
		}
		return nil, &spec.PosError{Pos: pos, Msg: err.Error(), Err: err}
	}
	return g, err
}

// eagerAttention lists the architectures whose expansion models
// attn_implementation="eager"; the others refuse it rather than answer
// with SDPA's memory.
func eagerAttention() map[string]bool {
	return map[string]bool{"GPT2LMHeadModel": true, "LlamaForCausalLM": true, "MistralForCausalLM": true, "Qwen2ForCausalLM": true, "Qwen3ForCausalLM": true, "Phi3ForCausalLM": true, "GemmaForCausalLM": true, "Gemma2ForCausalLM": true, "Gemma3ForCausalLM": true}
}

// tensorParallel lists the architectures whose expansion splits heads and
// MLP widths over training.parallel.tensor ranks (Megatron column/row
// parallel layers); the others refuse tensor > 1.
func tensorParallel() map[string]bool {
	return map[string]bool{"GPT2LMHeadModel": true, "LlamaForCausalLM": true, "MistralForCausalLM": true, "Qwen2ForCausalLM": true, "Qwen3ForCausalLM": true}
}

func sortedKeys(m map[string]bool) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}
