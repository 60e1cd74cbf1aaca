package family

import (
	"strings"
	"testing"

	"github.com/memplan/memplan/spec"
)

// vbExpand expands a description of the vision/BERT families given as YAML.
func vbExpand(t *testing.T, arch, config, training string) (*spec.Graph, error) {
	t.Helper()
	src := "name: t\nmodel:\n  architecture: " + arch + "\n  config: {" + config + "}\ntraining: {" + training + "}\ngpu: h200\n"
	m, err := spec.Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return Expand(m)
}

func vbMust(t *testing.T, arch, config, training string) *spec.Graph {
	t.Helper()
	g, err := vbExpand(t, arch, config, training)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// vbOps returns the ops whose name ends with suffix.
func vbOps(g *spec.Graph, suffix string) []*spec.Op {
	var out []*spec.Op
	for i := range g.Ops {
		if strings.HasSuffix(g.Ops[i].Name, suffix) {
			out = append(out, &g.Ops[i])
		}
	}
	return out
}

const resnetTrain = "mode: train, batch_size: 64, image_size: 224, precision: fp32, optimizer: sgd, momentum: 0.9"

// torchvision's parameter counts (and the measured param_count of the
// ResNet-18/50 cases).
func TestResNetParamCounts(t *testing.T) {
	for arch, want := range map[string]int64{
		"torchvision.resnet18": 11689512, "torchvision.resnet34": 21797672, "torchvision.resnet50": 25557032,
		"torchvision.resnet101": 44549160, "torchvision.resnet152": 60192808,
		"torchvision.resnext50_32x4d": 25028904, "torchvision.resnext101_32x8d": 88791336,
		"torchvision.resnext101_64x4d": 83455272, "torchvision.wide_resnet50_2": 68883240,
		"torchvision.wide_resnet101_2": 126886696,
	} {
		g := vbMust(t, arch, "", resnetTrain)
		if got := g.ParamCount(); got != want {
			t.Errorf("%s: %d parameters, want %d", arch, got, want)
		}
	}
	// resnext50_32x4d's keyword arguments, 10 classes.
	g := vbMust(t, "torchvision.resnet50", "groups: 32, width_per_group: 4, num_classes: 10", resnetTrain)
	if got, want := g.ParamCount(), int64(23000394); got != want {
		t.Errorf("resnext50_32x4d/10 classes: %d parameters, want %d", got, want)
	}
}

// Inputs, buffers, blocks and the op details the measured trace shows.
func TestResNet50Structure(t *testing.T) {
	g := vbMust(t, "torchvision.resnet50", "", resnetTrain)
	if len(g.Inputs) != 2 || g.Tensors[g.Inputs[0]].Bytes != 64*3*224*224*4 || g.Tensors[g.Inputs[1]].DType != spec.Int64 {
		t.Errorf("inputs: want x fp32 [64,3,224,224] and y int64 [64]")
	}
	if g.Blocks != 16 {
		t.Errorf("%d checkpoint blocks, want 16 bottlenecks", g.Blocks)
	}
	var buffers int64
	for _, id := range g.Resident {
		if !g.Tensors[id].RequiresGrad {
			buffers += g.Tensors[id].Bytes
		}
	}
	// 53 BNs: running mean/var over 26560 channels plus num_batches_tracked.
	if want := int64(26560*8 + 53*8); buffers != want {
		t.Errorf("buffers %d bytes, want %d", buffers, want)
	}
	for _, op := range vbOps(g, "bn1") {
		if len(op.Extra) != 2 {
			t.Errorf("%s: %d extras, want save_mean and save_invstd (the cuDNN reserve is 0 bytes)", op.Name, len(op.Extra))
		}
	}
	for _, op := range vbOps(g, "relu_out") {
		if out := op.Outputs[0]; g.Tensors[out].Alias == spec.NoTensor {
			t.Errorf("%s: relu(inplace=True) must write over its input", op.Name)
		}
	}
	for _, op := range vbOps(g, "add_identity") {
		if g.Tensors[op.Outputs[0]].Alias == spec.NoTensor || op.Flow != spec.GradPassThrough {
			t.Errorf("%s: out += identity is in place and passes the gradient", op.Name)
		}
	}
	// The stem conv's input needs no gradient: one op, forward workspace and
	// backward-filter workspace only (244093712 and 262972560 B measured).
	stem := vbOps(g, "conv1")[0]
	if stem.Name != "conv1" || len(stem.GradInputs) != 1 || stem.GradInputs[0] != spec.NoTensor {
		t.Fatalf("first conv1 op is %q", stem.Name)
	}
	if ws := g.Tensors[stem.Temps[0]].Bytes; ws != 244093712 {
		t.Errorf("stem forward workspace %d, want 244093712", ws)
	}
	if ws := g.Tensors[stem.BackwardTemps[0]].Bytes; ws != 262972560 {
		t.Errorf("stem backward-filter workspace %d, want 262972560", ws)
	}
	// A conv whose input needs a gradient runs backward-data before
	// backward-filter: its input-gradient op comes after the conv op.
	ig := vbOps(g, "layer2.0.downsample.0.input_grad")
	if len(ig) != 1 || g.Tensors[ig[0].BackwardTemps[0]].Bytes != 308281491 {
		t.Errorf("layer2.0 downsample backward-data workspace: want one op with 308281491 B")
	}
	if len(vbOps(g, "avgpool")) != 1 || len(vbOps(g, "avgpool")[0].Saved) != 0 {
		t.Errorf("avgpool is a mean over H, W: it saves nothing")
	}
}

func TestResNetInferenceAndErrors(t *testing.T) {
	g := vbMust(t, "torchvision.resnet18", "", "mode: inference, batch_size: 8, precision: bf16, optimizer: none")
	if len(g.Inputs) != 1 || g.Loss != spec.NoTensor || len(g.Outputs) != 1 {
		t.Errorf("inference: want x only, no loss, the logits as output")
	}
	for i := range g.Ops {
		if len(g.Ops[i].Saved) > 0 || !g.Ops[i].NoGrad {
			t.Fatalf("%s saves tensors in inference", g.Ops[i].Name)
		}
	}
	for _, c := range []struct{ arch, cfg, want string }{
		{"torchvision.resnet50", "dropout: 0.1", "takes no such argument"},
		{"torchvision.resnet18", "groups: 2", "BasicBlock"},
		{"torchvision.resnet50", "num_classes: 0", "positive integer"},
		{"torchvision.resnext50_32x4d", "groups: 16", "sets groups=32 itself"},
		{"torchvision.wide_resnet50_2", "width_per_group: 64", "sets width_per_group=128 itself"},
	} {
		if _, err := vbExpand(t, c.arch, c.cfg, resnetTrain); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s {%s}: error %v, want %q", c.arch, c.cfg, err, c.want)
		}
	}
}

// Measured workspaces come from the table; the rule covers the rest.
func TestCuDNNConvWorkspace(t *testing.T) {
	g := spec.ConvGeometry{N: 64, Cin: 64, H: 56, W: 56, Cout: 64, Ho: 56, Wo: 56, KH: 3, KW: 3, Stride: 1, Pad: 1, Groups: 1, DType: spec.FP32}
	if got := spec.CuDNNConvWorkspace(spec.ConvBackwardFilter, g); got != 104972967 {
		t.Errorf("measured 3×3 backward-filter: %d", got)
	}
	// A batch between two measured ones: the line through them (the same
	// engine at 40 and 44 gives the affine size at 42).
	g.N = 40
	at40 := spec.CuDNNConvWorkspace(spec.ConvBackwardFilter, g)
	g.N = 44
	at44 := spec.CuDNNConvWorkspace(spec.ConvBackwardFilter, g)
	g.N = 42
	if got := spec.CuDNNConvWorkspace(spec.ConvBackwardFilter, g); got != (at40+at44)/2 && got != (at40+at44+1)/2 {
		t.Errorf("interpolated 3×3 backward-filter at 42: %d, want %d (between %d and %d)", got, (at40+at44)/2, at40, at44)
	}
	// Past the largest measured batch the line is extended only where the
	// last three batches lie on it: ViT-B/16's fp32 patch embedding keeps
	// its engines from 224 to 256 (its forward changed engine at 208). The
	// forward's line reaches at 512 the 414187536 bytes the measured ViT
	// fp32 inference at batch 512 asked for (vit-fp32-infer-b512's trace).
	vit := spec.ConvGeometry{N: 384, Cin: 3, H: 224, W: 224, Cout: 768, Ho: 14, Wo: 14, KH: 16, KW: 16, Stride: 16, Groups: 1, DType: spec.FP32}
	if got := spec.CuDNNConvWorkspace(spec.ConvBackwardFilter, vit); got != 362807632+2*89915392 {
		t.Errorf("extended ViT patch backward-filter at 384: %d, want %d", got, 362807632+2*89915392)
	}
	if got := spec.CuDNNConvWorkspace(spec.ConvForward, vit); got != 208666640+8*12845056 {
		t.Errorf("extended ViT patch forward at 384: %d, want %d", got, 208666640+8*12845056)
	}
	vit.N = 512
	if got := spec.CuDNNConvWorkspace(spec.ConvForward, vit); got != 414187536 {
		t.Errorf("extended ViT patch forward at 512: %d, want the traced 414187536", got)
	}
	// A geometry not measured, beyond the table's image sizes (64 channels
	// at 300×300: ResNet's layer1 at 1200 px; the table's largest are
	// VGG's 256×256): the transposing rule, x + y + w + 16.
	g.N, g.H, g.W, g.Ho, g.Wo = 40, 300, 300, 300, 300
	x, w := int64(40*64*300*300*4), int64(64*64*9*4)
	if got := spec.CuDNNConvWorkspace(spec.ConvForward, g); got != 2*x+w+16 {
		t.Errorf("rule, 3×3 forward: %d, want %d", got, 2*x+w+16)
	}
	g.KH, g.KW, g.Pad = 1, 1, 0 // 1×1 stride 1 over 140×140: a GEMM on NCHW
	if got := spec.CuDNNConvWorkspace(spec.ConvForward, g); got != 0 {
		t.Errorf("rule, 1×1 forward: %d, want 0", got)
	}
	if got, want := spec.CuDNNConvWorkspace(spec.ConvBackwardFilter, g), int64(40*64*64*4); got != want {
		t.Errorf("rule, 1×1 backward-filter: %d, want the per-image partials %d", got, want)
	}
	g.H, g.W, g.Ho, g.Wo = 7, 7, 7, 7 // too few outputs for the GEMM engine
	if got, want := spec.CuDNNConvWorkspace(spec.ConvForward, g), int64(2*40*64*49*4+16); got != want {
		t.Errorf("rule, 1×1 at 7×7: %d, want x + y + 16 = %d", got, want)
	}
	// bf16 pads the stem's 3 channels to 8.
	s := spec.ConvGeometry{N: 40, Cin: 3, H: 200, W: 200, Cout: 64, Ho: 100, Wo: 100, KH: 7, KW: 7, Stride: 2, Pad: 3, Groups: 1, DType: spec.BF16}
	if got, want := spec.CuDNNConvWorkspace(spec.ConvForward, s), int64(40*8*200*200*2+40*64*100*100*2+64*8*49*2+16); got != want {
		t.Errorf("rule, bf16 stem: %d, want %d", got, want)
	}
	s.H, s.W, s.Ho, s.Wo = 224, 224, 112, 112
	// fp16 has its own measured engines: the stem at batch 128 takes less
	// than bf16's (holdout3's resnet50-amp-fp16-sgd-b128 trace: 256926224 B).
	s.N = 128
	if got := spec.CuDNNConvWorkspace(spec.ConvForward, s); got != 308331536 {
		t.Errorf("measured bf16 stem at 128: %d", got)
	}
	s.DType = spec.FP16
	if got := spec.CuDNNConvWorkspace(spec.ConvForward, s); got != 256926224 {
		t.Errorf("measured fp16 stem at 128: %d, want 256926224", got)
	}
}

// The bias-gradient reduction buffers measured on an H200.
func TestBiasGradReduceTemps(t *testing.T) {
	for _, c := range []struct{ n, h, staging, sema int64 }{
		{4096, 768, 25165824, 24}, {6304, 768, 38928384, 24}, {6304, 3072, 138412032, 96},
		{8192, 2304, 139198464, 72}, {8192, 3072, 138412032, 96}, {4096, 30522, 23440896, 1908},
		{64, 1000, 0, 0}, {32, 2, 0, 0},
	} {
		ts := spec.BiasGradReduceTemps(c.n, c.h)
		var staging, sema int64
		if len(ts) == 2 {
			staging, _ = spec.ShapeBytes("s", ts[0].Shape, ts[0].DType)
			sema, _ = spec.ShapeBytes("s", ts[1].Shape, ts[1].DType)
		}
		if staging != c.staging || sema != c.sema {
			t.Errorf("[%d, %d]: staging %d semaphores %d, want %d and %d", c.n, c.h, staging, sema, c.staging, c.sema)
		}
	}
}

// The examples of the three families expand (the ResNet-50 one is also in
// the accuracy table against its measured run).
func TestVisionBERTExamples(t *testing.T) {
	for path, want := range map[string]int64{
		"../../examples/resnet50-fp32-sgd-b64.yaml":                25557032,
		"../../examples/bert-base-mlm-fp32-adamw-b8.yaml":          109514298,
		"../../examples/vit-base-amp-bf16-adamw-ckpt-b32.yaml":     85800194,
		"../../examples/measured/resnet50-fp32-infer-b64.yaml":     25557032,
		"../../examples/measured/resnet50-amp-bf16-adamw-b32.yaml": 25557032,
	} {
		m, err := spec.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		g, err := Expand(m)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if got := g.ParamCount(); got != want {
			t.Errorf("%s: %d parameters, want %d", path, got, want)
		}
	}
}
