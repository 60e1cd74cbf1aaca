package family

import (
	"fmt"
	"strings"

	"github.com/memplan/memplan/spec"
)

// torchvision's VGG and MobileNetV2 (torchvision 0.26, models/vgg.py,
// models/mobilenetv2.py, ops/misc.py), op by op as they run under PyTorch
// 2.11, checked against the H200 allocator traces of the vgg and
// mobilenet-v2 cases.

// vggConfigs are torchvision's VGG layer lists ("A" to "E"): output
// channels of each 3×3 convolution, 0 for a 2×2 max-pool.
var vggConfigs = map[string][]int64{
	"A": {64, 0, 128, 0, 256, 256, 0, 512, 512, 0, 512, 512, 0},
	"B": {64, 64, 0, 128, 128, 0, 256, 256, 0, 512, 512, 0, 512, 512, 0},
	"D": {64, 64, 0, 128, 128, 0, 256, 256, 256, 0, 512, 512, 512, 0, 512, 512, 512, 0},
	"E": {64, 64, 0, 128, 128, 0, 256, 256, 256, 256, 0, 512, 512, 512, 512, 0, 512, 512, 512, 512, 0},
}

// vggArchs maps the torchvision.models constructors to their layer list and
// whether each convolution is followed by a BatchNorm2d.
var vggArchs = map[string]struct {
	cfg string
	bn  bool
}{
	"vgg11": {"A", false}, "vgg11_bn": {"A", true}, "vgg13": {"B", false}, "vgg13_bn": {"B", true},
	"vgg16": {"D", false}, "vgg16_bn": {"D", true}, "vgg19": {"E", false}, "vgg19_bn": {"E", true},
}

func registerVision(f map[string]expander) {
	for name, arch := range vggArchs {
		f["torchvision."+name] = func(m *spec.Model, o options) (*spec.Graph, error) {
			return expandVGG(m, name, vggConfigs[arch.cfg], arch.bn, o)
		}
	}
	f["torchvision.mobilenet_v2"] = expandMobileNetV2
}

// tvConfig reads a torchvision constructor's keyword arguments, refusing
// any it does not take.
func tvConfig(m *spec.Model, name string, defaults map[string]any) (*hfConfig, error) {
	for k, v := range m.Config {
		if _, ok := defaults[k]; !ok {
			return nil, v.Pos.Errorf("model.config.%s: torchvision.models.%s takes no such argument (allowed: %s)", k, name, strings.Join(knownKeys(defaults), ", "))
		}
	}
	return newConfig(m, "torchvision.models."+name, defaults), nil
}

// tvLimits are what a torchvision network takes of the training section:
// an image size of at least minSize (torchvision's min_size; why says what
// needs it) and, when blocks, activation checkpointing (per residual
// block).
type tvLimits struct {
	minSize int64
	why     string
	blocks  bool
}

// tvStart checks what every torchvision network here shares — the keyword
// arguments c read, the training section against lim — and makes the
// builder and the batch.
func tvStart(m *spec.Model, name string, lim tvLimits, c *hfConfig, o options) (r *tvnet, x, y spec.TensorID, err error) {
	if c.err != nil {
		return nil, 0, 0, c.err
	}
	t := m.Training
	size := t.ImageSize
	if size == 0 {
		size = 224
	}
	if size < lim.minSize {
		return nil, 0, 0, m.Training.KeyPos("image_size", m.At("training")).Errorf("training.image_size %d is too small for torchvision.%s (allowed: at least %d, %s)", size, name, lim.minSize, lim.why)
	}
	if t.ActivationCheckpointing && !lim.blocks {
		return nil, 0, 0, t.KeyPos("activation_checkpointing", m.At("training")).Errorf("training.activation_checkpointing: not modelled for torchvision.%s (allowed: false; it is modelled per residual block for the torchvision ResNets)", name)
	}
	r = &tvnet{pdt: t.Precision.ParamDType(), b: o.newBuilder(t)}
	x = r.b.Input("x", []int64{t.BatchSize, 3, size, size}, r.pdt)
	y = spec.NoTensor
	if t.Mode == spec.ModeTrain {
		y = r.b.Input("y", []int64{t.BatchSize}, spec.Int64)
	}
	return r, x, y, nil
}

// finish is `cross_entropy(model(x), y)` in training (the model's output
// lives until the call returns), the logits in inference.
func (r *tvnet) finish(logits, y spec.TensorID) (*spec.Graph, error) {
	b := r.b
	if y == spec.NoTensor {
		return b.Finish(spec.NoTensor, logits)
	}
	b.SetLayer("loss")
	loss := b.CrossEntropy("cross_entropy", logits, y)
	b.HoldUntilLastOp(logits)
	return b.Finish(loss)
}

// linear is nn.Linear with a bias, its parameters made where it is called.
func (r *tvnet) linear(name string, x spec.TensorID, out int64) spec.TensorID {
	b := r.b
	in := b.Shape(x)[len(b.Shape(x))-1]
	var w, bias spec.TensorID
	b.Scoped(name, func() {
		w = b.Param("weight", []int64{out, in}, r.pdt)
		bias = b.Param("bias", []int64{out}, r.pdt)
	})
	return b.Linear(name, x, w, bias)
}

// expandVGG is torchvision's VGG: features (3×3 convolutions with biases,
// optional batch norm, in-place ReLU, 2×2 max-pools), AdaptiveAvgPool2d
// to 7×7, flatten, and the classifier (Linear, ReLU, Dropout twice, then
// Linear).
func expandVGG(m *spec.Model, name string, cfg []int64, batchNorm bool, o options) (*spec.Graph, error) {
	c, err := tvConfig(m, name, map[string]any{"num_classes": int64(1000), "init_weights": true, "dropout": 0.5})
	if err != nil {
		return nil, err
	}
	classes := c.Int("num_classes")
	c.Bool("init_weights")
	drop := c.Float("dropout", 0, 1)
	r, x, y, err := tvStart(m, name, tvLimits{minSize: 32, why: "what its five 2×2 max-pools need"}, c, o)
	if err != nil {
		return nil, err
	}
	b := r.b
	bsz := m.Training.BatchSize
	h := x
	b.SetLayer("features")
	b.Scoped("features", func() {
		idx := 0
		next := func() string { idx++; return fmt.Sprint(idx - 1) }
		for _, v := range cfg {
			if v == 0 {
				h = b.MaxPool2d(next(), h, 2, 2, 0)
				continue
			}
			h = r.conv2d(next(), h, v, 3, 1, 1, 1, true)
			if batchNorm {
				h = r.bn(next(), h)
			}
			h = b.ReLU(next(), h, true)
		}
	})
	b.SetLayer("avgpool")
	h = b.AdaptiveAvgPool2d("avgpool", h, 7, 7)
	flat := b.View("flatten", h, bsz, 512*7*7)
	b.SetLayer("classifier")
	var logits spec.TensorID
	b.Scoped("classifier", func() {
		z := r.linear("0", flat, 4096)
		z = b.Dropout("2", b.ReLU("1", z, true), drop)
		z = r.linear("3", z, 4096)
		z = b.Dropout("5", b.ReLU("4", z, true), drop)
		logits = r.linear("6", z, classes)
	})
	// The classifier (an nn.Sequential) is called with the flattened
	// pooling, which lives until it returns.
	b.HoldUntilLastOp(flat)
	return r.finish(logits, y)
}

// mobileNetV2Settings are MobileNetV2's inverted residual stages: expansion
// t, output channels c, blocks n, first stride s.
var mobileNetV2Settings = [][4]int64{
	{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2}, {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1},
}

// makeDivisible is torchvision's _make_divisible: v rounded to a multiple of
// divisor, at least divisor, never more than 10% below v.
func makeDivisible(v float64, divisor int64) int64 {
	n := max(divisor, int64(v+float64(divisor)/2)/divisor*divisor)
	if float64(n) < 0.9*v {
		n += divisor
	}
	return n
}

// expandMobileNetV2 is torchvision's MobileNetV2: a 3×3 stem, seventeen
// inverted residual blocks (1×1 expansion, 3×3 depthwise, 1×1 projection,
// each normed, ReLU6 in place after the first two; x + block(x) when the
// shape allows), a 1×1 convolution to last_channel, global average pooling
// and Dropout + Linear.
func expandMobileNetV2(m *spec.Model, o options) (*spec.Graph, error) {
	const name = "mobilenet_v2"
	c, err := tvConfig(m, name, map[string]any{"num_classes": int64(1000), "width_mult": 1.0, "round_nearest": int64(8), "dropout": 0.2,
		"inverted_residual_setting": nil, "block": nil, "norm_layer": nil})
	if err != nil {
		return nil, err
	}
	classes := c.Int("num_classes")
	width := c.Float("width_mult", 0, 100)
	if width == 0 && c.err == nil {
		c.fail("width_mult", "0 makes every layer empty (allowed: a positive number)")
	}
	round := c.Int("round_nearest")
	drop := c.Float("dropout", 0, 1)
	for _, key := range []string{"inverted_residual_setting", "block", "norm_layer"} {
		if v, ok := m.Config[key]; ok && v.V != nil && c.err == nil {
			c.fail(key, "a custom %s is not modelled: memplan builds torchvision's default (allowed: null, or leave it out)", strings.ReplaceAll(key, "_", " "))
		}
	}
	r, x, y, err := tvStart(m, name, tvLimits{minSize: 1, why: "what its padded convolutions need"}, c, o)
	if err != nil {
		return nil, err
	}
	b := r.b
	in := makeDivisible(32*width, round)
	last := makeDivisible(1280*max(1, width), round)
	h := x
	b.Scoped("features", func() {
		b.SetLayer("features.0")
		h = r.convNormReLU6("0", h, in, 3, 2, 1)
		idx := 1
		for _, st := range mobileNetV2Settings {
			out := makeDivisible(float64(st[1])*width, round)
			for i := int64(0); i < st[2]; i++ {
				stride := int64(1)
				if i == 0 {
					stride = st[3]
				}
				layer := fmt.Sprint(idx)
				b.SetLayer("features." + layer)
				b.Scoped(layer, func() { h = r.invertedResidual(h, in, out, stride, st[0]) })
				in = out
				idx++
			}
		}
		b.SetLayer(fmt.Sprintf("features.%d", idx))
		h = r.convNormReLU6(fmt.Sprint(idx), h, last, 1, 1, 1)
	})
	b.SetLayer("classifier")
	h = b.GlobalAvgPool("adaptive_avg_pool2d", h)
	flat := b.View("flatten", h, m.Training.BatchSize, last)
	var logits spec.TensorID
	b.Scoped("classifier", func() {
		logits = r.linear("1", b.Dropout("0", flat, drop), classes)
	})
	b.HoldUntilLastOp(flat)
	return r.finish(logits, y)
}

// convNormReLU6 is Conv2dNormActivation with ReLU6: a bias-free
// convolution padded to keep the size, BatchNorm2d and ReLU6 in place. It
// is an nn.Sequential called from another: the caller's loop holds its
// input until it returns (measured: the expansion's output is freed after
// the depthwise block's batch norm).
func (r *tvnet) convNormReLU6(name string, x spec.TensorID, out, k, stride, groups int64) spec.TensorID {
	b := r.b
	var h spec.TensorID
	b.Scoped(name, func() {
		h = r.conv2d("0", x, out, k, stride, (k-1)/2, groups, false)
		h = r.bn("1", h)
		h = b.ReLU6("2", h)
	})
	b.HoldUntilLastOp(x)
	return h
}

// invertedResidual is MobileNetV2's InvertedResidual block (its conv
// Sequential), with `x + self.conv(x)` — a new tensor — when the stride is 1
// and the channels match. The block's input lives until it returns.
func (r *tvnet) invertedResidual(x spec.TensorID, in, out, stride, expand int64) spec.TensorID {
	b := r.b
	hidden := in * expand
	h := x
	b.Scoped("conv", func() {
		j := 0
		if expand != 1 {
			h = r.convNormReLU6("0", h, hidden, 1, 1, 1)
			j++
		}
		h = r.convNormReLU6(fmt.Sprint(j), h, hidden, 3, stride, hidden)
		h = r.conv2d(fmt.Sprint(j+1), h, out, 1, 1, 0, 1, false)
		h = r.bn(fmt.Sprint(j+2), h)
	})
	if stride == 1 && in == out {
		h = b.Add("add_identity", x, h)
	}
	b.HoldUntilLastOp(x)
	return h
}
