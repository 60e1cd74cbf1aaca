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
