package estimate

import (
	"strings"
	"testing"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/spec"
	"github.com/memplan/memplan/spec/family"
)

// A panic in the concurrent replay (a bug: here a free of a block never
// handed out) fails the replay with an internal error instead of crashing
// the process from a goroutine no recover reaches.
func TestConcurrentReplayPanicIsAnError(t *testing.T) {
	m, err := spec.Load("../examples/gpt2-fp32-adamw-b8.yaml")
	if err != nil {
		t.Fatal(err)
	}
	g, err := family.Expand(m)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := calibrate.Builtin("h200")
	s := newSim(m, g, p, Options{Concurrent: true})
	s.startReplay()
	s.send(request{kind: reqFree, block: 999, name: "no such block"})
	err = s.finishReplay()
	if err == nil || !strings.Contains(err.Error(), "internal error replaying no such block") {
		t.Errorf("got %v, want the panic as an internal error", err)
	}
}
