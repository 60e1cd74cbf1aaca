// Package spec reads memplan model descriptions (YAML, HF config.json),
// validates them with file:line:col errors, and expands them into a Graph:
// every tensor one training step creates, with its shape, dtype, bytes and
// role, and the ops in execution order with what each allocates, saves for
// backward and frees. The op catalog (ops.go) is shared by custom layer
// graphs and the architecture families of spec/family.
package spec

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/memplan/memplan/estimate/allocator"
)

// Pos is a place in a description file.
type Pos struct {
	File      string
	Line, Col int
}

// String prints file:line:col.
func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// Errorf returns an error prefixed with the position.
func (p Pos) Errorf(format string, args ...any) error {
	return &PosError{Pos: p, Msg: fmt.Sprintf(format, args...)}
}

// PosError is an error at a position of a description.
type PosError struct {
	Pos Pos
	Msg string
	// Err is the error Msg describes, when it wraps one.
	Err error
}

// Unwrap returns the wrapped error, if any.
func (e *PosError) Unwrap() error { return e.Err }

// Error prints file:line:col: message — or the message alone for a
// setting no line of the file holds (an override such as --set).
func (e *PosError) Error() string {
	if e.Pos == (Pos{}) {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// Mode is training or inference.
type Mode int

// Modes.
const (
	ModeTrain Mode = iota
	ModeInference
)

// Precision is how weights and activations are stored and computed.
type Precision int

// Precisions: pure fp32, weights cast to bf16/fp16, or fp32 weights under autocast.
const (
	PrecisionFP32 Precision = iota
	PrecisionBF16
	PrecisionFP16
	PrecisionAMPBF16
	PrecisionAMPFP16
)

// Optimizer is a torch.optim optimizer.
type Optimizer int

// Optimizers.
const (
	OptimizerAdamW Optimizer = iota
	OptimizerAdam
	OptimizerSGD
	OptimizerNone
)

// OptimizerImpl is the implementation torch.optim picks.
type OptimizerImpl int

// Implementations: foreach (the CUDA default), fused, and the single-tensor for-loop.
const (
	ImplForeach OptimizerImpl = iota
	ImplFused
	ImplForLoop
)

// Attention is the attention implementation of HF models.
type Attention int

// Attention implementations.
const (
	AttentionSDPA Attention = iota
	AttentionEager
)

// enumNames maps each enum to its YAML spellings.
var (
	modeNames      = []string{"train", "inference"}
	precisionNames = []string{"fp32", "bf16", "fp16", "amp-bf16", "amp-fp16"}
	optimizerNames = []string{"adamw", "adam", "sgd", "none"}
	implNames      = []string{"foreach", "fused", "for-loop"}
	attentionNames = []string{"sdpa", "eager"}
)

func enumString(names []string, i int) string {
	if i < 0 || i >= len(names) {
		return fmt.Sprintf("invalid(%d)", i)
	}
	return names[i]
}

// String returns the YAML spelling.
func (m Mode) String() string { return enumString(modeNames, int(m)) }

// String returns the YAML spelling.
func (p Precision) String() string { return enumString(precisionNames, int(p)) }

// String returns the YAML spelling.
func (o Optimizer) String() string { return enumString(optimizerNames, int(o)) }

// String returns the YAML spelling.
func (o OptimizerImpl) String() string { return enumString(implNames, int(o)) }

// String returns the YAML spelling.
func (a Attention) String() string { return enumString(attentionNames, int(a)) }

// MarshalText methods make the enums read as names in JSON and YAML.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// MarshalText writes the YAML spelling.
func (p Precision) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// MarshalText writes the YAML spelling.
func (o Optimizer) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// MarshalText writes the YAML spelling.
func (o OptimizerImpl) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// MarshalText writes the YAML spelling.
func (a Attention) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// ParamDType is the dtype parameters are stored in.
func (p Precision) ParamDType() DType {
	switch p {
	case PrecisionBF16:
		return BF16
	case PrecisionFP16:
		return FP16
	}
	return FP32
}

// Autocast reports whether the forward runs under torch.autocast, and its dtype.
func (p Precision) Autocast() (DType, bool) {
	switch p {
	case PrecisionAMPBF16:
		return BF16, true
	case PrecisionAMPFP16:
		return FP16, true
	}
	return DTypeInvalid, false
}

// ComputeDType is the dtype of matmul-like ops' outputs.
func (p Precision) ComputeDType() DType {
	if d, ok := p.Autocast(); ok {
		return d
	}
	return p.ParamDType()
}

// AllocatorOptions mirror PYTORCH_CUDA_ALLOC_CONF.
type AllocatorOptions struct {
	ExpandableSegments     bool
	MaxSplitSizeMB         int64
	RoundupPower2Divisions int
	// RoundupPower2DivisionsBySize is roundup_power2_divisions given as
	// PyTorch's list ("[256:1,512:2,>:8]"; allocator.ParseRoundupDivisions).
	RoundupPower2DivisionsBySize [allocator.RoundupIntervals]int
}

// Training is the training (or inference) setup of a description.
type Training struct {
	Mode                    Mode
	BatchSize               int64
	SeqLen                  int64
	ImageSize               int64
	Precision               Precision
	Optimizer               Optimizer
	OptimizerImpl           OptimizerImpl
	Momentum                float64
	ActivationCheckpointing bool
	Attention               Attention
	Allocator               AllocatorOptions
	// Parallel is training.parallel (spec/parallel.go); the zero value is one rank.
	Parallel Parallel
	// ConvWorkspaces are the cuDNN workspaces measured on the target GPU
	// (its profile's conv_workspaces; not a YAML key): the caller sets them
	// before expanding; nil leaves the built-in H200 table and the rule.
	ConvWorkspaces *ConvWorkspaceTable

	// Pos records where each key was given, for errors found later; a key
	// set by an override (Model.Set) is there with no position.
	Pos map[string]Pos
}

// Overridden reports whether key (as in Pos: "seq_len", "parallel.data")
// was set by an override rather than by the file.
func (t *Training) Overridden(key string) bool {
	p, ok := t.Pos[key]
	return ok && p == (Pos{})
}

// ownPos gives t a Pos of its own to change: Pos is shared with the model a
// Clone was made from.
func (t *Training) ownPos() {
	pos := make(map[string]Pos, len(t.Pos)+1)
	for k, v := range t.Pos {
		pos[k] = v
	}
	t.Pos = pos
}

// KeyPos returns where key was given, or the description's position when it was not.
func (t *Training) KeyPos(key string, fallback Pos) Pos {
	if p, ok := t.Pos[key]; ok {
		return p
	}
	return fallback
}

// Value is a scalar or structure from YAML with its position.
type Value struct {
	// V is a bool, int64, float64, string, []Value or map[string]Value.
	V   any
	Pos Pos
}

// Dim is one dimension of an input shape: a number or a symbol (batch, seq, image_size).
type Dim struct {
	N      int64
	Symbol string
	Pos    Pos
}

// InputSpec is one input tensor of a custom model.
type InputSpec struct {
	Name  string
	Shape []Dim
	DType DType
	High  int64
	Pos   Pos
}

// LayerSpec is one layer of a custom model.
type LayerSpec struct {
	Kind     string
	Args     map[string]Value
	Children []LayerSpec // residual blocks
	Pos      Pos
}

// LossSpec is the loss of a custom model.
type LossSpec struct {
	Kind   string
	Target string
	Pos    Pos
	// TargetPos is where target was given (zero when it was not).
	TargetPos Pos
}

// targetAt returns the position of the target's name, or of the loss.
func (l LossSpec) targetAt() Pos {
	if l.TargetPos != (Pos{}) {
		return l.TargetPos
	}
	return l.Pos
}

// Model is a validated description.
type Model struct {
	File string
	Name string
	// Architecture is the HF class name or torchvision.resnetNN; empty for custom models.
	Architecture string
	// Config holds the HF config keys given (the family fills defaults).
	Config map[string]Value
	// HFConfig is the path of a config.json the architecture and config came from.
	HFConfig string
	Inputs   []InputSpec
	Layers   []LayerSpec
	Loss     LossSpec
	Training Training
	// GPU is a built-in profile name or a calibration file path.
	GPU string
	// GPUBase is the folder a relative profile path in GPU is relative to:
	// the description's, for a gpu the description gives (as hf_config's
	// path is); empty (the working folder) for one a caller sets.
	GPUBase string

	// Pos records where top-level keys were given ("model", "model.architecture", "training", "gpu" …).
	Pos map[string]Pos
}

// At returns where key was given, or the start of the file.
func (m *Model) At(key string) Pos {
	if p, ok := m.Pos[key]; ok {
		return p
	}
	return Pos{File: m.File, Line: 1, Col: 1}
}

// GPUProfile is GPU as calibrate.Resolve takes it: a relative path to a
// profile file (one with a slash or a .yaml extension) joined to GPUBase;
// a built-in name as it is.
func (m *Model) GPUProfile() string {
	g := m.GPU
	looksLikePath := strings.ContainsAny(g, `/\`) || strings.HasSuffix(strings.ToLower(g), ".yaml") || strings.HasSuffix(strings.ToLower(g), ".yml")
	if m.GPUBase == "" || !looksLikePath || filepath.IsAbs(g) {
		return g
	}
	return filepath.Join(m.GPUBase, g)
}

// KeyAt returns the position of key, or of fallback when key was not given.
func (m *Model) KeyAt(key, fallback string) Pos {
	if p, ok := m.Pos[key]; ok {
		return p
	}
	return m.At(fallback)
}

// IsCustom reports whether the model is a layer list rather than an architecture.
func (m *Model) IsCustom() bool { return m.Architecture == "" }

// allowedList formats allowed values for error messages.
func allowedList(names []string) string { return strings.Join(names, ", ") }
