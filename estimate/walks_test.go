package estimate_test

import (
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"testing"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/estimate"
	"github.com/memplan/memplan/spec"
	"github.com/memplan/memplan/spec/family"
)

// TestRecordedWalksAreRuns runs every description of exampleFiles at its
// own sizes and at other batch sizes, sequence lengths and image sizes,
// each on an unlimited device, under a limit, on a small device, on two
// cores and with its timeline's events, once walking its graph and once
// with one Walks shared by all of the description's runs, as a command's
// runs share one: the results, or the errors, must be the same, and most
// runs at other sizes must have replayed a walk.
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
		{PeaksOnly: true, Concurrent: true},
		{PeaksOnly: true, Timeline: true}, // every event named as walked
	}
	var runs, replayed int64
	for _, f := range files {
		base, err := spec.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		walks := estimate.NewWalks(64 << 20)
		for i, sizes := range otherSizes(base) {
			m := base.Clone()
			if err := m.SetAll(sizes); err != nil {
				continue // a size the model does not take (a position table's)
			}
			g, err := family.Expand(m)
			if err != nil {
				continue
			}
			for _, opt := range options {
				name := fmt.Sprintf("%s %v %+v", f, sizes, opt)
				want, wantErr := estimate.Run(m, g, p, opt)
				opt.Walks = walks
				before := walks.Replayed()
				got, gotErr := estimate.Run(m, g, p, opt)
				if i >= 1 {
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
	if replayed < runs*2/3 {
		t.Errorf("only %d of %d runs at other sizes replayed a walk", replayed, runs)
	}
}

// TestWalksShared runs descriptions at several sizes on four goroutines
// sharing one Walks too small for all of their kinds, so that kinds are
// dropped while others replay them: every result as walked.
func TestWalksShared(t *testing.T) {
	p, _ := calibrate.Builtin("h200")
	files := exampleFiles(t)[:6]
	type run struct {
		m    *spec.Model
		g    *spec.Graph
		want *estimate.Result
	}
	var all []run
	for _, f := range files {
		base, err := spec.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, sizes := range otherSizes(base) {
			m := base.Clone()
			if m.SetAll(sizes) != nil {
				continue
			}
			g, err := family.Expand(m)
			if err != nil {
				continue
			}
			want, err := estimate.Run(m, g, p, estimate.Options{PeaksOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, run{m, g, want})
		}
	}
	walks := estimate.NewWalks(4 << 20)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 3 * len(all) {
				r := all[(i*7+w*5)%len(all)]
				got, err := estimate.Run(r.m, r.g, p, estimate.Options{PeaksOnly: true, Walks: walks})
				if err != nil {
					t.Error(err)
					return
				}
				if !reflect.DeepEqual(got, r.want) {
					t.Errorf("%s at batch %d: a result that differs from its walk's", r.m.Name, r.m.Training.BatchSize)
				}
			}
		}()
	}
	wg.Wait()
	if walks.Replayed() == 0 {
		t.Error("no run replayed a walk")
	}
}

// TestWalksRefusedAreNotRecordedAgain: a kind whose walk is too large for
// the store is recorded once, not by every later run.
func TestWalksRefusedAreNotRecordedAgain(t *testing.T) {
	p, _ := calibrate.Builtin("h200")
	m, g := expanded(t, "../examples/gpt2-fp32-adamw-b8.yaml")
	walks := estimate.NewWalks(g.SizeBytes() + 1024) // the graph, not its walk
	for range 6 {
		if _, err := estimate.Run(m, g, p, estimate.Options{PeaksOnly: true, Walks: walks}); err != nil {
			t.Fatal(err)
		}
	}
	if n := walks.Recorded(); n != 1 {
		t.Errorf("%d runs recorded the walk, want 1 (the second)", n)
	}
	if n := walks.Replayed(); n != 0 {
		t.Errorf("%d runs replayed a walk the store could not keep", n)
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
