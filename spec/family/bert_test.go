package family

import (
	"strings"
	"testing"

	"github.com/memplan/memplan/spec"
)

const bertTrain = "mode: train, batch_size: 8, seq_len: 512, precision: fp32, optimizer: adamw"

func TestBERTParamCountsAndInputs(t *testing.T) {
	g := vbMust(t, "BertForMaskedLM", "", bertTrain)
	// the measured bert-fp32-adamw-b8 param_count (decoder tied to the word embeddings)
	if got, want := g.ParamCount(), int64(109514298); got != want {
		t.Errorf("bert-base: %d parameters, want %d", got, want)
	}
	// Untied, neither of _tied_weights_keys' ties holds: the decoder gets
	// its own weight and bias (measured on RoBERTa, whose head ties the same
	// two: roberta-untied-amp-fp16-sgd-b24-s384's param_count).
	g = vbMust(t, "BertForMaskedLM", "tie_word_embeddings: false", bertTrain)
	if got, want := g.ParamCount(), int64(109514298+30522*768+30522); got != want {
		t.Errorf("untied: %d parameters, want %d", got, want)
	}
	if len(g.Inputs) != 2 {
		t.Errorf("training inputs: want input_ids and labels")
	}
	// position_ids and token_type_ids are buffers moved by model.cuda().
	var buffers int
	for _, id := range g.Resident {
		if g.Tensors[id].DType == spec.Int64 {
			buffers++
		}
	}
	if buffers != 2 {
		t.Errorf("%d int64 buffers, want position_ids and token_type_ids", buffers)
	}
	g = vbMust(t, "BertForMaskedLM", "", "mode: inference, batch_size: 8, seq_len: 128, precision: bf16, optimizer: none")
	if len(g.Inputs) != 1 || g.Loss != spec.NoTensor {
		t.Errorf("inference: want input_ids only and no loss")
	}
}

// No attention mask is materialised; SDPA picks efficient (fp32) or cuDNN
// (bf16) with the dropout of the config.
func TestBERTAttention(t *testing.T) {
	for prec, kind := range map[string]string{"fp32": "sdpa_efficient", "amp-bf16": "sdpa_cudnn", "bf16": "sdpa_cudnn"} {
		g := vbMust(t, "BertForMaskedLM", "num_hidden_layers: 2", strings.Replace(bertTrain, "fp32", prec, 1))
		ops := vbOps(g, ".sdpa")
		if len(ops) != 2 {
			t.Fatalf("%s: %d SDPA ops, want 2", prec, len(ops))
		}
		for _, op := range ops {
			if op.Kind != kind || len(op.Inputs) != 3 {
				t.Errorf("%s: %s is %s with %d inputs, want %s with q, k, v and no mask", prec, op.Name, op.Kind, len(op.Inputs), kind)
			}
		}
		for i := range g.Ops {
			if strings.Contains(g.Ops[i].Kind, "mask") {
				t.Errorf("%s: %s materialises a mask", prec, g.Ops[i].Name)
			}
		}
	}
	// Under autocast the loss keeps bf16 log-probs and their fp32 copy.
	g := vbMust(t, "BertForMaskedLM", "num_hidden_layers: 1", strings.Replace(bertTrain, "fp32", "amp-bf16", 1))
	ls := vbOps(g, "cross_entropy.log_softmax")
	if len(ls) != 1 || g.Tensors[ls[0].Outputs[0]].DType != spec.BF16 {
		t.Errorf("autocast cross entropy: log_softmax should run in bf16")
	}
}

func TestBERTErrors(t *testing.T) {
	for _, c := range []struct{ cfg, training, want string }{
		{"is_decoder: true", bertTrain, "is_decoder"},
		{"hidden_act: gelu_new", bertTrain, "hidden_act"},
		{"hidden_size: 100", bertTrain, "divisible"},
		{"", strings.Replace(bertTrain, "512", "1024", 1), "max_position_embeddings"},
	} {
		if _, err := vbExpand(t, "BertForMaskedLM", c.cfg, c.training); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("{%s}: error %v, want %q", c.cfg, err, c.want)
		}
	}
}
