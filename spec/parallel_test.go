package spec

import (
	"strings"
	"testing"
)

func TestParallelDecode(t *testing.T) {
	base := "model: {architecture: GPT2LMHeadModel}\ntraining: {batch_size: 2, seq_len: 128, parallel: %s}\n"
	m, err := Parse("p.yaml", []byte(strings.Replace(base, "%s", "{data: 8, sharding: hsdp, shard_group: 4, micro_batches: 2}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	p := m.Training.Parallel
	if p.World() != 8 || p.ShardRanks() != 4 || p.Micro() != 2 || !p.ShardsParams() || p.BucketCapBytes() != 25<<20 {
		t.Fatalf("decoded %+v", p)
	}
	if got := p.Layout(); !strings.Contains(got, "HSDP (shard groups of 4, 2 replicas)") || !strings.Contains(got, "2 micro-batches") {
		t.Errorf("layout %q", got)
	}
	var zero Parallel
	if zero.Enabled() || zero.World() != 1 || zero.Layout() != "1 rank" {
		t.Errorf("zero value %+v is not one rank", zero)
	}
	bad := map[string]string{
		"{data: 8, sharding: hsdp}":                    "needs shard_group",
		"{data: 8, sharding: hsdp, shard_group: 3}":    "does not split data 8",
		"{data: 8, shard_group: 2}":                    "needs sharding hsdp",
		"{data: 8, sharding: fsdp, bucket_cap_mb: 50}": "is DDP's",
		"{data: 1, sharding: fsdp}":                    "needs data ranks > 1",
		"{data: 8, sharding: zero3}":                   `unknown value "zero3"`,
		"{data: 8, pipeline: 2}":                       `unknown key "pipeline" in training.parallel`,
		"{data: 0}":                                    "out of range",
	}
	for v, want := range bad {
		_, err := Parse("p.yaml", []byte(strings.Replace(base, "%s", v, 1)))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "p.yaml:2:") {
			t.Errorf("%s: got %v, want an error at p.yaml:2 containing %q", v, err, want)
		}
	}
}

func TestParallelSet(t *testing.T) {
	m, err := Parse("p.yaml", []byte("model: {architecture: GPT2LMHeadModel}\ntraining: {batch_size: 2, seq_len: 128}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{{"training.parallel.data", "4"}, {"training.parallel.sharding", "fsdp"}, {"training.parallel.micro_batches", "2"}} {
		if err := m.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if p := m.Training.Parallel; p.DataRanks() != 4 || p.Sharding != ShardingFSDP || p.Micro() != 2 {
		t.Fatalf("%+v", p)
	}
	if err := m.Set("training.parallel.sharding", "zero9"); err == nil {
		t.Error("zero9 accepted")
	}
	if err := m.Set("training.parallel.data", "1"); err == nil {
		t.Error("fsdp over one rank accepted")
	}
}

// TestSetAllAndOptimizerSwitch: SetAll checks the description once, so a
// sharding and the ranks it needs may come in either order; switching an
// SGD-with-momentum description to Adam(W) drops the momentum without
// touching the model it was cloned from.
func TestSetAllAndOptimizerSwitch(t *testing.T) {
	m, err := Parse("p.yaml", []byte("model: {architecture: GPT2LMHeadModel}\ntraining: {batch_size: 2, seq_len: 128, optimizer: sgd, momentum: 0.9}\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := m.Clone()
	if err := c.SetAll([][2]string{{"training.parallel.sharding", "zero1"}, {"training.parallel.data", "8"}}); err != nil {
		t.Fatalf("sharding before ranks: %v", err)
	}
	if err := c.Set("training.parallel.sharding", "zero2"); err != nil {
		t.Fatal(err)
	}
	if err := m.Clone().SetAll([][2]string{{"training.parallel.sharding", "fsdp"}}); err == nil || !strings.Contains(err.Error(), "needs data ranks > 1") {
		t.Errorf("fsdp over one rank: %v", err)
	}
	a := m.Clone()
	if err := a.Set("training.optimizer", "adamw"); err != nil {
		t.Fatalf("switching to adamw: %v", err)
	}
	if a.Training.Momentum != 0 || m.Training.Momentum != 0.9 {
		t.Errorf("momentum %g after the switch, %g in the original", a.Training.Momentum, m.Training.Momentum)
	}
	if _, ok := m.Training.Pos["momentum"]; !ok {
		t.Error("the original lost its momentum position")
	}
}
