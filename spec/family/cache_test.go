package family

import (
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/memplan/memplan/spec"
)

// ignoredChanged is m with every setting expansionKey leaves out changed.
func ignoredChanged(m *spec.Model) *spec.Model {
	v := m.Clone()
	v.GPU, v.GPUBase = "a100-80gb", "/elsewhere"
	t := &v.Training
	t.Allocator = spec.AllocatorOptions{ExpandableSegments: true, MaxSplitSizeMB: 512, RoundupPower2Divisions: 4}
	t.Optimizer, t.OptimizerImpl, t.Momentum = spec.OptimizerSGD, spec.ImplFused, 0.9
	t.Parallel = spec.Parallel{Data: 64, Tensor: t.Parallel.Tensor, Sharding: spec.ShardingFSDP, ShardGroup: 8, MicroBatches: 4, BucketCapMB: 100, GradientAsBucketView: true}
	return v
}

// What the cache key leaves out, Expand does not read: for every bundled
// description, changing all of it gives the same key and an identical
// graph. (A family that starts reading one of those settings fails here,
// and expansionKey must then keep it.)
func TestCacheKeyLeavesOutWhatExpandIgnores(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.yaml")
	more, _ := filepath.Glob("../../examples/*/*.yaml")
	files = append(files, more...)
	expanded := 0
	for _, f := range files {
		m, err := spec.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		v := ignoredChanged(m)
		if expansionKey(v) != expansionKey(m) {
			t.Fatalf("%s: the key changed with settings it leaves out", f)
		}
		g, err := Expand(m)
		gv, errv := Expand(v)
		if (err == nil) != (errv == nil) || err != nil && err.Error() != errv.Error() {
			t.Fatalf("%s: expansion error %v, with the ignored settings changed %v", f, err, errv)
		}
		if err != nil {
			continue
		}
		if !reflect.DeepEqual(g, gv) {
			t.Fatalf("%s: the graph changed with settings the cache key leaves out", f)
		}
		expanded++
	}
	if expanded < 100 {
		t.Fatalf("only %d descriptions expanded", expanded)
	}
}

// What the expansion reads changes the key.
func TestCacheKeyKeepsWhatExpandReads(t *testing.T) {
	m, err := spec.Load("../../examples/tinyllama-bf16-adamw-b4.yaml")
	if err != nil {
		t.Fatal(err)
	}
	base := expansionKey(m)
	for name, set := range map[string]func(t *spec.Training){
		"batch":         func(t *spec.Training) { t.BatchSize++ },
		"seq_len":       func(t *spec.Training) { t.SeqLen++ },
		"precision":     func(t *spec.Training) { t.Precision = spec.PrecisionFP32 },
		"checkpointing": func(t *spec.Training) { t.ActivationCheckpointing = !t.ActivationCheckpointing },
		"mode":          func(t *spec.Training) { t.Mode = spec.ModeInference },
		"attention":     func(t *spec.Training) { t.Attention = spec.AttentionEager },
		"tensor ranks":  func(t *spec.Training) { t.Parallel.Tensor = 2 },
	} {
		v := m.Clone()
		set(&v.Training)
		if expansionKey(v) == base {
			t.Errorf("changing %s kept the key", name)
		}
	}
}

// The cache hands variants that differ in what it leaves out one graph,
// expands concurrent calls for one key once, and keeps the graphs used
// last.
func TestCacheSharesAndEvicts(t *testing.T) {
	m, err := spec.Load("../../examples/gpt2-fp32-adamw-b8.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := NewCache(2, 1<<30)
	var wg sync.WaitGroup
	graphs := make([]*spec.Graph, 8)
	for i := range graphs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := m
			if i%2 == 1 {
				v = ignoredChanged(m)
			}
			g, err := c.Expand(v)
			if err != nil {
				t.Error(err)
			}
			graphs[i] = g
		}()
	}
	wg.Wait()
	for i, g := range graphs {
		if g != graphs[0] {
			t.Fatalf("call %d got another graph", i)
		}
	}
	batch := func(b int64) *spec.Model {
		v := m.Clone()
		v.Training.BatchSize = b
		return v
	}
	g2, _ := c.Expand(batch(2))
	if g2 == graphs[0] {
		t.Fatal("batch 2 shared batch 8's graph")
	}
	if g, _ := c.Expand(m); g != graphs[0] {
		t.Fatal("batch 8 was not kept with one graph used since")
	}
	c.Expand(batch(3)) // evicts batch 2, used least recently
	if g, _ := c.Expand(m); g != graphs[0] {
		t.Fatal("batch 8, used last but one, was evicted")
	}
	if g, _ := c.Expand(batch(2)); g == g2 {
		t.Fatal("batch 2 was kept past the cache's size")
	}
}

// The cache holds at most its byte budget: a graph larger than it is not
// kept, and a new graph pushes out the ones used least recently.
func TestCacheHoldsItsBytes(t *testing.T) {
	m, err := spec.Load("../../examples/gpt2-fp32-adamw-b8.yaml")
	if err != nil {
		t.Fatal(err)
	}
	g, err := Expand(m)
	if err != nil {
		t.Fatal(err)
	}
	one := g.SizeBytes()
	if one < 100<<10 {
		t.Fatalf("GPT-2's graph counted %d bytes", one)
	}
	small := NewCache(4, one-1)
	a, _ := small.Expand(m)
	if b, _ := small.Expand(m); a == b {
		t.Error("a graph larger than the cache's bytes was kept")
	}
	c := NewCache(4, one+one/2)
	batch := func(b int64) *spec.Model {
		v := m.Clone()
		v.Training.BatchSize = b
		return v
	}
	g8, _ := c.Expand(m)
	if g, _ := c.Expand(m); g != g8 {
		t.Error("a graph within the cache's bytes was not kept")
	}
	c.Expand(batch(9)) // about as large: batch 8's goes
	if g, _ := c.Expand(m); g == g8 {
		t.Error("two graphs kept past the cache's bytes")
	}
}
