package family

import (
	"fmt"
	"sort"

	"github.com/memplan/memplan/spec"
)

// resnetArch is one torchvision ResNet: its block type, blocks per stage
// and, for the ResNeXt and Wide ResNet constructors, the groups and
// width_per_group they fix (0: the caller's, default 1 and 64).
type resnetArch struct {
	bottleneck    bool
	layers        [4]int64
	groups, width int64
}

// resnetArchs are the torchvision.models constructors memplan expands
// (torchvision 0.26, models/resnet.py).
var resnetArchs = map[string]resnetArch{
	"resnet18":         {false, [4]int64{2, 2, 2, 2}, 0, 0},
	"resnet34":         {false, [4]int64{3, 4, 6, 3}, 0, 0},
	"resnet50":         {true, [4]int64{3, 4, 6, 3}, 0, 0},
	"resnet101":        {true, [4]int64{3, 4, 23, 3}, 0, 0},
	"resnet152":        {true, [4]int64{3, 8, 36, 3}, 0, 0},
	"resnext50_32x4d":  {true, [4]int64{3, 4, 6, 3}, 32, 4},
	"resnext101_32x8d": {true, [4]int64{3, 4, 23, 3}, 32, 8},
	"resnext101_64x4d": {true, [4]int64{3, 4, 23, 3}, 64, 4},
	"wide_resnet50_2":  {true, [4]int64{3, 4, 6, 3}, 0, 128},
	"wide_resnet101_2": {true, [4]int64{3, 4, 23, 3}, 0, 128},
}

// resnetDefaults are the keyword arguments of torchvision's ResNet that
// memplan reads (zero_init_residual only changes values, not memory).
func resnetDefaults() map[string]any {
	return map[string]any{"num_classes": int64(1000), "zero_init_residual": false, "groups": int64(1), "width_per_group": int64(64)}
}

func registerResNet(f map[string]expander) {
	for name, arch := range resnetArchs {
		f["torchvision."+name] = func(m *spec.Model, o options) (*spec.Graph, error) { return expandResNet(m, name, arch, o) }
	}
}

// resnet holds a ResNet expansion in progress.
type resnet struct {
	tvnet
	groups int64
	width  int64
}

func expandResNet(m *spec.Model, name string, arch resnetArch, o options) (*spec.Graph, error) {
	defaults := resnetDefaults()
	// The ResNeXt and Wide ResNet constructors set groups and
	// width_per_group themselves (_ovewrite_named_param), refusing another
	// value.
	fixed := map[string]int64{}
	if arch.groups > 0 {
		defaults["groups"], fixed["groups"] = arch.groups, arch.groups
	}
	if arch.width > 0 {
		defaults["width_per_group"], fixed["width_per_group"] = arch.width, arch.width
	}
	c, err := tvConfig(m, name, defaults)
	if err != nil {
		return nil, err
	}
	classes := c.Int("num_classes")
	c.Bool("zero_init_residual")
	groups, width := c.Int("groups"), c.Int("width_per_group")
	if c.err != nil {
		return nil, c.err
	}
	for _, key := range []string{"groups", "width_per_group"} {
		if want, ok := fixed[key]; ok && map[string]int64{"groups": groups, "width_per_group": width}[key] != want {
			return nil, c.pos(key).Errorf("model.config.%s: torchvision.models.%s sets %s=%d itself (allowed: %d, or leave it out)", key, name, key, want, want)
		}
	}
	if !arch.bottleneck && (groups != 1 || width != 64) {
		return nil, c.pos("groups").Errorf("model.config: torchvision's BasicBlock (%s) supports only groups=1 and width_per_group=64", name)
	}
	tv, x, y, err := tvStart(m, name, tvLimits{minSize: 32, why: "what its five stride-2 stages need", blocks: true}, c, o)
	if err != nil {
		return nil, err
	}
	r := &resnet{tvnet: *tv, groups: groups, width: width}
	b := r.b
	bsz := m.Training.BatchSize

	b.SetLayer("stem")
	h := r.conv("conv1", x, 64, 7, 2, 3, 1)
	h = r.bn("bn1", h)
	h = b.ReLU("relu", h, true)
	h = b.MaxPool2d("maxpool", h, 3, 2, 1)
	inplanes := int64(64)
	for li, blocks := range arch.layers {
		planes := int64(64) << li
		stride := int64(1)
		if li > 0 {
			stride = 2
		}
		groupIn := h
		for bi := int64(0); bi < blocks; bi++ {
			bname := fmt.Sprintf("layer%d.%d", li+1, bi)
			s := int64(1)
			if bi == 0 {
				s = stride
			}
			b.SetLayer(bname)
			b.BeginBlock()
			b.Scoped(bname, func() {
				if arch.bottleneck {
					h = r.bottleneck(h, inplanes, planes, s)
				} else {
					h = r.basic(h, inplanes, planes, s)
				}
			})
			b.EndBlock()
			if arch.bottleneck {
				inplanes = planes * 4
			} else {
				inplanes = planes
			}
		}
		// _forward_impl's x holds the layer group's input until the group
		// (an nn.Sequential) returns (measured in inference: the max-pool
		// output outlives layer1's first block).
		b.HoldUntilLastOp(groupIn)
	}
	b.SetLayer("head")
	h = b.GlobalAvgPool("avgpool", h)
	h = b.View("flatten", h, bsz, inplanes)
	return r.finish(r.linear("fc", h, classes), y)
}

// conv is a bias-free nn.Conv2d (torchvision's conv3x3/conv1x1 and the stem).
func (r *resnet) conv(name string, x spec.TensorID, out, k, stride, pad, groups int64) spec.TensorID {
	return r.conv2d(name, x, out, k, stride, pad, groups, false)
}

// tvnet holds what torchvision's convolutional networks share: the builder
// and the parameters' dtype.
type tvnet struct {
	b   *spec.Builder
	pdt spec.DType
}

// conv2d is nn.Conv2d (a bias when bias).
func (r *tvnet) conv2d(name string, x spec.TensorID, out, k, stride, pad, groups int64, bias bool) spec.TensorID {
	b := r.b
	in := b.Shape(x)[1]
	w, bs := spec.NoTensor, spec.NoTensor
	b.Scoped(name, func() {
		w = b.Param("weight", []int64{out, in / groups, k, k}, r.pdt)
		if bias {
			bs = b.Param("bias", []int64{out}, r.pdt)
		}
	})
	return b.Conv2dCuDNN(name, x, w, bs, spec.Conv2dArgs{Kernel: k, Stride: stride, Padding: pad, Groups: groups}, spec.ConvOpts{})
}

// bn is nn.BatchNorm2d with its running statistics (buffers in the
// parameter dtype) and num_batches_tracked (int64).
func (r *tvnet) bn(name string, x spec.TensorID) spec.TensorID {
	b := r.b
	ch := b.Shape(x)[1]
	var w, bias, mean, variance spec.TensorID
	b.Scoped(name, func() {
		w = b.Param("weight", []int64{ch}, r.pdt)
		bias = b.Param("bias", []int64{ch}, r.pdt)
		mean = b.Buffer("running_mean", []int64{ch}, r.pdt)
		variance = b.Buffer("running_var", []int64{ch}, r.pdt)
		b.Buffer("num_batches_tracked", []int64{}, spec.Int64)
	})
	return b.BatchNorm2d(name, x, w, bias, mean, variance)
}

// downsample is the projection shortcut: conv1x1(stride) then BatchNorm2d.
func (r *resnet) downsample(x spec.TensorID, out, stride int64) spec.TensorID {
	var id spec.TensorID
	r.b.Scoped("downsample", func() {
		id = r.conv("0", x, out, 1, stride, 0, 1)
		id = r.bn("1", id)
	})
	return id
}

// basic is torchvision's BasicBlock: two 3×3 convs, the residual added in
// place (`out += identity`) and an in-place ReLU over the sum.
func (r *resnet) basic(x spec.TensorID, inplanes, planes, stride int64) spec.TensorID {
	b := r.b
	out := r.conv("conv1", x, planes, 3, stride, 1, 1)
	out = r.bn("bn1", out)
	out = b.ReLU("relu", out, true)
	out = r.conv("conv2", out, planes, 3, 1, 1, 1)
	out = r.bn("bn2", out)
	identity := x
	if stride != 1 || inplanes != planes {
		identity = r.downsample(x, planes, stride)
	}
	out = b.AddInplace("add_identity", out, identity)
	out = b.ReLU("relu_out", out, true)
	// forward's argument x (the block input) lives until the block returns.
	b.HoldUntilLastOp(x)
	return out
}

// bottleneck is torchvision's Bottleneck (ResNet v1.5: the stride on the 3×3).
func (r *resnet) bottleneck(x spec.TensorID, inplanes, planes, stride int64) spec.TensorID {
	b := r.b
	width := planes * r.width / 64 * r.groups
	out := r.conv("conv1", x, width, 1, 1, 0, 1)
	out = r.bn("bn1", out)
	out = b.ReLU("relu", out, true)
	out = r.conv("conv2", out, width, 3, stride, 1, r.groups)
	out = r.bn("bn2", out)
	out = b.ReLU("relu_2", out, true)
	out = r.conv("conv3", out, planes*4, 1, 1, 0, 1)
	out = r.bn("bn3", out)
	identity := x
	if stride != 1 || inplanes != planes*4 {
		identity = r.downsample(x, planes*4, stride)
	}
	out = b.AddInplace("add_identity", out, identity)
	out = b.ReLU("relu_out", out, true)
	b.HoldUntilLastOp(x)
	return out
}

// resnetNames lists the torchvision architectures, sorted (for tests and docs).
func resnetNames() []string {
	var n []string
	for k := range resnetArchs {
		n = append(n, "torchvision."+k)
	}
	sort.Strings(n)
	return n
}
