package family

import (
	"strings"
	"testing"

	"github.com/memplan/memplan/spec"
)

const vitTrain = "mode: train, batch_size: 32, image_size: 224, precision: fp32, optimizer: adamw"

func TestViTParamCounts(t *testing.T) {
	for _, c := range []struct {
		cfg, training string
		want          int64
	}{
		{"", vitTrain, 85800194}, // the measured vit-fp32-adamw-b32 param_count
		{"num_labels: 1000", vitTrain, 85800194 + 998*769},
		{"", strings.Replace(vitTrain, "224", "384", 1), 85800194 + (577-197)*768},
		{"qkv_bias: false", vitTrain, 85800194 - 12*3*768},
	} {
		g := vbMust(t, "ViTForImageClassification", c.cfg, c.training)
		if got := g.ParamCount(); got != c.want {
			t.Errorf("{%s} %s: %d parameters, want %d", c.cfg, c.training, got, c.want)
		}
	}
}

func TestViTStructure(t *testing.T) {
	g := vbMust(t, "ViTForImageClassification", "", vitTrain)
	if len(g.Inputs) != 2 || g.Tensors[g.Inputs[0]].Bytes != 32*3*224*224*4 {
		t.Errorf("inputs: want pixel_values fp32 [32,3,224,224] and labels")
	}
	if g.Blocks != 12 {
		t.Errorf("%d blocks, want 12 encoder layers", g.Blocks)
	}
	// pixel_values need no gradient: the patch conv is one op whose backward
	// copies the non-contiguous output gradient before the filter pass, then
	// sums the bias gradient with a staging buffer and its semaphores.
	conv := vbOps(g, "patch_embeddings.projection")
	if len(conv) != 1 || len(conv[0].BackwardTemps) != 4 || g.Tensors[conv[0].BackwardTemps[0]].Bytes != 32*768*14*14*4 ||
		conv[0].BackwardTempsFirst != 1 || conv[0].ReduceTemps != 2 || !conv[0].ReduceAfterTemps {
		t.Fatalf("patch conv: want one op with the gradient copy first, a workspace, then the bias sum's staging")
	}
	// ViTConfig has no dropout: no dropout op, no mask.
	for i := range g.Ops {
		if g.Ops[i].Kind == "dropout" {
			t.Errorf("%s: ViT's default dropout is 0", g.Ops[i].Name)
		}
	}
	// The fc1 bias gradient of [32·197, 3072] needs a 138412032 B staging buffer.
	fc1 := vbOps(g, "layers.11.mlp.fc1")
	if len(fc1) != 1 || len(fc1[0].BackwardTemps) != 2 || g.Tensors[fc1[0].BackwardTemps[0]].Bytes != 138412032 {
		t.Errorf("fc1 backward: want the measured 138412032 B reduction staging buffer")
	}
	if _, err := vbExpand(t, "ViTForImageClassification", "num_labels: 1", vitTrain); err == nil || !strings.Contains(err.Error(), "num_labels") {
		t.Errorf("num_labels 1: error %v", err)
	}
	g = vbMust(t, "ViTForImageClassification", "", "mode: inference, batch_size: 4, precision: bf16, optimizer: none")
	if len(g.Inputs) != 1 || g.Tensors[g.Inputs[0]].DType != spec.BF16 || g.Loss != spec.NoTensor {
		t.Errorf("bf16 inference: want bf16 pixel_values only and no loss")
	}
}
