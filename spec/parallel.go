package spec

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Sharding is how the data-parallel ranks split the model states.
type Sharding int

// Shardings: DDP (nothing sharded), ZeRO-1 (optimizer state; PyTorch's
// ZeroRedundancyOptimizer over DDP), ZeRO-2 (FSDP2 with
// reshard_after_forward=False: parameters all-gathered from forward to
// backward, gradients and optimizer state sharded), FSDP (FSDP2 fully_shard
// with reshard_after_forward=True on every unit, the root included) and HSDP
// (FSDP over a shard group, replicated across groups).
const (
	ShardingNone Sharding = iota
	ShardingZero1
	ShardingZero2
	ShardingFSDP
	ShardingHSDP
)

var shardingNames = []string{"none", "zero1", "zero2", "fsdp", "hsdp"}

// maxMicroBatches bounds gradient accumulation: the estimate simulates
// every micro-batch's forward and backward, about 2 ms each for GPT-2 on
// two ranks, so 1,024 take about two seconds.
const maxMicroBatches = 1 << 10

func (s Sharding) String() string { return enumString(shardingNames, int(s)) }

// MarshalText writes the sharding by name.
func (s Sharding) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// ShardingNames lists the YAML spellings of training.parallel.sharding.
func ShardingNames() []string { return append([]string(nil), shardingNames...) }

// DefaultBucketCapMB is DistributedDataParallel's bucket_cap_mb default.
const DefaultBucketCapMB = 25

// Parallel is training.parallel: how one step is spread over ranks. The zero
// value means one rank (no process group). Every size a Graph holds is per
// rank: batch_size is the micro-batch each data rank computes.
type Parallel struct {
	// Data is the number of data-parallel ranks.
	Data int64
	// Tensor is the number of tensor-parallel ranks (Megatron-style column /
	// row parallel linear layers and sharded attention heads).
	Tensor int64
	// Sharding is the data-parallel strategy.
	Sharding Sharding
	// ShardGroup is HSDP's shard-group size (ranks that shard the states).
	ShardGroup int64
	// MicroBatches is the number of forward/backward passes per optimizer step.
	MicroBatches int64
	// BucketCapMB is DDP's bucket_cap_mb (MiB).
	BucketCapMB float64
	// GradientAsBucketView is DDP's gradient_as_bucket_view.
	GradientAsBucketView bool
}

// DataRanks is the number of data-parallel ranks (at least 1).
func (p Parallel) DataRanks() int64 { return max(p.Data, 1) }

// TensorRanks is the number of tensor-parallel ranks (at least 1).
func (p Parallel) TensorRanks() int64 { return max(p.Tensor, 1) }

// World is the number of ranks (processes, one GPU each).
func (p Parallel) World() int64 { return p.DataRanks() * p.TensorRanks() }

// Micro is the number of micro-batches per optimizer step (at least 1).
func (p Parallel) Micro() int64 { return max(p.MicroBatches, 1) }

// BucketCapBytes is DDP's bucket capacity in bytes.
func (p Parallel) BucketCapBytes() int64 {
	if p.BucketCapMB <= 0 {
		return DefaultBucketCapMB << 20
	}
	return int64(p.BucketCapMB * (1 << 20))
}

// ShardRanks is the number of ranks the parameters (fsdp, zero2, hsdp),
// gradients (zero2 and up) or optimizer state (zero1 and up) are split over.
func (p Parallel) ShardRanks() int64 {
	switch p.Sharding {
	case ShardingNone:
		return 1
	case ShardingHSDP:
		return max(p.ShardGroup, 1)
	}
	return p.DataRanks()
}

// ShardsParams reports whether the strategy shards parameters between steps
// (FSDP2-based: zero2, fsdp, hsdp).
func (p Parallel) ShardsParams() bool {
	return p.Sharding == ShardingZero2 || p.Sharding == ShardingFSDP || p.Sharding == ShardingHSDP
}

// Enabled reports whether the step runs in a process group or accumulates
// gradients (anything but one rank, one micro-batch).
func (p Parallel) Enabled() bool {
	return p.ProcessGroup() || p.Micro() > 1
}

// ProcessGroup reports whether the step runs in a process group: more than
// one rank, or a sharding. Micro-batches on one rank are plain gradient
// accumulation — no DDP wrapper, no NCCL.
func (p Parallel) ProcessGroup() bool {
	return p.World() > 1 || p.Sharding != ShardingNone
}

// Layout names the rank layout in words, as reports print it.
func (p Parallel) Layout() string {
	if !p.ProcessGroup() {
		if p.Micro() > 1 {
			return fmt.Sprintf("1 rank, %d micro-batches (gradient accumulation)", p.Micro())
		}
		return "1 rank"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d ranks (data %d × tensor %d), ", p.World(), p.DataRanks(), p.TensorRanks())
	switch p.Sharding {
	case ShardingNone:
		b.WriteString("DDP")
	case ShardingZero1:
		fmt.Fprintf(&b, "ZeRO-1 (optimizer state over %d ranks)", p.ShardRanks())
	case ShardingZero2:
		fmt.Fprintf(&b, "ZeRO-2 (FSDP2 reshard_after_forward=False over %d ranks)", p.ShardRanks())
	case ShardingFSDP:
		fmt.Fprintf(&b, "FSDP2 fully_shard over %d ranks", p.ShardRanks())
	case ShardingHSDP:
		fmt.Fprintf(&b, "HSDP (shard groups of %d, %d replicas)", p.ShardRanks(), p.DataRanks()/p.ShardRanks())
	}
	if p.Micro() > 1 {
		fmt.Fprintf(&b, ", %d micro-batches", p.Micro())
	}
	return b.String()
}

var parallelKeys = []string{"data", "tensor", "sharding", "shard_group", "micro_batches", "bucket_cap_mb", "gradient_as_bucket_view"}

// parallel decodes training.parallel strictly.
func (d *decoder) parallel(n *yaml.Node, t *Training) error {
	w := "training.parallel"
	p := Parallel{Data: 1, Tensor: 1, MicroBatches: 1, BucketCapMB: DefaultBucketCapMB}
	err := d.fields(n, w, parallelKeys, func(key string, _, v *yaml.Node) error {
		kw := w + "." + key
		t.Pos["parallel."+key] = d.pos(v)
		var err error
		switch key {
		case "data":
			p.Data, err = d.positive(v, kw, 1<<20)
		case "tensor":
			p.Tensor, err = d.positive(v, kw, 1<<12)
		case "shard_group":
			p.ShardGroup, err = d.positive(v, kw, 1<<20)
		case "micro_batches":
			p.MicroBatches, err = d.positive(v, kw, maxMicroBatches)
		case "sharding":
			var i int
			i, err = d.enum(v, kw, shardingNames)
			p.Sharding = Sharding(i)
		case "bucket_cap_mb":
			p.BucketCapMB, err = d.number(v, kw, 0.001, 1<<20)
		case "gradient_as_bucket_view":
			p.GradientAsBucketView, err = d.boolean(v, kw)
		}
		return err
	})
	if err != nil {
		return err
	}
	t.Parallel = p
	return nil
}

// validateParallel checks what spans several keys of training.parallel.
func (m *Model) validateParallel() error {
	t := &m.Training
	p := t.Parallel
	at := func(key string) Pos { return t.KeyPos("parallel."+key, t.KeyPos("parallel", m.At("training"))) }
	if p.Sharding == ShardingHSDP {
		if p.ShardGroup == 0 {
			return at("sharding").Errorf("training.parallel.sharding hsdp needs shard_group (allowed: a divisor of data greater than 1)")
		}
		if p.ShardGroup < 2 || p.DataRanks()%p.ShardGroup != 0 || p.ShardGroup == p.DataRanks() {
			return at("shard_group").Errorf("training.parallel.shard_group %d does not split data %d into groups (allowed: a divisor of data, greater than 1 and less than data; use fsdp for one group)", p.ShardGroup, p.DataRanks())
		}
	} else if p.ShardGroup != 0 {
		return at("shard_group").Errorf("training.parallel.shard_group needs sharding hsdp (allowed: only with hsdp)")
	}
	if p.Sharding != ShardingNone && p.Sharding != ShardingZero1 {
		if _, ok := t.Pos["parallel.bucket_cap_mb"]; ok {
			return at("bucket_cap_mb").Errorf("training.parallel.bucket_cap_mb is DDP's (allowed: with sharding none or zero1)")
		}
		if p.GradientAsBucketView {
			return at("gradient_as_bucket_view").Errorf("training.parallel.gradient_as_bucket_view is DDP's (allowed: with sharding none or zero1)")
		}
	}
	// One rank set in the file has no DDP wrapper for the bucket settings;
	// an override to one rank (a sweep, fit's layouts) leaves them unread.
	if !p.ProcessGroup() && !t.Overridden("parallel.data") && !t.Overridden("parallel.tensor") && !t.Overridden("parallel.sharding") {
		for _, key := range []string{"bucket_cap_mb", "gradient_as_bucket_view"} {
			if _, ok := t.Pos["parallel."+key]; ok {
				return at(key).Errorf("training.parallel.%s is DDP's, and one rank has no DDP wrapper (allowed: with data > 1)", key)
			}
		}
	}
	if p.Enabled() && t.Mode != ModeTrain {
		return at("data").Errorf("training.parallel needs mode train (allowed: inference runs on one rank here)")
	}
	if p.Sharding != ShardingNone && p.DataRanks() == 1 {
		return at("sharding").Errorf("training.parallel.sharding %s needs data ranks > 1 (allowed: none with data 1)", p.Sharding)
	}
	return nil
}

// parallelSettable are the keys Set accepts for training.parallel.
var parallelSettable = []string{"training.parallel.data", "training.parallel.tensor", "training.parallel.sharding", "training.parallel.shard_group", "training.parallel.micro_batches"}

// setParallel overrides one training.parallel key (sweeps and fit); it
// reports false for keys it does not own.
func (m *Model) setParallel(key, value string) (bool, error) {
	p := &m.Training.Parallel
	num := func(max int64) (int64, error) {
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 1 || n > max {
			return 0, fmt.Errorf("setting %s=%s: invalid value (allowed: an integer from 1 to %d)", key, value, max)
		}
		return n, nil
	}
	var err error
	switch key {
	case "training.parallel.data":
		p.Data, err = num(1 << 20)
	case "training.parallel.tensor":
		p.Tensor, err = num(1 << 12)
	case "training.parallel.shard_group":
		p.ShardGroup, err = num(1 << 20)
	case "training.parallel.micro_batches":
		p.MicroBatches, err = num(maxMicroBatches)
	case "training.parallel.sharding":
		found := false
		for i, n := range shardingNames {
			if strings.EqualFold(n, value) {
				p.Sharding, found = Sharding(i), true
			}
		}
		if !found {
			err = fmt.Errorf("setting %s=%s: invalid value (allowed: %s)", key, value, allowedList(shardingNames))
		}
		if p.Sharding != ShardingHSDP {
			p.ShardGroup = 0
		}
	default:
		return false, nil
	}
	return true, err
}
