package estimate_test

import (
	"testing"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/estimate"
	"github.com/memplan/memplan/spec"
)

// With a device capacity the simulated allocator fails the way cudaMalloc
// does, and Run's error says so.
func TestCapacityOutOfMemory(t *testing.T) {
	m, err := spec.Parse("x.yaml", customGraph(10))
	if err != nil {
		t.Fatal(err)
	}
	g, err := spec.ExpandCustom(m)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := calibrate.Builtin("h200")
	r, err := estimate.Run(m, g, p, estimate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := estimate.Run(m, g, p, estimate.Options{Capacity: r.Peak.ReservedBytes}); err != nil {
		t.Fatalf("the step's own peak reserve must fit: %v", err)
	}
	_, err = estimate.Run(m, g, p, estimate.Options{Capacity: r.Peak.ReservedBytes / 2})
	if !estimate.IsOutOfMemory(err) {
		t.Fatalf("half the reserve: want an out-of-memory error, got %v", err)
	}
}

// On a GPU smaller than a step's unlimited reserve, PyTorch's allocator
// releases its cached blocks and retries before it runs out of memory:
// OnDevice simulates that, and returns the unlimited figures only when even
// then the step does not fit.
func TestOnDeviceReleasesCachedBlocks(t *testing.T) {
	m, g := expanded(t, "../examples/gpt2-fp32-adamw-b8.yaml")
	h200, _ := calibrate.Builtin("h200")
	free, err := estimate.Run(m, g, h200, estimate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	small := *h200
	small.TotalBytes = free.Peak.DeviceUsedBytes - 1
	r, err := estimate.Run(m, g, &small, estimate.Options{OnDevice: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Peak.DeviceUsedBytes > small.TotalBytes || r.AllocRetries == 0 || r.UnlimitedPeak == nil || *r.UnlimitedPeak != free.Peak {
		t.Errorf("one byte short: peak %d on %d, %d retries, unlimited %+v (want the step fitted by releasing cached blocks)", r.Peak.DeviceUsedBytes, small.TotalBytes, r.AllocRetries, r.UnlimitedPeak)
	}
	small.TotalBytes = free.Peak.AllocatedBytes / 2
	r, err = estimate.Run(m, g, &small, estimate.Options{OnDevice: true})
	if err != nil || r.Peak != free.Peak || r.AllocRetries != 0 || r.UnlimitedPeak != nil {
		t.Errorf("half the allocated peak: %v, peak %+v (want the unlimited figures)", err, r.Peak)
	}
}

// Once the allocator has released its cached blocks at the device's limit,
// its state can change from step to step: the run goes on until a step
// repeats the one before. VGG-16 on an L4 at batch 194 fits three steps by
// releasing its cache and runs out of memory in a later one.
func TestLimitedRunSettlesOrFails(t *testing.T) {
	m, g := expandedSource(t, "vgg16-b194.yaml", "model: {architecture: torchvision.vgg16}\ntraining: {batch_size: 194, image_size: 224, precision: fp32, optimizer: sgd, momentum: 0.9}\n")
	l4, _ := calibrate.Builtin("l4")
	_, err := estimate.Run(m, g, l4, estimate.Options{Device: l4.TotalBytes})
	if !estimate.MayNotFit(err) {
		t.Errorf("batch 194 on the L4: %v (want it not to fit in a later step)", err)
	}
	t.Log(err)
}
