package spec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// SettableKeys lists the keys Set accepts (for --set and fit's variants).
func SettableKeys() []string {
	return append([]string{"training.batch_size", "training.seq_len", "training.image_size", "training.mode", "training.precision",
		"training.optimizer", "training.optimizer_impl", "training.momentum", "training.activation_checkpointing",
		"training.attention", "training.allocator.expandable_segments", "gpu"}, parallelSettable...)
}

// Set overrides one setting of a loaded description (sweeps, fit variants),
// validating the value as the YAML decoder would.
func (m *Model) Set(key, value string) error {
	if err := m.set(key, value); err != nil {
		return err
	}
	if vErr := m.validate(); vErr != nil {
		return fmt.Errorf("setting %s=%s: %w", key, value, vErr)
	}
	return nil
}

// CheckSetting reports whether Set could give key this value, without the
// checks of the whole description (which may depend on other settings): a
// sweep refuses a malformed value before it estimates anything.
func (m *Model) CheckSetting(key, value string) error {
	return m.Clone().set(key, value)
}

// SetAll applies several overrides and checks the description once, after
// the last: settings that only make sense together (data ranks and a
// sharding that needs them) may come in any order.
func (m *Model) SetAll(kvs [][2]string) error {
	for _, kv := range kvs {
		if err := m.set(kv[0], kv[1]); err != nil {
			return err
		}
	}
	if vErr := m.validate(); vErr != nil {
		if len(kvs) == 0 {
			return vErr
		}
		var parts []string
		for _, kv := range kvs {
			parts = append(parts, kv[0]+"="+kv[1])
		}
		return fmt.Errorf("setting %s: %w", strings.Join(parts, ", "), vErr)
	}
	return nil
}

// set applies one override without checking the whole description. The
// key counts as given, as in the YAML, for the checks that refuse a
// setting the model does not read (seq_len of an image model, momentum
// without SGD); its position is none, since no line of the file holds it.
func (m *Model) set(key, value string) error {
	if err := m.setValue(key, value); err != nil {
		return err
	}
	if k, ok := strings.CutPrefix(key, "training."); ok {
		m.Training.ownPos()
		m.Training.Pos[k] = Pos{}
	}
	return nil
}

func (m *Model) setValue(key, value string) error {
	t := &m.Training
	bad := func(allowed string) error {
		return fmt.Errorf("setting %s=%s: invalid value (allowed: %s)", key, value, allowed)
	}
	positive := func(max int64) (int64, error) {
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 1 || n > max {
			return 0, bad(fmt.Sprintf("an integer from 1 to %d", max))
		}
		return n, nil
	}
	enum := func(names []string) (int, error) {
		for i, n := range names {
			if strings.EqualFold(n, value) {
				return i, nil
			}
		}
		return 0, bad(allowedList(names))
	}
	var err error
	var i int
	switch key {
	case "training.batch_size":
		t.BatchSize, err = positive(1 << 24)
	case "training.seq_len":
		t.SeqLen, err = positive(1 << 24)
	case "training.image_size":
		t.ImageSize, err = positive(1 << 16)
	case "training.mode":
		i, err = enum(modeNames)
		t.Mode = Mode(i)
	case "training.precision":
		i, err = enum(precisionNames)
		t.Precision = Precision(i)
	case "training.optimizer":
		i, err = enum(optimizerNames)
		t.Optimizer = Optimizer(i)
		if err == nil && t.Optimizer != OptimizerSGD && !t.Overridden("momentum") {
			// momentum is SGD's: switching away drops the file's; a
			// momentum also set by an override stays, and is refused.
			t.Momentum = 0
			if _, ok := t.Pos["momentum"]; ok {
				t.ownPos()
				delete(t.Pos, "momentum")
			}
		}
	case "training.optimizer_impl":
		i, err = enum(implNames)
		t.OptimizerImpl = OptimizerImpl(i)
	case "training.attention":
		i, err = enum(attentionNames)
		t.Attention = Attention(i)
	case "training.momentum":
		f, perr := strconv.ParseFloat(value, 64)
		if perr != nil || !(f >= 0 && f <= 1) { // NaN fails both
			return bad("a number from 0 to 1")
		}
		t.Momentum = f
	case "training.activation_checkpointing", "training.allocator.expandable_segments":
		// true or false as YAML writes them (not 1, t or tRuE).
		v := slices.Contains([]string{"true", "True", "TRUE"}, value)
		if !v && !slices.Contains([]string{"false", "False", "FALSE"}, value) {
			return bad("true, false")
		}
		if key == "training.activation_checkpointing" {
			t.ActivationCheckpointing = v
		} else {
			t.Allocator.ExpandableSegments = v
		}
	case "gpu":
		if strings.TrimSpace(value) == "" {
			return bad("a built-in GPU name or a profile file")
		}
		m.GPU, m.GPUBase = value, "" // the caller's, relative to the working folder
	default:
		ok, perr := m.setParallel(key, value)
		if !ok {
			return fmt.Errorf("setting %s: unknown key (allowed: %s)", key, allowedList(SettableKeys()))
		}
		err = perr
	}
	return err
}

// Clone returns a copy whose Training can be changed without touching m.
func (m *Model) Clone() *Model {
	c := *m
	c.Training.Pos = m.Training.Pos
	return &c
}
