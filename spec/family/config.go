package family

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/memplan/memplan/spec"
)

// hfConfig reads HF config keys with the config class's defaults; the first
// problem is kept with the position of the key at fault.
type hfConfig struct {
	m        *spec.Model
	class    string
	defaults map[string]any
	err      error
}

func newConfig(m *spec.Model, class string, defaults map[string]any) *hfConfig {
	c := &hfConfig{m: m, class: class, defaults: defaults}
	if !strings.HasPrefix(class, "torchvision.") {
		c.checkShared()
	}
	return c
}

// checkShared refuses the keys every PreTrainedConfig accepts that change
// what the model allocates but that memplan takes from the training
// section, or does not model, rather than ignore them (transformers 5.17:
// configuration_utils.py, modeling_utils.py, utils/output_capturing.py,
// masking_utils.py).
func (c *hfConfig) checkShared() {
	t := c.m.Training
	if v, ok := c.m.Config["attn_implementation"]; ok && v.V != nil && v.V != t.Attention.String() {
		c.fail("attn_implementation", "%v is not what training.attention says (%s): memplan models the attention training.attention names (allowed: that value, or leave the key out and set training.attention: sdpa | eager)", v.V, t.Attention)
	}
	if v, ok := c.m.Config["gradient_checkpointing"]; ok && truthy(v.V) && !t.ActivationCheckpointing {
		c.fail("gradient_checkpointing", "%v makes transformers checkpoint every layer (allowed: false; set training.activation_checkpointing: true instead)", spec.DescribeValue(v.V))
	}
	for _, key := range []string{"output_attentions", "output_hidden_states"} {
		if v, ok := c.m.Config[key]; ok && truthy(v.V) {
			c.fail(key, "%s keeps every layer's %s until the output dies, which memplan does not model (allowed: false)", spec.DescribeValue(v.V), strings.TrimPrefix(key, "output_"))
		}
	}
	if v, ok := c.m.Config["quantization_config"]; ok && v.V != nil {
		method := ""
		if q, isMap := v.V.(map[string]spec.Value); isMap {
			if qm, isStr := q["quant_method"].V.(string); isStr {
				method = " (" + qm + ")"
			}
		}
		c.fail("quantization_config", "a quantized checkpoint%s is not modelled: memplan would estimate unquantized weights (allowed: leave the key out to estimate the model unquantized in training.precision)", method)
	}
	// BERT and ViT attend both ways, the decoders causally; is_causal
	// set otherwise overrides the masks the model builds.
	causal := c.class != "BertConfig" && c.class != "ViTConfig"
	if v, ok := c.m.Config["is_causal"]; ok && v.V != nil && v.V != causal {
		c.fail("is_causal", "%v overrides the masks %s builds, which memplan does not model (allowed: %v, or leave it out)", v.V, c.class, causal)
	}
}

// newBuilder starts the graph with o's options, carrying the warnings
// about the config's keys.
func (c *hfConfig) newBuilder(o options, t spec.Training) *spec.Builder {
	b := o.newBuilder(t)
	for _, w := range c.misspelt() {
		b.Warn(w)
	}
	return b
}

// misspelt warns of config keys the class does not read that are a letter
// or two from one it does (n_embdd for n_embd): transformers keeps such a
// key and ignores it, and so does memplan, which then takes the default.
func (c *hfConfig) misspelt() []string {
	var keys []string
	for k := range c.m.Config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		if _, known := c.defaults[k]; known || len(k) < 4 || strings.HasPrefix(k, "_") {
			continue // a leading _ is a private attribute transformers saves (Gemma-3's _sliding_window_pattern)
		}
		best, dist := "", 3
		for d := range c.defaults {
			if e := editDistance(k, d); e < dist || e == dist && d < best {
				best, dist = d, e
			}
		}
		if best != "" {
			out = append(out, fmt.Sprintf("%s: model.config.%s is not a %s key memplan reads (transformers keeps it and ignores it): did you mean %s? %s takes its default", c.pos(k), k, c.class, best, best))
		}
	}
	return out
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// null says whether key is given as null; failNull reports it for a key
// Python would fail on as None (allowed names what the key takes).
func (c *hfConfig) null(key string) bool {
	v, ok := c.m.Config[key]
	return ok && v.V == nil
}

func (c *hfConfig) failNull(key, allowed string) {
	c.fail(key, "null is not allowed (allowed: %s)", allowed)
}

// truthy is Python's truth of a config value: true, a nonzero number, a
// non-empty string, list or mapping.
func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case int64:
		return x != 0
	case int:
		return x != 0
	case float64:
		return x != 0
	case string:
		return x != ""
	case []spec.Value:
		return len(x) > 0
	case map[string]spec.Value:
		return len(x) > 0
	}
	return false
}

// refuse fails when key is set to anything but allowed: a key whose other
// values change what the model allocates in a way memplan does not model.
func (c *hfConfig) refuse(key string, allowed any, what string) {
	if v, ok := c.m.Config[key]; ok && v.V != nil && v.V != allowed {
		c.fail(key, "%v is not modelled (%s; allowed: %v)", v.V, what, allowed)
	}
}

// sameInt says whether a config value is the integer n, as a number: YAML
// and JSON integers decode as int64 and 64.0 as float64, and an any
// holding one never equals the other (v == n would refuse head_dim: 64.0
// as "64 is not 64").
func sameInt(v any, n int64) bool {
	switch x := v.(type) {
	case int64:
		return x == n
	case int:
		return int64(x) == n
	case float64:
		return x == float64(n)
	}
	return false
}

// pos returns where key was given, or where the config (or architecture) is.
func (c *hfConfig) pos(key string) spec.Pos {
	if v, ok := c.m.Config[key]; ok {
		return v.Pos
	}
	if p, ok := c.m.Pos["model.config"]; ok {
		return p
	}
	return c.m.At("model.architecture")
}

func (c *hfConfig) fail(key, format string, args ...any) {
	if c.err == nil {
		c.err = c.pos(key).Errorf("model.config.%s: %s", key, fmt.Sprintf(format, args...))
	}
}

// raw is a key's value: as given, else the class default. A key given as
// null is None, as in Python — unset, whatever the default (Mistral's
// sliding_window: null means no window, not 4096).
func (c *hfConfig) raw(key string) (any, bool) {
	if v, ok := c.m.Config[key]; ok {
		return v.V, v.V != nil
	}
	d, ok := c.defaults[key]
	return d, ok && d != nil
}

// Int reads a positive integer key.
func (c *hfConfig) Int(key string) int64 {
	v, ok := c.raw(key)
	if !ok {
		c.fail(key, "missing or null (allowed: a positive integer; %s has no default for it)", c.class)
		return 1
	}
	n, isInt := v.(int64)
	if i, ok := v.(int); ok {
		n, isInt = int64(i), true
	}
	switch {
	case !isInt || n <= 0:
		c.fail(key, "want a positive integer, got %s", spec.DescribeValue(v))
		return 1
	case n > 1<<40:
		c.fail(key, "%d is out of range (allowed: a positive integer up to %d)", n, int64(1)<<40)
		return 1
	}
	return n
}

// maxLayers bounds a config's layer count: the deepest published models
// have a few hundred layers, and an estimate walks every layer (a
// 10,000-layer GPT-2 takes seconds; a billion would exhaust memory).
const maxLayers = 10000

// Layers reads a layer count: a positive integer up to maxLayers.
func (c *hfConfig) Layers(key string) int64 {
	n := c.Int(key)
	if n > maxLayers {
		c.fail(key, "%d layers is out of range (allowed: 1 to %d)", n, maxLayers)
		return 1
	}
	return n
}

// OptInt reads an integer key that may be null (returns def then).
func (c *hfConfig) OptInt(key string, def int64) int64 {
	if _, ok := c.raw(key); !ok {
		return def
	}
	return c.Int(key)
}

// Float reads a number key in [lo, hi].
func (c *hfConfig) Float(key string, lo, hi float64) float64 {
	v, ok := c.raw(key)
	if !ok {
		if c.null(key) {
			c.failNull(key, fmt.Sprintf("a number from %g to %g", lo, hi))
		}
		return 0
	}
	var f float64
	switch x := v.(type) {
	case int64:
		f = float64(x)
	case int:
		f = float64(x)
	case float64:
		f = x
	default:
		c.fail(key, "want a number, got %s", spec.DescribeValue(v))
		return 0
	}
	if f < lo || f > hi {
		c.fail(key, "%g is out of range (allowed: %g to %g)", f, lo, hi)
	}
	return f
}

// Bool reads a boolean key.
func (c *hfConfig) Bool(key string) bool {
	v, ok := c.raw(key)
	if !ok {
		return false
	}
	b, isBool := v.(bool)
	if !isBool {
		c.fail(key, "want true or false, got %s", spec.DescribeValue(v))
	}
	return b
}

// Str reads a string key, checking it against allowed when given.
func (c *hfConfig) Str(key string, allowed ...string) string {
	v, ok := c.raw(key)
	if !ok {
		if c.null(key) && len(allowed) > 0 {
			c.failNull(key, strings.Join(allowed, ", "))
		}
		return ""
	}
	s, isStr := v.(string)
	if !isStr {
		c.fail(key, "want a string, got %s", spec.DescribeValue(v))
		return ""
	}
	if len(allowed) > 0 {
		for _, a := range allowed {
			if a == s {
				return s
			}
		}
		c.fail(key, "unsupported value %q (allowed: %s)", s, strings.Join(allowed, ", "))
	}
	return s
}

// Divides checks that key a is divisible by key b.
func (c *hfConfig) Divides(a string, av int64, b string, bv int64) {
	if c.err == nil && bv > 0 && av%bv != 0 {
		c.fail(a, "%d is not divisible by %s = %d (allowed: a multiple of %s)", av, b, bv, b)
	}
}

// needSeq returns training.seq_len, failing when a text model lacks it.
func needSeq(m *spec.Model) (int64, error) {
	if m.Training.SeqLen == 0 {
		return 0, m.Training.KeyPos("batch_size", m.At("training")).Errorf("training.seq_len is not set (allowed: a positive integer; %s is a text model)", m.Architecture)
	}
	return m.Training.SeqLen, nil
}

// knownKeys lists defaults' keys (for documentation and tests).
func knownKeys(d map[string]any) []string {
	var k []string
	for n := range d {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

// optFloat reads an optional positive number: null is 0 (off), an absent
// key the class default.
func (c *hfConfig) optFloat(key string) float64 {
	if _, ok := c.raw(key); !ok {
		return 0
	}
	f := c.Float(key, 0, math.MaxFloat64)
	if f == 0 && c.err == nil {
		c.fail(key, "0 is not allowed (allowed: a positive number, or null for none)")
	}
	return f
}
