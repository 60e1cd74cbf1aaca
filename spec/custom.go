package spec

import (
	"fmt"
	"math"
	"strconv"
)

// layerArgs lists each custom layer kind with the argument keys it allows.
var layerArgs = map[string][]string{
	"linear":                       {"in", "out", "bias"},
	"embedding":                    {"num", "dim"},
	"relu":                         {"inplace"},
	"gelu":                         {"approximate"},
	"silu":                         {},
	"tanh":                         {},
	"dropout":                      {"p"},
	"layernorm":                    {"dim", "eps", "bias"},
	"rmsnorm":                      {"dim", "eps"},
	"softmax":                      {"dim"},
	"conv2d":                       {"in", "out", "kernel", "stride", "padding", "dilation", "bias"},
	"batchnorm2d":                  {"features", "eps", "momentum"},
	"maxpool2d":                    {"kernel", "stride", "padding"},
	"adaptive_avgpool2d":           {"output"},
	"flatten":                      {},
	"scaled_dot_product_attention": {"heads", "causal"},
	"residual":                     nil,
}

// ExpandCustom expands a custom layer graph (model.inputs, layers, loss).
func ExpandCustom(m *Model) (*Graph, error) {
	t := m.Training
	if err := unusedSizes(m); err != nil {
		return nil, err
	}
	b := NewBuilder(t)
	e := &customExpander{b: b, m: m}
	inputs := map[string]TensorID{}
	var first TensorID = NoTensor
	e.pdt = t.Precision.ParamDType()
	// Inference computes no loss, so the loss's target is not fed: the
	// batch holds the other inputs only (measured: a 10M MLP's inference
	// keeps x alone, as HF models keep no labels).
	skip := ""
	if t.Mode == ModeInference && m.Loss.Kind != "" && len(m.Inputs) > 0 {
		if name := e.targetName(); name != m.Inputs[0].Name {
			skip = name
		}
	}
	for _, in := range m.Inputs {
		if in.Name == skip {
			continue
		}
		shape, err := e.dims(in)
		if err != nil {
			return nil, err
		}
		// Under pure bf16/fp16 the batch's floating tensors are made in the
		// model's dtype (as `model.to(dtype)` users feed it, and the probe
		// does); integer inputs keep theirs.
		dt := in.DType
		if dt.IsFloat() && e.pdt != FP32 {
			dt = e.pdt
		}
		id := b.Input(in.Name, shape, dt)
		inputs[in.Name] = id
		if in.High > 0 {
			e.highs = append(e.highs, inputHigh{id, in})
		}
		if first == NoTensor {
			first = id
		}
	}
	x := first
	var err error
	x, err = e.layers(m.Layers, x, "")
	if err != nil {
		return nil, err
	}
	if err := b.Err(); err != nil {
		return nil, err
	}
	if t.ActivationCheckpointing && b.g.Blocks == 0 {
		// The probe checkpoints each residual entry; with none there is
		// nothing to checkpoint, and it refuses the run.
		return nil, t.KeyPos("activation_checkpointing", m.At("training")).Errorf("training.activation_checkpointing: the layer graph has no residual blocks to checkpoint (allowed: false, or wrap layers in residual: entries)")
	}
	if t.Mode == ModeInference || m.Loss.Kind == "" {
		return b.Finish(NoTensor, x)
	}
	target, err := e.target(inputs, first)
	if err != nil {
		return nil, err
	}
	targetName := b.T(target).Name
	b.SetLayer("loss")
	var loss TensorID
	switch m.Loss.Kind {
	case "mse":
		if fmt.Sprint(b.Shape(x)) != fmt.Sprint(b.Shape(target)) {
			return nil, m.Loss.Pos.Errorf("mse loss: output shape %s differs from target %s shape %s", FormatShape(b.Shape(x)), targetName, FormatShape(b.Shape(target)))
		}
		loss = b.MSELoss("mse_loss", x, target)
	case "cross_entropy":
		if b.DType(target) != Int64 {
			return nil, m.Loss.Pos.Errorf("cross_entropy loss: target is %s (allowed: int64 class indices, as nll_loss takes)", b.DType(target))
		}
		// The step flattens both: out.flatten(0, -2) against tgt.flatten().
		xs, n := b.Shape(x), b.T(target).Numel()
		rows := b.T(x).Numel() / xs[len(xs)-1]
		if len(xs) < 2 || rows != n {
			return nil, m.Loss.Pos.Errorf("cross_entropy loss: output %s has %d rows of class scores but target %s has %d class indices (allowed: a target of the output's shape without its last dim)", FormatShape(xs), rows, targetName, n)
		}
		if high := e.inputHigh(targetName); high > xs[len(xs)-1] {
			return nil, m.Loss.Pos.Errorf("cross_entropy loss: target %s takes values below %d but the output has %d classes (allowed: high at most %d)", targetName, high, xs[len(xs)-1], xs[len(xs)-1])
		}
		loss = b.CrossEntropy("cross_entropy", x, target)
	}
	// The model's output is a Python local of the step's loss function
	// (`out = model(x)`, then the loss of it): it lives until the loss is
	// computed, after the loss's own casts (measured under autocast: the
	// bf16 logits are freed after cross_entropy's fp32 copy is made).
	b.HoldUntilLastOp(x)
	if !b.g.hasTrainable() {
		return nil, m.At("model").Errorf("custom model has no parameters to train (allowed: a layer with weights, such as linear; the optimizer refuses an empty parameter list)")
	}
	return b.Finish(loss)
}

// unusedSizes refuses a training.seq_len or image_size that no input's
// shape uses: the described step would not read it (as an image size is
// refused for a text model).
func unusedSizes(m *Model) error {
	for _, k := range [...]struct{ key, symbol string }{{"seq_len", "seq"}, {"image_size", "image_size"}} {
		if _, given := m.Training.Pos[k.key]; !given {
			continue
		}
		used := false
		for _, in := range m.Inputs {
			for _, d := range in.Shape {
				used = used || d.Symbol == k.symbol
			}
		}
		if !used {
			return m.Training.KeyPos(k.key, m.At("training")).Errorf("training.%s: no input's shape uses %s (allowed: leave it out, or use %s in a shape under model.inputs)", k.key, k.symbol, k.symbol)
		}
	}
	return nil
}

// inputHigh returns the high of the input named name (0 when not set).
func (e *customExpander) inputHigh(name string) int64 {
	for _, in := range e.m.Inputs {
		if in.Name == name {
			return in.High
		}
	}
	return 0
}

type customExpander struct {
	b   *Builder
	m   *Model
	pdt DType
	// highs are the integer inputs given a high, by tensor.
	highs []inputHigh
}

// inputHigh is an input with a high and its tensor.
type inputHigh struct {
	id TensorID
	in InputSpec
}

func (e *customExpander) dims(in InputSpec) ([]int64, error) {
	t := e.m.Training
	var shape []int64
	for _, d := range in.Shape {
		switch d.Symbol {
		case "":
			shape = append(shape, d.N)
		case "batch":
			shape = append(shape, t.BatchSize)
		case "seq":
			if t.SeqLen == 0 {
				return nil, d.Pos.Errorf("model.inputs.%s uses seq but training.seq_len is not set (allowed: set training.seq_len)", in.Name)
			}
			shape = append(shape, t.SeqLen)
		case "image_size":
			if t.ImageSize == 0 {
				return nil, d.Pos.Errorf("model.inputs.%s uses image_size but training.image_size is not set (allowed: set training.image_size)", in.Name)
			}
			shape = append(shape, t.ImageSize)
		}
	}
	if _, err := ShapeBytes("input "+in.Name, shape, in.DType); err != nil {
		return nil, in.Pos.Errorf("%v", err)
	}
	return shape, nil
}

// targetName is the input the loss compares with: model.loss.target, else
// the first of y, labels and target among the inputs, else the second input.
func (e *customExpander) targetName() string {
	if e.m.Loss.Target != "" {
		return e.m.Loss.Target
	}
	for _, n := range []string{"y", "labels", "target"} {
		for _, in := range e.m.Inputs {
			if in.Name == n {
				return n
			}
		}
	}
	if len(e.m.Inputs) > 1 {
		return e.m.Inputs[1].Name
	}
	return ""
}

func (e *customExpander) target(inputs map[string]TensorID, first TensorID) (TensorID, error) {
	name := e.targetName()
	id, ok := inputs[name]
	if ok && id == first {
		return NoTensor, e.m.Loss.targetAt().Errorf("loss target %q is the model's first input, the one its layers read (allowed: another input, named by model.loss.target; y by default)", name)
	}
	if !ok {
		return NoTensor, e.m.Loss.targetAt().Errorf("loss target %q is not an input (allowed: an input other than the first, named by model.loss.target; y by default)", name)
	}
	return id, nil
}

// argReader reads a layer's arguments, keeping the first error.
type argReader struct {
	e   *customExpander
	ls  LayerSpec
	err error
}

// Int reads an integer argument (see argInt).
func (a *argReader) Int(key string, def int64, required bool) int64 {
	if a.err != nil {
		return def
	}
	v, err := a.e.argInt(a.ls, key, def, required)
	a.err = err
	return v
}

// Bool reads a boolean argument.
func (a *argReader) Bool(key string, def bool) bool {
	if a.err != nil {
		return def
	}
	v, err := a.e.argBool(a.ls, key, def)
	a.err = err
	return v
}

// Float reads a number argument in [lo, hi].
func (a *argReader) Float(key string, def, lo, hi float64) float64 {
	if a.err != nil {
		return def
	}
	v, err := a.e.argFloat(a.ls, key, def, lo, hi)
	a.err = err
	return v
}

// arg helpers read a layer argument with its position.
func (e *customExpander) argInt(ls LayerSpec, key string, def int64, required bool) (int64, error) {
	v, ok := ls.Args[key]
	if !ok {
		if required {
			return 0, ls.Pos.Errorf("%s: missing %q (allowed keys: %s)", ls.Kind, key, allowedList(layerArgs[ls.Kind]))
		}
		return def, nil
	}
	n, isInt := v.V.(int64)
	if !isInt || n < 0 || (n == 0 && key != "padding") || n > 1<<40 {
		return 0, v.Pos.Errorf("%s.%s: want a positive integer, got %s", ls.Kind, key, DescribeValue(v.V))
	}
	return n, nil
}

// DescribeValue quotes a YAML or JSON value as an error message shows it:
// a whole float keeps its decimal point (64.0, not 64) and a string its
// quotes ("12"), so that "want an integer" says what is wrong with it.
func DescribeValue(v any) string {
	if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	switch x := v.(type) {
	case string:
		return strconv.Quote(x) + " (a string)"
	case nil:
		return "null"
	case []Value:
		return fmt.Sprintf("a list of %d", len(x))
	case map[string]Value:
		return "a mapping"
	}
	return fmt.Sprint(v)
}

func (e *customExpander) argFloat(ls LayerSpec, key string, def, lo, hi float64) (float64, error) {
	v, ok := ls.Args[key]
	if !ok {
		return def, nil
	}
	var f float64
	switch x := v.V.(type) {
	case int64:
		f = float64(x)
	case float64:
		f = x
	default:
		return 0, v.Pos.Errorf("%s.%s: want a number, got %s", ls.Kind, key, DescribeValue(v.V))
	}
	if f < lo || f > hi {
		return 0, v.Pos.Errorf("%s.%s: %g is out of range (allowed: %g to %g)", ls.Kind, key, f, lo, hi)
	}
	return f, nil
}

func (e *customExpander) argBool(ls LayerSpec, key string, def bool) (bool, error) {
	v, ok := ls.Args[key]
	if !ok {
		return def, nil
	}
	x, isBool := v.V.(bool)
	if !isBool {
		return false, v.Pos.Errorf("%s.%s: want true or false, got %s", ls.Kind, key, DescribeValue(v.V))
	}
	return x, nil
}

func (e *customExpander) argEnum(ls LayerSpec, key, def string, allowed []string) (string, error) {
	v, ok := ls.Args[key]
	if !ok {
		return def, nil
	}
	s, _ := v.V.(string)
	if !contains(allowed, s) {
		return "", v.Pos.Errorf("%s.%s: unknown value %v (allowed: %s)", ls.Kind, key, v.V, allowedList(allowed))
	}
	return s, nil
}

// layers expands a list of layers on x, naming modules like nn.Sequential.
func (e *customExpander) layers(list []LayerSpec, x TensorID, prefix string) (TensorID, error) {
	for i, ls := range list {
		name := strconv.Itoa(i)
		if prefix != "" {
			name = prefix + "." + name
		}
		in := x
		var err error
		x, err = e.layer(ls, x, name)
		if err != nil {
			return x, err
		}
		// nn.Sequential's loop variable holds a layer's input until the
		// layer returns (measured under autocast: a Linear's input, whose
		// last read is its bf16 cast, is freed after the Linear's output).
		e.b.HoldUntilLastOp(in)
		if err := e.b.Err(); err != nil {
			return x, ls.Pos.Errorf("%v", err)
		}
	}
	return x, nil
}

func (e *customExpander) lastDim(ls LayerSpec, x TensorID, key string, want int64) error {
	s := e.b.Shape(x)
	if s[len(s)-1] != want {
		return ls.Pos.Errorf("%s: %s is %d but the input's last dim is %d (shape %s)", ls.Kind, key, want, s[len(s)-1], FormatShape(s))
	}
	return nil
}

func (e *customExpander) need4D(ls LayerSpec, x TensorID) error {
	if s := e.b.Shape(x); len(s) != 4 {
		return ls.Pos.Errorf("%s: needs a 4-d input [batch, channels, height, width], got %s", ls.Kind, FormatShape(s))
	}
	return nil
}

func (e *customExpander) layer(ls LayerSpec, x TensorID, name string) (TensorID, error) {
	b := e.b
	if e.prefixDepth(name) == 1 {
		b.SetLayer(name)
	}
	pdt := e.pdt
	a := &argReader{e: e, ls: ls}
	switch ls.Kind {
	case "linear":
		in := a.Int("in", 0, true)
		out := a.Int("out", 0, true)
		bias := a.Bool("bias", true)
		if a.err != nil {
			return x, a.err
		}
		if !b.DType(x).IsFloat() {
			return x, ls.Pos.Errorf("linear: input is %s (allowed: a floating input; integer indices go through an embedding first)", b.DType(x))
		}
		if err := e.lastDim(ls, x, "in", in); err != nil {
			return x, err
		}
		var w, bb TensorID = NoTensor, NoTensor
		b.Scoped(name, func() {
			w = b.Param("weight", []int64{out, in}, pdt)
			if bias {
				bb = b.Param("bias", []int64{out}, pdt)
			}
		})
		return b.Linear(name, x, w, bb), nil
	case "embedding":
		num := a.Int("num", 0, true)
		dim := a.Int("dim", 0, true)
		if a.err != nil {
			return x, a.err
		}
		if dt := b.DType(x); dt != Int64 && dt != Int32 {
			return x, ls.Pos.Errorf("embedding: input is %s (allowed: int64 or int32 indices, as F.embedding takes)", dt)
		}
		for _, h := range e.highs {
			if h.id == x && h.in.High > num {
				return x, ls.Pos.Errorf("embedding: input %s takes indices up to %d (high %d), past num %d rows (allowed: a high of at most %d; F.embedding fails on an index ≥ num)", h.in.Name, h.in.High-1, h.in.High, num, num)
			}
		}
		var w TensorID
		b.Scoped(name, func() { w = b.Param("weight", []int64{num, dim}, pdt) })
		return b.Embedding(name, x, w), nil
	case "relu":
		inplace, err := e.argBool(ls, "inplace", false)
		return b.ReLU(name, x, inplace), err
	case "gelu":
		a, err := e.argEnum(ls, "approximate", "none", []string{"none", "tanh"})
		return b.GELU(name, x, a == "tanh"), err
	case "silu":
		return b.SiLU(name, x), nil
	case "tanh":
		return b.Tanh(name, x), nil
	case "dropout":
		p, err := e.argFloat(ls, "p", 0.5, 0, 1)
		return b.Dropout(name, x, p), err
	case "layernorm", "rmsnorm":
		dim := a.Int("dim", 0, true)
		a.Float("eps", 1e-5, 0, 1)
		if a.err != nil {
			return x, a.err
		}
		if err := e.lastDim(ls, x, "dim", dim); err != nil {
			return x, err
		}
		if ls.Kind == "rmsnorm" {
			var w TensorID
			b.Scoped(name, func() { w = b.Param("weight", []int64{dim}, pdt) })
			return b.RMSNorm(name, x, w), nil
		}
		bias := a.Bool("bias", true)
		if a.err != nil {
			return x, a.err
		}
		var w, bb TensorID = NoTensor, NoTensor
		b.Scoped(name, func() {
			w = b.Param("weight", []int64{dim}, pdt)
			if bias {
				bb = b.Param("bias", []int64{dim}, pdt)
			}
		})
		return b.LayerNorm(name, x, w, bb), nil
	case "softmax":
		// The kernel's memory is the same along any dim; the dim must exist.
		if v, ok := ls.Args["dim"]; ok {
			rank := int64(len(b.Shape(x)))
			if d, isInt := v.V.(int64); !isInt || d < -rank || d >= rank {
				return x, v.Pos.Errorf("softmax.dim: %s is not a dim of the %d-d input (allowed: an integer from %d to %d)", DescribeValue(v.V), rank, -rank, rank-1)
			}
		}
		return b.Softmax(name, x), nil
	case "conv2d":
		if err := e.need4D(ls, x); err != nil {
			return x, err
		}
		in := a.Int("in", 0, true)
		out := a.Int("out", 0, true)
		k := a.Int("kernel", 0, true)
		stride := a.Int("stride", 1, false)
		pad := a.Int("padding", 0, false)
		dil := a.Int("dilation", 1, false)
		bias := a.Bool("bias", true)
		if a.err != nil {
			return x, a.err
		}
		if c := b.Shape(x)[1]; c != in {
			return x, ls.Pos.Errorf("conv2d: in is %d but the input has %d channels (shape %s)", in, c, FormatShape(b.Shape(x)))
		}
		var w, bb TensorID = NoTensor, NoTensor
		b.Scoped(name, func() {
			w = b.Param("weight", []int64{out, in, k, k}, pdt)
			if bias {
				bb = b.Param("bias", []int64{out}, pdt)
			}
		})
		return b.Conv2d(name, x, w, bb, Conv2dArgs{Kernel: k, Stride: stride, Padding: pad, Dilation: dil, Groups: 1}), nil
	case "batchnorm2d":
		if err := e.need4D(ls, x); err != nil {
			return x, err
		}
		f := a.Int("features", 0, true)
		a.Float("eps", 1e-5, 0, 1)
		a.Float("momentum", 0.1, 0, 1)
		if a.err != nil {
			return x, a.err
		}
		if c := b.Shape(x)[1]; c != f {
			return x, ls.Pos.Errorf("batchnorm2d: features is %d but the input has %d channels", f, c)
		}
		var w, bb, rm, rv TensorID
		b.Scoped(name, func() {
			w = b.Param("weight", []int64{f}, pdt)
			bb = b.Param("bias", []int64{f}, pdt)
			rm = b.Buffer("running_mean", []int64{f}, pdt)
			rv = b.Buffer("running_var", []int64{f}, pdt)
			b.Buffer("num_batches_tracked", []int64{}, Int64)
		})
		return b.BatchNorm2d(name, x, w, bb, rm, rv), nil
	case "maxpool2d":
		if err := e.need4D(ls, x); err != nil {
			return x, err
		}
		k := a.Int("kernel", 0, true)
		stride := a.Int("stride", k, false)
		pad := a.Int("padding", 0, false)
		if a.err != nil {
			return x, a.err
		}
		if 2*pad > k {
			return x, ls.Pos.Errorf("maxpool2d: padding %d is more than half the kernel %d (allowed: at most %d, as max_pool2d requires)", pad, k, k/2)
		}
		return b.MaxPool2d(name, x, k, stride, pad), nil
	case "adaptive_avgpool2d":
		if err := e.need4D(ls, x); err != nil {
			return x, err
		}
		o, err := e.argInt(ls, "output", 1, false)
		return b.AdaptiveAvgPool2d(name, x, o, o), err
	case "flatten":
		s := b.Shape(x)
		if len(s) < 2 {
			return x, ls.Pos.Errorf("flatten: needs at least a 2-d input, got %s", FormatShape(s))
		}
		n := int64(1)
		for _, d := range s[1:] {
			n *= d
		}
		return b.View(name, x, s[0], n), nil
	case "scaled_dot_product_attention":
		heads := a.Int("heads", 0, true)
		causal := a.Bool("causal", false)
		if a.err != nil {
			return x, a.err
		}
		s := b.Shape(x)
		if len(s) != 3 || s[2]%(3*heads) != 0 {
			return x, ls.Pos.Errorf("scaled_dot_product_attention: needs a [batch, seq, 3*dim] fused q/k/v input with dim divisible by heads (%d), got %s", heads, FormatShape(s))
		}
		d := s[2] / 3
		hd := d / heads
		var out TensorID
		b.Scoped(name, func() {
			qkv := b.Split("split_heads", x, 3, []int64{s[0], heads, s[1], hd})
			o := b.SDPA("sdpa", qkv[0], qkv[1], qkv[2], NoTensor, causal)
			// o.transpose(1, 2).reshape(b, s, d): the fused kernels lay their
			// output out [B, S, H, D], so the reshape is a view (measured: no
			// allocation at that line, fp32 and bf16); the math kernel's is
			// [B, H, S, D], which the reshape copies.
			if PickSDPA(b.DType(o), false) == SDPAMath {
				out = b.Contiguous("merge_heads", o, s[0], s[1], d)
			} else {
				out = b.View("merge_heads", o, s[0], s[1], d)
			}
		})
		return out, nil
	case "residual":
		b.BeginBlock()
		y, err := e.layers(ls.Children, x, name)
		b.EndBlock()
		if err != nil {
			return x, err
		}
		if fmt.Sprint(b.Shape(y)) != fmt.Sprint(b.Shape(x)) {
			return x, ls.Pos.Errorf("residual: the block maps %s to %s (allowed: a block that keeps the shape)", FormatShape(b.Shape(x)), FormatShape(b.Shape(y)))
		}
		return b.Add(name+".add", x, y), nil
	}
	return x, ls.Pos.Errorf("unknown layer kind %q (allowed: %s)", ls.Kind, allowedList(LayerKinds()))
}

func (e *customExpander) prefixDepth(name string) int {
	n := 1
	for _, c := range name {
		if c == '.' {
			n++
		}
	}
	return n
}
