package estimate_test

import (
	"testing"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/estimate"
	"github.com/memplan/memplan/spec"
	"github.com/memplan/memplan/spec/family"
)

func BenchmarkTmpRunSerial(b *testing.B) {
	m, _ := spec.Load("../examples/llama3.1-405b-bf16-adamw.yaml")
	g, _ := family.Expand(m)
	p, _ := calibrate.Builtin("h200")
	for b.Loop() {
		estimate.Run(m, g, p, estimate.Options{})
	}
}
