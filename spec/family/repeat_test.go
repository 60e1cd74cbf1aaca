package family

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/memplan/memplan/spec"
)

// Writing the copies of a repeated layer from the first ones gives exactly
// the graph that building every copy gives, for every bundled description
// (one GPU, parallel, held out) and the variants below.
func TestRepeatWritesTheBuiltGraph(t *testing.T) {
	var files []string
	for _, glob := range []string{"../../examples/*.yaml", "../../examples/*/*.yaml"} {
		m, _ := filepath.Glob(glob)
		files = append(files, m...)
	}
	variants := [][2]string{
		{"", ""},
		{"training.activation_checkpointing", "false"},
		{"training.activation_checkpointing", "true"},
		{"training.precision", "amp-bf16"},
		{"training.precision", "fp32"},
		{"training.mode", "inference"},
	}
	n, writtenGraphs := 0, 0
	for _, f := range files {
		base, err := spec.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		if base.IsCustom() {
			continue
		}
		for _, v := range variants {
			m := base.Clone()
			if v[0] != "" {
				if err := m.Set(v[0], v[1]); err != nil {
					continue
				}
			}
			var bld *spec.Builder
			written, werr := expand(m, options{built: func(b *spec.Builder) { bld = b }})
			built, berr := expand(m, options{everyCopy: true})
			if (werr == nil) != (berr == nil) {
				t.Fatalf("%s %v: errors differ: %v / %v", f, v, werr, berr)
			}
			if werr != nil {
				continue
			}
			n++
			if bld.WrittenCopies() > 0 {
				writtenGraphs++
			} else {
				t.Logf("%s %v (%s): every copy built", filepath.Base(f), v, m.Architecture)
			}
			if !reflect.DeepEqual(written, built) {
				t.Errorf("%s %v: the written graph differs from the built one (%d / %d tensors, %d / %d ops)", f, v, len(written.Tensors), len(built.Tensors), len(written.Ops), len(built.Ops))
				reportFirstDifference(t, written, built)
			}
		}
	}
	t.Logf("%d graphs compared, %d of them with written copies", n, writtenGraphs)
	for _, src := range []string{
		// Qwen2 with sliding windows from layer 5 on: two runs of alike layers.
		`name: q
model:
  architecture: Qwen2ForCausalLM
  config: {vocab_size: 1000, hidden_size: 256, intermediate_size: 512, num_hidden_layers: 12, num_attention_heads: 4, num_key_value_heads: 2, use_sliding_window: true, sliding_window: 64, max_window_layers: 5, use_cache: false}
training: {batch_size: 2, seq_len: 128, precision: bf16, optimizer: adamw}
`,
		// Mistral's window shorter than the sequence, under checkpointing and autocast.
		`name: m
model:
  architecture: MistralForCausalLM
  config: {vocab_size: 1000, hidden_size: 256, intermediate_size: 512, num_hidden_layers: 9, num_attention_heads: 4, num_key_value_heads: 2, sliding_window: 64, use_cache: false}
training: {batch_size: 2, seq_len: 128, precision: amp-bf16, optimizer: adamw, activation_checkpointing: true}
`,
	} {
		m, err := spec.Parse("x.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		var bld *spec.Builder
		written, err := expand(m, options{built: func(b *spec.Builder) { bld = b }})
		if err != nil {
			t.Fatal(err)
		}
		built, err := expand(m, options{everyCopy: true})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(written, built) {
			t.Errorf("%s: the written graph differs from the built one", m.Name)
			reportFirstDifference(t, written, built)
		}
		if bld.WrittenCopies() == 0 {
			t.Errorf("%s: no copies written", m.Name)
		}
		t.Logf("%s: %d copies written", m.Name, bld.WrittenCopies())
	}
	if writtenGraphs < n/2 {
		t.Errorf("only %d of %d graphs had copies written: Repeat's check fails where it should pass", writtenGraphs, n)
	}
}

func reportFirstDifference(t *testing.T, a, b *spec.Graph) {
	for i := range min(len(a.Tensors), len(b.Tensors)) {
		if !reflect.DeepEqual(a.Tensors[i], b.Tensors[i]) {
			t.Logf("tensor %d: %+v\n  want %+v", i, a.Tensors[i], b.Tensors[i])
			return
		}
	}
	for i := range min(len(a.Ops), len(b.Ops)) {
		if !reflect.DeepEqual(a.Ops[i], b.Ops[i]) {
			t.Logf("op %d: %+v\n  want %+v", i, a.Ops[i], b.Ops[i])
			return
		}
	}
	for _, l := range [][2][]spec.TensorID{{a.Params, b.Params}, {a.Resident, b.Resident}, {a.Inputs, b.Inputs}} {
		if !reflect.DeepEqual(l[0], l[1]) {
			t.Logf("lists differ: %v / %v", l[0], l[1])
			return
		}
	}
	t.Logf("blocks %d / %d", a.Blocks, b.Blocks)
}
