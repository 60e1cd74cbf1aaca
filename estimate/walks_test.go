package estimate_test

import (
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/estimate"
	"github.com/memplan/memplan/spec"
	"github.com/memplan/memplan/spec/family"
)

// TestRecordedWalksAreRuns runs every bundled description at its own
// sizes and at other batch sizes, sequence lengths and image sizes, each
// on an unlimited device, under a limit and on a small device (and with
// its timeline's events), once
// walking its graph and once with a Walks that has recorded the walk of
// another size: the results, or the errors, must be the same, and most
// runs must have replayed a walk.
func TestRecordedWalksAreRuns(t *testing.T) {
	p, _ := calibrate.Builtin("h200")
	files := exampleFiles(t)
	if testing.Short() {
		files = files[:10]
	}
	options := []estimate.Options{
		{PeaksOnly: true},
		{PeaksOnly: true, Limit: 60 << 30},
		{PeaksOnly: true, Device: 24 << 30},
		{PeaksOnly: true, OnDevice: true, Capacity: 16 << 30},
		{PeaksOnly: true, Timeline: true}, // every event named as walked
	}
	var runs, replayed int64
	for _, f := range files {
		base, err := spec.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, opt := range options {
			walks := estimate.NewWalks(64 << 20)
			opt.Walks = walks
			// The description's own sizes twice (seen, then recorded),
			// then others.
			for i, sizes := range otherSizes(base) {
				m := base.Clone()
				if err := m.SetAll(sizes); err != nil {
					continue // a size the model does not take (a position table's)
				}
				g, err := family.Expand(m)
				if err != nil {
					continue
				}
				name := fmt.Sprintf("%s %v %+v", f, sizes, opt)
				plain := opt
				plain.Walks = nil
				want, wantErr := estimate.Run(m, g, p, plain)
				before := walks.Replayed()
				got, gotErr := estimate.Run(m, g, p, opt)
				if i >= 2 {
					runs++
					replayed += min(walks.Replayed()-before, 1)
				}
				if !sameError(gotErr, wantErr) {
					t.Errorf("%s: errors differ: %v / %v", name, gotErr, wantErr)
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: the replayed walk's result differs:\n got %+v\nwant %+v", name, got.Peak, want.Peak)
				}
			}
		}
	}
	t.Logf("%d of %d runs at other sizes replayed a walk", replayed, runs)
	if replayed < runs/2 {
		t.Errorf("only %d of %d runs at other sizes replayed a walk", replayed, runs)
	}
}

// otherSizes is a description's own sizes twice, then other batch sizes,
// sequence lengths and image sizes (those it has).
func otherSizes(m *spec.Model) [][][2]string {
	t := m.Training
	b := strconv.FormatInt(t.BatchSize, 10)
	own := [][2]string{{"training.batch_size", b}}
	sizes := [][][2]string{own, own, {{"training.batch_size", strconv.FormatInt(t.BatchSize+1, 10)}}}
	if t.SeqLen > 0 {
		for _, s := range []int64{t.SeqLen/2 + 3, t.SeqLen - 1} {
			sizes = append(sizes, [][2]string{{"training.seq_len", strconv.FormatInt(s, 10)}})
		}
	}
	if t.ImageSize > 0 {
		sizes = append(sizes, [][2]string{{"training.image_size", strconv.FormatInt(t.ImageSize+32, 10)}})
	}
	return sizes
}
