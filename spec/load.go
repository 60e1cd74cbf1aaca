package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/memplan/memplan/estimate/allocator"
	"github.com/memplan/memplan/internal/readlimit"
	"github.com/memplan/memplan/internal/yamlnode"
)

// Limits that keep hostile descriptions cheap to refuse.
const (
	maxFileBytes = 8 << 20
	maxDepth     = 64
	maxNodes     = 1_000_000
)

// Load reads and validates a description file.
func Load(path string) (*Model, error) {
	data, err := readlimit.File(path, maxFileBytes)
	var tooLarge *readlimit.TooLargeError
	if errors.As(err, &tooLarge) {
		return nil, Pos{path, 1, 1}.Errorf("file is larger than %d bytes (allowed: at most %d)", maxFileBytes, maxFileBytes)
	}
	if err != nil {
		return nil, fmt.Errorf("reading model description: %w", err)
	}
	return Parse(path, data)
}

// Parse validates a description held in memory; file names it in errors.
func Parse(file string, data []byte) (*Model, error) {
	if len(data) > maxFileBytes {
		return nil, Pos{file, 1, 1}.Errorf("file is %d bytes (allowed: at most %d)", len(data), maxFileBytes)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, Pos{file, 1, 1}.Errorf("empty description (allowed: a mapping with model, training and gpu)")
		}
		return nil, yamlError(file, data, err)
	}
	var second yaml.Node
	if err := dec.Decode(&second); err == nil {
		return nil, Pos{file, second.Line, second.Column}.Errorf("a second YAML document (allowed: one document per file)")
	} else if !errors.Is(err, io.EOF) {
		return nil, yamlError(file, data, err)
	}
	d := &decoder{file: file}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if err := d.checkTree(root, 0); err != nil {
		return nil, err
	}
	return d.model(root)
}

// yamlError turns a yaml.v3 error ("yaml: line 3: …") into file:line:col form.
func yamlError(file string, data []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line, col := 1, 1
	if name, ok := strings.CutPrefix(msg, "unknown anchor '"); ok {
		// yaml.v3 gives no position for an alias to no anchor: the first
		// *name in the text is where it is used.
		name, _, _ = strings.Cut(name, "'")
		if at := aliasOffset(data, name); at >= 0 {
			line, col = lineCol(data, int64(at)+1)
		}
		return Pos{file, line, col}.Errorf("invalid YAML: alias *%s names no anchor (allowed: an alias to an &%s defined before it)", name, name)
	}
	if strings.HasPrefix(msg, "line ") {
		rest := msg[len("line "):]
		if i := strings.Index(rest, ":"); i > 0 {
			if n, e := strconv.Atoi(rest[:i]); e == nil {
				line = n
				msg = strings.TrimSpace(rest[i+1:])
			}
		}
	}
	return Pos{file, line, col}.Errorf("invalid YAML: %s", msg)
}

// aliasOffset returns the offset of the first alias *name in data (not
// a longer name that starts with it), or -1.
func aliasOffset(data []byte, name string) int {
	token := []byte("*" + name)
	for from := 0; ; {
		i := bytes.Index(data[from:], token)
		if i < 0 {
			return -1
		}
		end := from + i + len(token)
		if end == len(data) || strings.ContainsRune(" \t\r\n,]}#", rune(data[end])) {
			return from + i
		}
		from = end
	}
}

// decoder walks yaml.v3 nodes strictly.
type decoder struct {
	file  string
	nodes int
}

func (d *decoder) pos(n *yaml.Node) Pos { return Pos{d.file, n.Line, n.Column} }

// checkTree refuses deep nesting and alias expansion bombs before decoding.
func (d *decoder) checkTree(n *yaml.Node, depth int) error {
	if depth > maxDepth {
		return d.pos(n).Errorf("nesting deeper than %d levels (allowed: at most %d)", depth, maxDepth)
	}
	d.nodes++
	if d.nodes > maxNodes {
		return d.pos(n).Errorf("description expands to more than %d YAML nodes (alias expansion?) (allowed: at most %d)", maxNodes, maxNodes)
	}
	if n.Kind == yaml.AliasNode {
		return d.checkTree(n.Alias, depth+1)
	}
	for _, c := range n.Content {
		if err := d.checkTree(c, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// fields walks a mapping strictly: every key must be in allowed; where names the mapping in errors.
func (d *decoder) fields(n *yaml.Node, where string, allowed []string, fn func(key string, k, v *yaml.Node) error) error {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		return d.pos(n).Errorf("%s: want a mapping, got %s (allowed keys: %s)", where, yamlnode.Describe(n), allowedList(allowed))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if k.Value == "<<" {
			return d.pos(k).Errorf("merge keys (<<) are not supported in %s (allowed keys: %s)", where, allowedList(allowed))
		}
		if !contains(allowed, k.Value) {
			if len(allowed) == 0 {
				return d.pos(k).Errorf("unknown key %q in %s (allowed: none; it takes no arguments)", k.Value, where)
			}
			return d.pos(k).Errorf("unknown key %q in %s (allowed: %s)", k.Value, where, allowedList(allowed))
		}
		if seen[k.Value] {
			return d.pos(k).Errorf("duplicate key %q in %s (allowed: each key once)", k.Value, where)
		}
		seen[k.Value] = true
		if err := fn(k.Value, k, v); err != nil {
			return err
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (d *decoder) str(n *yaml.Node, where string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", d.pos(n).Errorf("%s: want a string, got %s", where, yamlnode.Describe(n))
	}
	return n.Value, nil
}

// word is str for a value that names something: empty is refused, with
// what is allowed.
func (d *decoder) word(n *yaml.Node, where, allowed string) (string, error) {
	s, err := d.str(n, where)
	if err == nil && strings.TrimSpace(s) == "" {
		return "", d.pos(n).Errorf("%s: empty (allowed: %s)", where, allowed)
	}
	return s, err
}

func (d *decoder) boolean(n *yaml.Node, where string) (bool, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		return strconv.ParseBool(strings.ToLower(n.Value))
	}
	return false, d.pos(n).Errorf("%s: want true or false, got %s", where, yamlnode.Describe(n))
}

// positive reads an integer in [1, max].
func (d *decoder) positive(n *yaml.Node, where string, max int64) (int64, error) {
	if n.Kind == yaml.ScalarNode && n.Style == 0 && n.Value != "" && strings.Trim(n.Value, "0123456789_") == "" && n.Tag != "!!int" {
		// digits YAML could not hold as an int: a number too large
		return 0, d.pos(n).Errorf("%s: %s is out of range (allowed: 1 to %d)", where, n.Value, max)
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		return 0, d.pos(n).Errorf("%s: want a positive integer, got %s", where, yamlnode.Describe(n))
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	if err != nil || v < 1 || v > max {
		return 0, d.pos(n).Errorf("%s: %s is out of range (allowed: 1 to %d)", where, n.Value, max)
	}
	return v, nil
}

func (d *decoder) number(n *yaml.Node, where string, lo, hi float64) (float64, error) {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		return 0, d.pos(n).Errorf("%s: want a number, got %s", where, yamlnode.Describe(n))
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	if err != nil || math.IsNaN(v) || v < lo || v > hi {
		return 0, d.pos(n).Errorf("%s: %s is out of range (allowed: %g to %g)", where, n.Value, lo, hi)
	}
	return v, nil
}

func (d *decoder) enum(n *yaml.Node, where string, names []string) (int, error) {
	s, err := d.str(n, where)
	if err != nil {
		return 0, fmt.Errorf("%w (allowed: %s)", err, allowedList(names))
	}
	for i, name := range names {
		if strings.EqualFold(s, name) {
			return i, nil
		}
	}
	return 0, d.pos(n).Errorf("%s: unknown value %q (allowed: %s)", where, s, allowedList(names))
}

// value converts any node into a Value.
func (d *decoder) value(n *yaml.Node) (Value, error) {
	n = resolve(n)
	p := d.pos(n)
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!int":
			v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
			if err != nil {
				return Value{}, p.Errorf("integer %s is out of range (allowed: a 64-bit integer)", n.Value)
			}
			return Value{v, p}, nil
		case "!!float":
			v, err := strconv.ParseFloat(n.Value, 64)
			if err != nil {
				return Value{}, p.Errorf("invalid number %s (allowed: a finite number)", n.Value)
			}
			return Value{v, p}, nil
		case "!!bool":
			v, _ := strconv.ParseBool(strings.ToLower(n.Value))
			return Value{v, p}, nil
		case "!!null":
			return Value{nil, p}, nil
		}
		return Value{n.Value, p}, nil
	case yaml.SequenceNode:
		var list []Value
		for _, c := range n.Content {
			v, err := d.value(c)
			if err != nil {
				return Value{}, err
			}
			list = append(list, v)
		}
		return Value{list, p}, nil
	case yaml.MappingNode:
		m := map[string]Value{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Value == "<<" && k.Tag == "!!merge" {
				return Value{}, d.pos(k).Errorf("merge keys (<<) are not supported (allowed: the keys written out)")
			}
			if _, dup := m[k.Value]; dup {
				return Value{}, d.pos(k).Errorf("duplicate key %q (allowed: each key once)", k.Value)
			}
			v, err := d.value(n.Content[i+1])
			if err != nil {
				return Value{}, err
			}
			m[k.Value] = v
		}
		return Value{m, p}, nil
	}
	return Value{}, p.Errorf("unsupported YAML node")
}

var (
	topKeys      = []string{"name", "model", "training", "gpu"}
	modelKeys    = []string{"architecture", "config", "hf_config", "inputs", "layers", "loss"}
	trainingKeys = []string{"mode", "batch_size", "seq_len", "image_size", "precision", "optimizer", "optimizer_impl", "momentum", "activation_checkpointing", "attention", "allocator", "parallel"}
	allocKeys    = []string{"expandable_segments", "max_split_size_mb", "roundup_power2_divisions"}
	inputKeys    = []string{"shape", "dtype", "high"}
	lossKeys     = []string{"kind", "target"}
	lossKinds    = []string{"mse", "cross_entropy"}
	dimSymbols   = []string{"batch", "seq", "image_size"}
)

func (d *decoder) model(root *yaml.Node) (*Model, error) {
	m := &Model{File: d.file, Pos: map[string]Pos{}, Training: defaultTraining()}
	var haveModel bool
	err := d.fields(root, "the description", topKeys, func(key string, k, v *yaml.Node) error {
		m.Pos[key] = d.pos(v)
		var err error
		switch key {
		case "name":
			m.Name, err = d.word(v, "name", "a name for the reports, or leave it out for the file's")
		case "model":
			haveModel = true
			err = d.modelSection(v, m)
		case "training":
			err = d.training(v, &m.Training)
		case "gpu":
			m.GPU, err = d.word(v, "gpu", "a built-in GPU name or a profile file")
			m.GPUBase = filepath.Dir(d.file)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !haveModel {
		return nil, m.At("").Errorf("missing key \"model\" (allowed: an architecture with config, an hf_config path, or inputs + layers + loss)")
	}
	if m.Name == "" {
		m.Name = strings.TrimSuffix(baseName(d.file), ".yaml")
	}
	if m.GPU == "" {
		m.GPU = "h200"
	}
	if m.Architecture != "" && m.HFConfig != "" {
		// Checked here, not in validate: once the config.json is read, the
		// architecture it names is the model's, and overrides validate again.
		return nil, m.At("model.hf_config").Errorf("model.hf_config and model.architecture both given (allowed: one of them; hf_config names its architecture)")
	}
	if err := m.validate(); err != nil {
		return nil, err
	}
	if err := m.loadHFConfig(); err != nil {
		return nil, err
	}
	return m, nil
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

func defaultTraining() Training {
	return Training{BatchSize: 1, Pos: map[string]Pos{}}
}

func (d *decoder) modelSection(n *yaml.Node, m *Model) error {
	return d.fields(n, "model", modelKeys, func(key string, k, v *yaml.Node) error {
		m.Pos["model."+key] = d.pos(v)
		switch key {
		case "architecture":
			s, err := d.word(v, "model.architecture", "a transformers class name or torchvision.NAME")
			m.Architecture = s
			return err
		case "hf_config":
			s, err := d.word(v, "model.hf_config", "a path to a transformers config.json")
			m.HFConfig = s
			return err
		case "config":
			val, err := d.value(v)
			if err != nil {
				return err
			}
			cfg, ok := val.V.(map[string]Value)
			if !ok {
				return d.pos(v).Errorf("model.config: want a mapping of HF config keys, got %s", yamlnode.Describe(v))
			}
			m.Config = cfg
			return nil
		case "inputs":
			return d.inputs(v, m)
		case "layers":
			layers, err := d.layers(v, "model.layers", 0)
			m.Layers = layers
			return err
		case "loss":
			return d.loss(v, m)
		}
		return nil
	})
}

func (d *decoder) inputs(n *yaml.Node, m *Model) error {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		return d.pos(n).Errorf("model.inputs: want a mapping of input names to {shape, dtype}, got %s", yamlnode.Describe(n))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		for _, prev := range m.Inputs {
			if prev.Name == k.Value {
				return d.pos(k).Errorf("duplicate input %q in model.inputs (allowed: each name once)", k.Value)
			}
		}
		in := InputSpec{Name: k.Value, DType: FP32, Pos: d.pos(k)}
		where := "model.inputs." + k.Value
		err := d.fields(v, where, inputKeys, func(key string, _, v *yaml.Node) error {
			switch key {
			case "shape":
				if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
					return d.pos(v).Errorf("%s.shape: want a list of dims, got %s (allowed: integers or %s)", where, yamlnode.Describe(v), allowedList(dimSymbols))
				}
				for _, c := range v.Content {
					c = resolve(c)
					dim := Dim{Pos: d.pos(c)}
					if c.Kind == yaml.ScalarNode && c.Tag == "!!str" {
						if !contains(dimSymbols, c.Value) {
							return d.pos(c).Errorf("%s.shape: unknown dim %q (allowed: a positive integer or %s)", where, c.Value, allowedList(dimSymbols))
						}
						dim.Symbol = c.Value
					} else {
						n, err := d.positive(c, where+".shape", 1<<40)
						if err != nil {
							return err
						}
						dim.N = n
					}
					in.Shape = append(in.Shape, dim)
				}
			case "dtype":
				s, err := d.str(v, where+".dtype")
				if err != nil {
					return err
				}
				dt, err := ParseDType(s)
				if err != nil {
					return d.pos(v).Errorf("%s.dtype: %v", where, err)
				}
				in.DType = dt
			case "high":
				h, err := d.positive(v, where+".high", 1<<40)
				in.High = h
				return err
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(in.Shape) == 0 {
			return in.Pos.Errorf("%s: missing shape (allowed: a list of dims)", where)
		}
		m.Inputs = append(m.Inputs, in)
	}
	return nil
}

func (d *decoder) layers(n *yaml.Node, where string, depth int) ([]LayerSpec, error) {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		return nil, d.pos(n).Errorf("%s: want a list of layers, got %s (allowed kinds: %s)", where, yamlnode.Describe(n), allowedList(LayerKinds()))
	}
	var out []LayerSpec
	for i, c := range n.Content {
		c = resolve(c)
		w := fmt.Sprintf("%s[%d]", where, i)
		if c.Kind != yaml.MappingNode || len(c.Content) != 2 {
			return nil, d.pos(c).Errorf("%s: want one `kind: {args}` entry, got %s (allowed kinds: %s)", w, yamlnode.Describe(c), allowedList(LayerKinds()))
		}
		k, v := c.Content[0], resolve(c.Content[1])
		ls := LayerSpec{Kind: k.Value, Pos: d.pos(k), Args: map[string]Value{}}
		if _, ok := layerArgs[k.Value]; !ok {
			return nil, d.pos(k).Errorf("%s: unknown layer kind %q (allowed: %s)", w, k.Value, allowedList(LayerKinds()))
		}
		if k.Value == "residual" {
			if v.Kind == yaml.MappingNode {
				return nil, d.pos(v).Errorf("%s.residual: want a list of layers, got a mapping", w)
			}
			children, err := d.layers(v, w+".residual", depth+1)
			if err != nil {
				return nil, err
			}
			ls.Children = children
		} else if !(v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
			allowed := layerArgs[k.Value]
			err := d.fields(v, w+"."+k.Value, allowed, func(key string, _, av *yaml.Node) error {
				val, err := d.value(av)
				ls.Args[key] = val
				return err
			})
			if err != nil {
				return nil, err
			}
		}
		out = append(out, ls)
	}
	return out, nil
}

func (d *decoder) loss(n *yaml.Node, m *Model) error {
	n = resolve(n)
	m.Loss.Pos = d.pos(n)
	if n.Kind == yaml.ScalarNode {
		k, err := d.enum(n, "model.loss", lossKinds)
		m.Loss.Kind = lossKinds[k]
		return err
	}
	return d.fields(n, "model.loss", lossKeys, func(key string, _, v *yaml.Node) error {
		switch key {
		case "kind":
			k, err := d.enum(v, "model.loss.kind", lossKinds)
			m.Loss.Kind = lossKinds[k]
			return err
		case "target":
			s, err := d.word(v, "model.loss.target", "the name of an input")
			m.Loss.Target, m.Loss.TargetPos = s, d.pos(v)
			return err
		}
		return nil
	})
}

func (d *decoder) training(n *yaml.Node, t *Training) error {
	return d.fields(n, "training", trainingKeys, func(key string, k, v *yaml.Node) error {
		t.Pos[key] = d.pos(v)
		w := "training." + key
		var err error
		var i int
		switch key {
		case "mode":
			i, err = d.enum(v, w, modeNames)
			t.Mode = Mode(i)
		case "batch_size":
			t.BatchSize, err = d.positive(v, w, 1<<24)
		case "seq_len":
			t.SeqLen, err = d.positive(v, w, 1<<24)
		case "image_size":
			t.ImageSize, err = d.positive(v, w, 1<<16)
		case "precision":
			i, err = d.enum(v, w, precisionNames)
			t.Precision = Precision(i)
		case "optimizer":
			i, err = d.enum(v, w, optimizerNames)
			t.Optimizer = Optimizer(i)
		case "optimizer_impl":
			i, err = d.enum(v, w, implNames)
			t.OptimizerImpl = ImplForeach
			t.OptimizerImpl = OptimizerImpl(i)
		case "momentum":
			t.Momentum, err = d.number(v, w, 0, 1)
		case "activation_checkpointing":
			t.ActivationCheckpointing, err = d.boolean(v, w)
		case "attention":
			i, err = d.enum(v, w, attentionNames)
			t.Attention = Attention(i)
		case "parallel":
			err = d.parallel(v, t)
		case "allocator":
			err = d.fields(v, w, allocKeys, func(key string, _, av *yaml.Node) error {
				aw := w + "." + key
				var err error
				switch key {
				case "expandable_segments":
					t.Allocator.ExpandableSegments, err = d.boolean(av, aw)
				case "max_split_size_mb":
					t.Allocator.MaxSplitSizeMB, err = d.positive(av, aw, 1<<30)
				case "roundup_power2_divisions":
					if av.Kind == yaml.ScalarNode && av.Tag == "!!str" {
						// PyTorch's per-size list, "[256:1,512:2,>:8]".
						by, perr := allocator.ParseRoundupDivisions(av.Value)
						if perr != nil {
							var ce *allocator.ConfigError
							if errors.As(perr, &ce) {
								return d.pos(av).Errorf("%s: %s", aw, ce.Reason)
							}
							return d.pos(av).Errorf("%s: %v", aw, perr)
						}
						t.Allocator.RoundupPower2DivisionsBySize = by
						return nil
					}
					var n int64
					n, err = d.positive(av, aw, 64)
					if err == nil && n&(n-1) != 0 {
						err = d.pos(av).Errorf("%s: %d is not a power of two (allowed: 1, 2, 4, … 64, or a list such as \"[256:1,512:2,>:8]\")", aw, n)
					}
					t.Allocator.RoundupPower2Divisions = int(n)
				}
				return err
			})
		}
		return err
	})
}

// validate checks what spans several keys.
func (m *Model) validate() error {
	hasArch := m.Architecture != "" || m.HFConfig != ""
	hasLayers := len(m.Layers) > 0 || len(m.Inputs) > 0
	switch {
	case hasArch && hasLayers:
		return m.At("model").Errorf("model gives both an architecture and layers (allowed: architecture + config, hf_config, or inputs + layers + loss)")
	case !hasArch && !hasLayers:
		return m.At("model").Errorf("model has neither an architecture nor layers (allowed: architecture + config, hf_config, or inputs + layers + loss)")
	case m.Config != nil && m.Architecture == "":
		return m.At("model.config").Errorf("model.config needs model.architecture (allowed: config only with an architecture)")
	}
	if hasLayers {
		if len(m.Inputs) == 0 {
			return m.KeyAt("model.inputs", "model").Errorf("custom model has no inputs (allowed: model.inputs: {name: {shape, dtype}})")
		}
		if len(m.Layers) == 0 {
			return m.KeyAt("model.layers", "model").Errorf("custom model has no layers (allowed kinds: %s)", allowedList(LayerKinds()))
		}
		if m.Training.Mode == ModeTrain && m.Loss.Kind == "" {
			return m.KeyAt("model.loss", "model").Errorf("custom model has no loss for training (allowed: model.loss: %s)", allowedList(lossKinds))
		}
	}
	t := &m.Training
	if _, ok := t.Pos["mode"]; ok && !t.Overridden("mode") && t.Mode == ModeInference {
		// No optimizer step runs: its settings would be read and ignored.
		// (A mode switched by an override keeps the file's optimizer, which
		// is there for training.)
		if _, set := t.Pos["optimizer"]; set && t.Optimizer != OptimizerNone {
			return t.KeyPos("optimizer", m.At("training")).Errorf("training.optimizer %s with mode inference: an inference step runs no optimizer (allowed: none, or leave it out)", t.Optimizer)
		}
		for _, key := range []string{"optimizer_impl", "momentum"} {
			if _, set := t.Pos[key]; set {
				return t.KeyPos(key, m.At("training")).Errorf("training.%s with mode inference: an inference step runs no optimizer (allowed: leave it out)", key)
			}
		}
	}
	if _, set := t.Pos["momentum"]; set && t.Optimizer != OptimizerSGD {
		return t.KeyPos("momentum", m.At("training")).Errorf("training.momentum is SGD's (allowed: momentum with optimizer sgd; adam and adamw keep betas, not modelled as options)")
	}
	if t.Mode == ModeInference && t.ActivationCheckpointing {
		return t.KeyPos("activation_checkpointing", m.At("training")).Errorf("training.activation_checkpointing needs mode train (inference keeps no activations for backward)")
	}
	return m.validateParallel()
}

// LayerKinds lists the custom layer kinds, sorted.
func LayerKinds() []string {
	var k []string
	for name := range layerArgs {
		k = append(k, name)
	}
	sort.Strings(k)
	return k
}
