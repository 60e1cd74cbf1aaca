package estimate_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
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
// repeats the one before, or one runs out of memory. VGG-16 on an L4 at
// batch 280 fits its first step by releasing its cache and runs out of
// memory in the next; at batch 194 a later step cannot get two cuDNN
// workspaces, which PyTorch survives by running cuDNN's next engine
// (TestConvWorkspaceFallback), and the run settles.
func TestLimitedRunSettlesOrFails(t *testing.T) {
	vgg := func(batch int) (*estimate.Result, error) {
		m, g := expandedSource(t, "vgg16.yaml", fmt.Sprintf("model: {architecture: torchvision.vgg16}\ntraining: {batch_size: %d, image_size: 224, precision: fp32, optimizer: sgd, momentum: 0.9}\n", batch))
		l4, _ := calibrate.Builtin("l4")
		return estimate.Run(m, g, l4, estimate.Options{Device: l4.TotalBytes})
	}
	if _, err := vgg(280); !estimate.MayNotFit(err) || !strings.Contains(err.Error(), "of iteration 2") {
		t.Errorf("batch 280 on the L4: %v (want it not to fit in the second step)", err)
	}
	r, err := vgg(194)
	if err != nil {
		t.Fatalf("batch 194 on the L4: %v (want it to fit, cuDNN falling back)", err)
	}
	fallbacks := 0
	for _, w := range r.Warnings {
		if strings.Contains(w, "cuDNN's next engine") {
			fallbacks++
		}
	}
	if fallbacks == 0 || r.AllocRetries == 0 {
		t.Errorf("batch 194 on the L4: %d retries, warnings %q (want the cache released and cuDNN falling back)", r.AllocRetries, r.Warnings)
	}
}

// TestConvWorkspaceFallback: a cuDNN workspace the allocator cannot give
// even after releasing its cache is not the run's end — PyTorch runs
// cuDNN's next engine (Conv_v8.cpp's try_plans), modelled with no
// workspace, and keeps it for that convolution's shape and pass: the
// warning names the workspace, which the first step allocated and the
// steady step no longer does.
func TestConvWorkspaceFallback(t *testing.T) {
	m, g := expandedSource(t, "vgg16.yaml", "model: {architecture: torchvision.vgg16}\ntraining: {batch_size: 194, image_size: 224, precision: fp32, optimizer: sgd, momentum: 0.9}\n")
	l4, _ := calibrate.Builtin("l4")
	r, err := estimate.Run(m, g, l4, estimate.Options{Device: l4.TotalBytes, Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, w := range r.Warnings {
		if strings.Contains(w, "cuDNN's next engine") {
			name := strings.Fields(strings.SplitN(w, ": ", 2)[1])[0]
			failed = append(failed, name)
		}
	}
	if len(failed) == 0 {
		t.Fatalf("no workspace fell back: %q", r.Warnings)
	}
	last := r.Timeline[len(r.Timeline)-1].Iteration
	for _, name := range failed {
		first, steady := int64(-1), int64(-1)
		for _, e := range r.Timeline {
			if e.Tensor != name || e.Action != estimate.ActionAlloc {
				continue
			}
			if e.Iteration == 1 && first < 0 {
				first = e.Requested
			}
			if e.Iteration == last {
				steady = max(steady, e.Bytes, e.Requested)
			}
		}
		if first <= 0 || steady != 0 {
			t.Errorf("%s: asked for %d bytes in the first step and %d in the steady one; want its workspace, then none", name, first, steady)
		}
	}
}

// SkipHopeless spares the run on the GPU only where that run could not
// fit: every bundled description on GPUs whose allocator can have 50% to
// 110% of its own unlimited peak allocated (where runs fit by releasing
// their cache, or run out of memory by fragmentation alone), with and
// without it. Where it skipped, the run on the GPU must have failed, and
// the results are otherwise the same; elsewhere they are identical.
func TestSkipHopelessOnlyWhereTheDeviceRunFails(t *testing.T) {
	h200, _ := calibrate.Builtin("h200")
	files := exampleFiles(t)
	if testing.Short() {
		files = files[:8]
	}
	var skipped, failedAnyway int
	for _, f := range files {
		m, g := expanded(t, f)
		free, err := estimate.Run(m, g, h200, estimate.Options{PeaksOnly: true})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		outside := free.Peak.DeviceUsedBytes - free.Peak.ReservedBytes
		for _, frac := range []int64{50, 95, 100, 101, 103, 110} {
			gpu := *h200
			gpu.TotalBytes = outside + free.Peak.AllocatedBytes*frac/100
			name := fmt.Sprintf("%s on %d%%", f, frac)
			want, wantErr := estimate.Run(m, g, &gpu, estimate.Options{PeaksOnly: true, OnDevice: true})
			got, gotErr := estimate.Run(m, g, &gpu, estimate.Options{PeaksOnly: true, OnDevice: true, SkipHopeless: true})
			if !sameError(gotErr, wantErr) {
				t.Errorf("%s: errors differ: %v / %v", name, gotErr, wantErr)
				continue
			}
			if gotErr != nil {
				continue
			}
			var noRoom *estimate.NoRoomError
			if errors.As(got.DeviceError, &noRoom) {
				skipped++
				if len(g.Convs) > 0 || noRoom.LiveBytes <= noRoom.Capacity {
					t.Errorf("%s: skipped the run on the GPU where it may not: %v", name, got.DeviceError)
				}
				if !estimate.MayNotFit(want.DeviceError) {
					t.Errorf("%s: skipped the run on the GPU (%v), which fits: %+v", name, got.DeviceError, want.Peak)
					continue
				}
				got.DeviceError, want.DeviceError = nil, nil
			} else if want.DeviceError != nil {
				failedAnyway++
			}
			if !sameError(got.DeviceError, want.DeviceError) || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: results differ:\n got %+v (%v)\nwant %+v (%v)", name, got.Peak, got.DeviceError, want.Peak, want.DeviceError)
			}
		}
	}
	t.Logf("%d runs on the GPU skipped; %d run there and did not fit", skipped, failedAnyway)
	if skipped == 0 || failedAnyway == 0 {
		t.Errorf("%d runs skipped, %d not skipped that did not fit: the test covers neither side", skipped, failedAnyway)
	}
}
