package family

import (
	"strings"
	"testing"

	"github.com/memplan/memplan/spec"
)

// torchvision's parameter counts (the measured cases' param_count).
func TestVGGMobileNetParamCounts(t *testing.T) {
	for _, c := range []struct {
		arch, cfg string
		want      int64
	}{
		{"torchvision.vgg16", "", 138357544},
		{"torchvision.vgg11_bn", "", 132868840},
		{"torchvision.mobilenet_v2", "", 3504872},
		{"torchvision.mobilenet_v2", "width_mult: 0.5", 1968680},
	} {
		if got := vbMust(t, c.arch, c.cfg, resnetTrain).ParamCount(); got != c.want {
			t.Errorf("%s {%s}: %d parameters, want %d", c.arch, c.cfg, got, c.want)
		}
	}
}

// MobileNetV2's depthwise convolutions run PyTorch's own kernels (no cuDNN
// workspace) but in fp16; its in-place ReLU6 clones its input under
// autograd, not in inference; VGG's convolutions have biases.
func TestMobileNetV2DepthwiseAndReLU6(t *testing.T) {
	// cuDNN's convolutions are noted in Graph.Convs (what calibrate --convs
	// measures); the depthwise ones are there in fp16 only.
	depthwise := func(g *spec.Graph) int {
		n := 0
		for _, c := range g.Convs {
			if c.Geometry.Groups > 1 {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		prec string
		want bool
	}{{"fp32", false}, {"bf16", false}, {"fp16", true}} {
		g := vbMust(t, "torchvision.mobilenet_v2", "", "batch_size: 8, image_size: 224, precision: "+c.prec+", optimizer: sgd")
		if got := depthwise(g) > 0; got != c.want {
			t.Errorf("%s: depthwise convolutions through cuDNN: %v, want %v", c.prec, got, c.want)
		}
	}
	clones := func(g *spec.Graph) int {
		n := 0
		for _, tn := range g.Tensors {
			if strings.HasSuffix(tn.Name, ".input_clone") {
				n++
			}
		}
		return n
	}
	train := vbMust(t, "torchvision.mobilenet_v2", "", resnetTrain)
	infer := vbMust(t, "torchvision.mobilenet_v2", "", "mode: inference, batch_size: 8, precision: fp32")
	// 35 ReLU6: the stem, two in each of the 16 expanding blocks, one in the
	// first block, the last 1×1.
	if got := clones(train); got != 35 {
		t.Errorf("training: %d ReLU6 input clones, want 35", got)
	}
	if got := clones(infer); got != 0 {
		t.Errorf("inference: %d ReLU6 input clones, want 0", got)
	}
	g := vbMust(t, "torchvision.vgg16", "", resnetTrain)
	if ops := vbOps(g, "features.0"); len(ops) == 0 || len(ops[0].Params) != 2 {
		t.Errorf("vgg16 features.0: want a convolution with weight and bias")
	}
}

// MobileNetV2's padded convolutions take any image size (torchvision's
// min_size is 1×1).
func TestMobileNetV2SmallImages(t *testing.T) {
	for _, size := range []string{"1", "16", "31"} {
		if _, err := vbExpand(t, "torchvision.mobilenet_v2", "", "batch_size: 2, image_size: "+size+", precision: fp16, optimizer: sgd"); err != nil {
			t.Errorf("%s px: %v", size, err)
		}
	}
}

func TestVisionErrors(t *testing.T) {
	for _, c := range []struct{ arch, cfg, training, want string }{
		{"torchvision.vgg16", "width_mult: 2", resnetTrain, "takes no such argument (allowed: dropout, init_weights, num_classes)"},
		{"torchvision.mobilenet_v2", "block: InvertedResidual", resnetTrain, "model.config.block: a custom block is not modelled: memplan builds torchvision's default (allowed: null, or leave it out)"},
		{"torchvision.mobilenet_v2", "inverted_residual_setting: [[1, 16, 1, 1]]", resnetTrain, "model.config.inverted_residual_setting: a custom inverted residual setting is not modelled"},
		{"torchvision.mobilenet_v2", "width_mult: 0", resnetTrain, "model.config.width_mult: 0 makes every layer empty (allowed: a positive number)"},
		{"torchvision.mobilenet_v2", "", resnetTrain + ", activation_checkpointing: true", "training.activation_checkpointing: not modelled for torchvision.mobilenet_v2"},
		{"torchvision.vgg11", "", "batch_size: 2, image_size: 16, precision: fp32, optimizer: sgd", "too small for torchvision.vgg11 (allowed: at least 32, what its five 2×2 max-pools need)"},
		{"torchvision.resnet50", "", "batch_size: 2, image_size: 16, precision: fp32, optimizer: sgd", "too small for torchvision.resnet50 (allowed: at least 32, what its five stride-2 stages need)"},
		{"torchvision.resnet18", "bogus: 1", resnetTrain, "model.config.bogus: torchvision.models.resnet18 takes no such argument"},
	} {
		if _, err := vbExpand(t, c.arch, c.cfg, c.training); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s {%s}: error %v, want %q", c.arch, c.cfg, err, c.want)
		}
	}
}
