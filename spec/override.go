package spec

import (
	"fmt"
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
	case "training.optimizer_impl":
		i, err = enum(implNames)
		t.OptimizerImpl = OptimizerImpl(i)
	case "training.attention":
		i, err = enum(attentionNames)
		t.Attention = Attention(i)
	case "training.momentum":
		f, perr := strconv.ParseFloat(value, 64)
		if perr != nil || f < 0 || f > 1 {
			return bad("a number from 0 to 1")
		}
		t.Momentum = f
	case "training.activation_checkpointing", "training.allocator.expandable_segments":
		v, perr := strconv.ParseBool(value)
		if perr != nil {
			return bad("true, false")
		}
		if key == "training.activation_checkpointing" {
			t.ActivationCheckpointing = v
		} else {
			t.Allocator.ExpandableSegments = v
		}
	case "gpu":
		m.GPU = value
	default:
		ok, perr := m.setParallel(key, value)
		if !ok {
			return fmt.Errorf("setting %s: unknown key (allowed: %s)", key, allowedList(SettableKeys()))
		}
		err = perr
	}
	if err != nil {
		return err
	}
	if vErr := m.validate(); vErr != nil {
		return fmt.Errorf("setting %s=%s: %w", key, value, vErr)
	}
	return nil
}

// Clone returns a copy whose Training can be changed without touching m.
func (m *Model) Clone() *Model {
	c := *m
	c.Training.Pos = m.Training.Pos
	return &c
}
