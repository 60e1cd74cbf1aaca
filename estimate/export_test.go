package estimate

import (
	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/spec"
)

// WalkEveryStep returns o set to walk and replay a step that would repeat
// the previous one from its cache, instead of deriving its figures: the
// reference the derived figures are checked against.
func WalkEveryStep(o Options) Options {
	o.everyStep = true
	return o
}

// RunCountingSteps is Run without Options.OnDevice's second run, which
// also returns how many steps the timeline walked.
func RunCountingSteps(m *spec.Model, g *spec.Graph, p *calibrate.Profile, opt Options) (*Result, int, error) {
	s := newSim(m, g, p, opt)
	if err := s.run(); err != nil {
		return nil, s.iteration, err
	}
	return s.result(), s.iteration, nil
}
