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

// StepsWalked runs an estimate and returns how many steps its timeline
// walked.
func StepsWalked(m *spec.Model, g *spec.Graph, p *calibrate.Profile, opt Options) (int, error) {
	s := newSim(m, g, p, opt)
	err := s.run()
	return s.iteration, err
}
