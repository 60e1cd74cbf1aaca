package calibrate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/memplan/memplan/internal/atomicfile"
	"github.com/memplan/memplan/internal/readlimit"
	"github.com/memplan/memplan/internal/yamlnode"
)

// Resolve returns a built-in profile by name or reads a profile YAML file
// (strict: unknown keys are errors with file:line:col). A name that looks
// like a path (it has a slash or ends in .yaml/.yml) is always read as a
// file; any other is a built-in name first, then a file of that name.
func Resolve(nameOrPath string) (*Profile, error) {
	s := strings.TrimSpace(nameOrPath)
	if s == "" {
		return nil, fmt.Errorf("no GPU profile given (built-in: %s; or a calibration file path)", strings.Join(BuiltinNames(), ", "))
	}
	if !looksLikePath(s) {
		p, err := Builtin(s)
		if err == nil {
			return p, nil
		}
		if _, statErr := os.Stat(s); statErr != nil {
			return nil, err
		}
	}
	return LoadFile(s)
}

func looksLikePath(s string) bool {
	l := strings.ToLower(s)
	return strings.ContainsRune(s, '/') || strings.ContainsRune(s, filepath.Separator) ||
		strings.HasSuffix(l, ".yaml") || strings.HasSuffix(l, ".yml")
}

// LoadFile reads a profile file. The profile's Name becomes the path.
func LoadFile(path string) (*Profile, error) {
	// A calibrated convolution table is tens of kilobytes per model.
	data, err := readlimit.File(path, 64<<20)
	if err != nil {
		return nil, fmt.Errorf("reading GPU profile: %w", err)
	}
	p, err := Parse(data, path)
	if err != nil {
		return nil, err
	}
	p.Name = path
	return p, nil
}

// Parse decodes and checks profile YAML; file names the source in errors,
// which read "file:line:col: …".
func Parse(data []byte, file string) (*Profile, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlSyntaxError(file, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s:1:1: empty GPU profile (allowed: a profile memplan calibrate wrote, or a built-in GPU name)", file)
	}
	d := &strictDecoder{file: file, keys: map[string]*yaml.Node{}}
	var p Profile
	if err := d.decode(doc.Content[0], reflect.ValueOf(&p).Elem(), ""); err != nil {
		return nil, err
	}
	if err := d.validate(&p, doc.Content[0]); err != nil {
		return nil, err
	}
	return &p, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlSyntaxError rewrites "yaml: line 3: did not find expected key" as
// "file:3:1: YAML syntax: did not find expected key" (the parser gives no
// column: 1, as descriptions' syntax errors read).
func yamlSyntaxError(file string, err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s:%s:1: YAML syntax: %s", file, m[1], m[2])
	}
	return fmt.Errorf("%s:1:1: YAML syntax: %s", file, strings.TrimPrefix(msg, "yaml: "))
}

// strictDecoder decodes a node tree into a struct by its yaml tags,
// rejecting unknown and repeated keys and reporting every error at the
// node's line and column.
type strictDecoder struct {
	file string
	keys map[string]*yaml.Node // "kernel_bytes.training" → its key node
}

func (d *strictDecoder) errorf(n *yaml.Node, format string, a ...any) error {
	return fmt.Errorf("%s:%d:%d: %s", d.file, n.Line, n.Column, fmt.Sprintf(format, a...))
}

func yamlName(f reflect.StructField) string {
	tag := f.Tag.Get("yaml")
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		return strings.ToLower(f.Name)
	}
	return name
}

func (d *strictDecoder) decode(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch v.Kind() {
	case reflect.Pointer:
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			return nil
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return d.decode(n, v.Elem(), path)
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return d.errorf(n, "%s: expected a mapping of keys, found %s", orTop(path), yamlnode.Describe(n))
		}
		t := v.Type()
		fields := map[string]int{}
		var known []string
		for i := 0; i < t.NumField(); i++ {
			if yamlName(t.Field(i)) == "-" {
				continue
			}
			fields[yamlName(t.Field(i))] = i
			known = append(known, yamlName(t.Field(i)))
		}
		sort.Strings(known)
		seen := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			idx, ok := fields[k.Value]
			if !ok {
				return d.errorf(k, "unknown key %q in %s (known: %s)", k.Value, orTop(path), strings.Join(known, ", "))
			}
			if prev, dup := seen[k.Value]; dup {
				return d.errorf(k, "key %q given twice in %s (first at line %d)", k.Value, orTop(path), prev.Line)
			}
			seen[k.Value] = k
			sub := join(path, k.Value)
			d.keys[sub] = k
			if err := d.decode(val, v.Field(idx), sub); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Struct {
			if n.Kind != yaml.SequenceNode {
				return d.errorf(n, "%s: expected a list, found %s", orTop(path), yamlnode.Describe(n))
			}
			s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
			for i, item := range n.Content {
				if err := d.decode(item, s.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
			v.Set(s)
			return nil
		}
	}
	if err := n.Decode(v.Addr().Interface()); err != nil {
		return d.errorf(n, "%s: expected %s, found %s", orTop(path), typeWord(v.Type()), yamlnode.Describe(n))
	}
	return nil
}

func (d *strictDecoder) at(key string, fallback *yaml.Node) *yaml.Node {
	if n, ok := d.keys[key]; ok {
		return n
	}
	return fallback
}

// validate checks the figures a profile's users rely on.
func (d *strictDecoder) validate(p *Profile, root *yaml.Node) error {
	if _, ok := d.keys["total_bytes"]; !ok {
		return d.errorf(root, "missing total_bytes (the device memory CUDA reports, in bytes)")
	}
	if p.TotalBytes <= 0 {
		return d.errorf(d.at("total_bytes", root), "total_bytes must be positive, found %d", p.TotalBytes)
	}
	// What every estimate adds to the allocator's figures: a profile that
	// left one out would silently count it as 0.
	for _, key := range []string{"context_bytes", "kernel_bytes.training", "kernel_bytes.inference", "cublas_workspace_bytes", "cublaslt_workspace_bytes"} {
		if _, ok := d.keys[key]; !ok {
			return d.errorf(root, "missing %s (allowed: bytes, as `memplan calibrate` writes them; a figure of 0 must be given as 0)", key)
		}
	}
	for key, b := range map[string]int64{
		"nvml_total_bytes":             p.NVMLTotalBytes,
		"context_bytes":                p.ContextBytes,
		"kernel_bytes.training":        p.KernelBytes.Training,
		"kernel_bytes.inference":       p.KernelBytes.Inference,
		"kernel_bytes.fused_training":  p.KernelBytes.FusedTraining,
		"kernel_bytes.fused_inference": p.KernelBytes.FusedInference,
		"kernel_bytes.gemm_fp32":       p.KernelBytes.GemmFP32,
		"kernel_bytes.gemm_bf16":       p.KernelBytes.GemmBF16,
		"kernel_bytes.conv":            p.KernelBytes.Conv,
		"window_bytes.gemm_handle":     p.WindowBytes.GemmHandle,
		"window_bytes.gemm_kernel":     p.WindowBytes.GemmKernel,
		"window_bytes.cast":            p.WindowBytes.Cast,
		"window_bytes.pow":             p.WindowBytes.Pow,
		"cublas_workspace_bytes":       p.CublasWorkspaceBytes,
		"cublaslt_workspace_bytes":     p.CublasLtWorkspaceBytes,
		"allocation_granularity":       p.AllocationGranularity,
		"nccl_bytes":                   p.NCCLBytes,
	} {
		if b < 0 {
			return d.errorf(d.at(key, root), "%s must not be negative, found %d", key, b)
		}
		if b >= p.TotalBytes && key != "nvml_total_bytes" {
			return d.errorf(d.at(key, root), "%s (%d) is not below total_bytes (%d)", key, b, p.TotalBytes)
		}
	}
	if g := p.AllocationGranularity; g != 0 && g&(g-1) != 0 {
		return d.errorf(d.at("allocation_granularity", root), "allocation_granularity %d is not a power of two (allowed: the driver's page size, 2097152 on NVIDIA GPUs)", g)
	}
	if p.ComputeCapability < 0 || p.ComputeCapability > 200 {
		return d.errorf(d.at("compute_capability", root), "compute_capability is major*10+minor (90 for Hopper), found %d", p.ComputeCapability)
	}
	for i, c := range p.ConvWorkspaces {
		at := d.at(fmt.Sprintf("conv_workspaces[%d].dtype", i), d.at("conv_workspaces", root))
		if _, err := c.Geometry(); err != nil {
			return d.errorf(at, "conv_workspaces[%d]: %v", i, err)
		}
		if c.Forward < 0 || c.BackwardData < 0 || c.BackwardFilter < 0 {
			return d.errorf(at, "conv_workspaces[%d]: workspaces must not be negative", i)
		}
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func orTop(path string) string {
	if path == "" {
		return "the profile"
	}
	return path
}

func typeWord(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "a whole number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list of " + strings.TrimPrefix(typeWord(t.Elem()), "a ") + "s"
	}
	return t.String()
}

// Marshal renders a profile as YAML: exact byte integers, each commented
// with its MiB.
func Marshal(p *Profile) ([]byte, error) {
	var n yaml.Node
	if err := n.Encode(p); err != nil {
		return nil, fmt.Errorf("encoding the GPU profile: %w", err)
	}
	commentBytes(&n, "")
	flowConvEntries(&n)
	var buf bytes.Buffer
	buf.WriteString("# memplan GPU profile. Bytes are exact; MiB = 2^20 bytes.\n")
	if p.Calibrated {
		buf.WriteString("# Written by `memplan calibrate`; provenance says which figures were measured.\n")
	} else {
		buf.WriteString("# Uncalibrated: see provenance.\n")
	}
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return nil, fmt.Errorf("encoding the GPU profile: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encoding the GPU profile: %w", err)
	}
	return buf.Bytes(), nil
}

// commentBytes adds "# 518 MiB" to byte figures of 1 MiB and more.
func commentBytes(n *yaml.Node, parent string) {
	if n.Kind != yaml.MappingNode {
		for _, c := range n.Content {
			commentBytes(c, parent)
		}
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		isBytes := strings.HasSuffix(k.Value, "_bytes") || k.Value == "allocation_granularity" || strings.HasSuffix(parent, "_bytes")
		if isBytes && v.Kind == yaml.ScalarNode && v.Tag == "!!int" {
			var b int64
			if err := v.Decode(&b); err == nil && (b >= MiB || b <= -MiB) {
				v.LineComment = mib(b)
				if b >= 1<<30 {
					v.LineComment = fmt.Sprintf("%s = %.2f GiB", mib(b), float64(b)/float64(1<<30))
				}
			}
		}
		commentBytes(v, k.Value)
	}
}

// flowConvEntries writes each conv_workspaces entry on one line.
func flowConvEntries(doc *yaml.Node) {
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "conv_workspaces" {
			for _, e := range root.Content[i+1].Content {
				e.Style = yaml.FlowStyle
			}
		}
	}
}

// WriteFile writes the profile YAML atomically: a temporary file in the same
// folder, written and synced, then renamed over path; on error nothing is
// left behind and an existing file at path is untouched.
func WriteFile(path string, p *Profile) error {
	if p == nil {
		return errors.New("writing GPU profile: no profile")
	}
	data, err := Marshal(p)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, data); err != nil {
		return fmt.Errorf("writing GPU profile: %w", err)
	}
	return nil
}
