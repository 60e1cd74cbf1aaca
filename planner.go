package main

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/estimate"
	"github.com/memplan/memplan/spec"
	"github.com/memplan/memplan/spec/family"
)

// planner estimates variants of one loaded description against one
// profile; its results hold the iterations and the peak only (what fit,
// check and sweeps read).
type planner struct {
	base *spec.Model
	prof *calibrate.Profile
	// profiles holds the profiles of other GPUs a sweep's gpu axis names,
	// resolved before its points run.
	profiles map[string]*calibrate.Profile
	// serial leaves each estimate on one core: set when the caller already
	// runs one estimate per core (sweeps).
	serial bool
	// skipHopeless does not run again on the GPU a variant whose unlimited
	// run shows it cannot run there (estimate.Options.SkipHopeless): set by
	// sweeps, which do not report why a point does not fit; check does.
	skipHopeless bool
	// graphs shares an expanded graph among the variants that differ only
	// in what the expansion does not read (the data-parallel layout, the
	// optimizer, the allocator's settings).
	graphs *family.Cache
	// runs, when set, shares the runs a command makes more than once: fit's
	// lines repeat some (its options table's first row is its header's
	// estimate and batch search again, a settled search tests values the
	// bisection did). Sweeps, whose points are distinct, leave it nil and
	// hold one result per worker.
	runs *runMemo
	// walks keeps the timelines of the planner's runs: a variant at another
	// batch size or sequence length replays one instead of walking its
	// graph (estimate.Walks).
	walks *estimate.Walks
}

// plannerGraphs is how many expanded graphs a planner keeps, up to
// plannerGraphBytes of them: enough for the variants fit's lines estimate
// in turn on two cores, without holding several graphs of a model far
// larger than the 405B.
const (
	plannerGraphs     = 4
	plannerGraphBytes = 128 << 20
)

// plannerWalkBytes is how much a planner keeps of the kinds of run it has
// seen, their graphs and recorded walks (estimate.Walks): two of the 405B's
// (about 10 MB each); a sweep's points change structure only at a few
// boundaries of its grid.
const plannerWalkBytes = 24 << 20

func newPlanner(path, gpu string) (*planner, error) {
	m, err := spec.Load(path)
	if err != nil {
		return nil, err
	}
	if gpu != "" {
		m.GPU, m.GPUBase = gpu, ""
	}
	prof, err := calibrate.Resolve(m.GPUProfile())
	if err != nil {
		return nil, err
	}
	m.Training.ConvWorkspaces = prof.ConvTable()
	return &planner{base: m, prof: prof, graphs: family.NewCache(plannerGraphs, plannerGraphBytes), walks: estimate.NewWalks(plannerWalkBytes)}, nil
}

// estimate runs one variant on its GPU (estimate.Options.OnDevice):
// settings are key=value overrides.
func (p *planner) estimate(settings ...[2]string) (*estimate.Result, error) {
	m, prof, err := p.variant(settings)
	if err != nil {
		return nil, err
	}
	return p.run(m, prof, estimate.Options{OnDevice: true, SkipHopeless: p.skipHopeless})
}

// variant is a copy of the description with settings applied, and the
// profile of the GPU it names.
func (p *planner) variant(settings [][2]string) (*spec.Model, *calibrate.Profile, error) {
	m := p.base.Clone()
	if err := m.SetAll(settings); err != nil {
		return nil, nil, err
	}
	prof, err := p.profile(m)
	if err != nil {
		return nil, nil, err
	}
	return m, prof, nil
}

// run expands a variant and runs it with opt (PeaksOnly, and on both cores
// unless the planner runs one estimate per core) — once per planner with
// runs set: the result is then shared, and read-only to its callers.
func (p *planner) run(m *spec.Model, prof *calibrate.Profile, opt estimate.Options) (*estimate.Result, error) {
	if p.runs == nil {
		return p.runVariant(m, prof, opt)
	}
	return p.runs.do(runKey(m, opt), func() (*estimate.Result, error) { return p.runVariant(m, prof, opt) })
}

// runVariant is one run of a variant.
func (p *planner) runVariant(m *spec.Model, prof *calibrate.Profile, opt estimate.Options) (*estimate.Result, error) {
	g, err := p.graphs.Expand(m)
	if err != nil {
		return nil, err
	}
	opt.Version, opt.PeaksOnly, opt.Walks = version, true, p.walks
	opt.Concurrent = !p.serial && runtime.GOMAXPROCS(0) > 1
	return estimate.Run(m, g, prof, opt)
}

// runMemo runs each distinct run of a planner once: later calls with the
// same key wait for the first and share its result. It is safe for
// concurrent use.
type runMemo struct {
	mu   sync.Mutex
	runs map[string]*memoRun
}

// memoRun is one run of a runMemo, finished once done is closed.
type memoRun struct {
	done chan struct{} // closed once r and err are set
	r    *estimate.Result
	err  error
}

// newRunMemo returns an empty memo.
func newRunMemo() *runMemo { return &runMemo{runs: map[string]*memoRun{}} }

// errRunPanicked is what the calls waiting on a run that panicked get.
var errRunPanicked = errors.New("the estimate this one waited for panicked (a bug in memplan)")

// do returns run's result for key, running it only on the key's first call.
func (c *runMemo) do(key string, run func() (*estimate.Result, error)) (*estimate.Result, error) {
	c.mu.Lock()
	if e, ok := c.runs[key]; ok {
		c.mu.Unlock()
		<-e.done
		return e.r, e.err
	}
	e := &memoRun{done: make(chan struct{}), err: errRunPanicked}
	c.runs[key] = e
	c.mu.Unlock()
	// A run that panics (a bug) still releases the calls waiting for it,
	// with an error, and panics on its own goroutine.
	defer close(e.done)
	e.r, e.err = run()
	return e.r, e.err
}

// peek returns the result of the run of key when one has been made or is
// being made (waiting for it), and false when none has, or it failed.
func (c *runMemo) peek(key string) (*estimate.Result, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	e, ok := c.runs[key]
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	<-e.done
	return e.r, e.err == nil
}

// runKey identifies a run of a planner's variant: what a setting can change
// (the training options and the GPU; the convolution workspaces follow the
// GPU) and the run's options. Where in the file a setting was given is left
// out, as family.Cache leaves it out: two variants with the same values
// share a run, and an expansion error then names the position the first
// run's description gave.
func runKey(m *spec.Model, opt estimate.Options) string {
	t := m.Training
	t.ConvWorkspaces, t.Pos = nil, nil
	return fmt.Sprintf("%s|%s|%+v|%+v", m.GPU, m.GPUBase, t, opt)
}

// profile returns the profile of the GPU m names: the planner's, or for a
// variant that sets another gpu that GPU's, whose convolution workspaces it
// then takes too.
func (p *planner) profile(m *spec.Model) (*calibrate.Profile, error) {
	if m.GPU == p.base.GPU {
		return p.prof, nil
	}
	prof := p.profiles[m.GPU]
	if prof == nil {
		var err error
		if prof, err = calibrate.Resolve(m.GPUProfile()); err != nil {
			return nil, err
		}
	}
	m.Training.ConvWorkspaces = prof.ConvTable()
	return prof, nil
}

// fits reports whether a variant's nvidia-smi peak stays within limit on
// its GPU: simulated on a device of the GPU's size, where the allocator
// releases its cached blocks and retries before it runs out of memory, as
// PyTorch's does — so a step whose unlimited reserve would pass the GPU by
// fragmentation alone can still fit. The limit (the GPU less headroom, or a
// budget) is a threshold on that peak, not a smaller device: PyTorch on
// the GPU does not release its cache at the limit. A run stops as soon as
// its figure passes the limit (its peak can only be larger). The result is
// the run's (nil when it does not fit).
func (p *planner) fits(limit int64, settings ...[2]string) (bool, *estimate.Result, error) {
	ok, _, r, err := p.fitCheck(limit, settings...)
	return ok, r, err
}

// fitCheck is fits, saying too whether a variant that does not fit runs on
// the GPU releasing its cached blocks every step without settling (an
// *estimate.UnsettledError): fit counts that as not fitting, since a later
// step may run out of memory, but such a step can run for a while.
func (p *planner) fitCheck(limit int64, settings ...[2]string) (ok, unsettled bool, r *estimate.Result, err error) {
	m, prof, err := p.variant(settings)
	if err != nil {
		return false, false, nil, err
	}
	r, err = p.run(m, prof, estimate.Options{Device: prof.TotalBytes, Limit: limit})
	var u *estimate.UnsettledError
	if errors.As(err, &u) {
		return false, true, nil, nil
	}
	if estimate.MayNotFit(err) || estimate.IsOverLimit(err) {
		return false, false, nil, nil
	}
	if err != nil {
		return false, false, nil, err
	}
	return r.Peak.DeviceUsedBytes <= limit, false, r, nil
}

// withValue is settings with key set to v, in a slice of its own: the
// searches run their values in parallel, and an append into settings'
// spare capacity would share it.
func withValue(settings [][2]string, key string, v int64) [][2]string {
	return append(slices.Clone(settings), [2]string{key, strconv.FormatInt(v, 10)})
}

// largest finds the largest value of key (≥ 1) whose peak fits; 0 when even
// 1 does not. Memory grows almost linearly in batch and sequence, so the
// peaks at 1 and 2 predict the answer; a bracket around the prediction,
// widened by doubling, is then bisected — a handful of estimates instead of
// a search from scratch. An expansion error past a fitting value (seq_len
// beyond the model's positions) bounds the search and is reported.
func (p *planner) largest(key string, limit int64, settings ...[2]string) (int64, string, error) {
	const maxValue = int64(1) << 24
	note := ""
	// peak is v's figure on an unlimited device: one run, where the GPU's
	// would run again at the GPU's size when the figure passes it. It only
	// aims the search; the fits runs decide.
	peak := func(v int64) (int64, error) {
		m, prof, err := p.variant(withValue(settings, key, v))
		if err != nil {
			return 0, err
		}
		// A run on the GPU that fit has made of this variant already (an
		// options row, the description's line) began with the unlimited one.
		if r, ok := p.runs.peek(runKey(m, estimate.Options{OnDevice: true})); ok {
			if r.UnlimitedPeak != nil {
				return r.UnlimitedPeak.DeviceUsedBytes, nil
			}
			return r.Peak.DeviceUsedBytes, nil
		}
		r, err := p.run(m, prof, estimate.Options{})
		if err != nil {
			return 0, err
		}
		return r.Peak.DeviceUsedBytes, nil
	}
	// fits treats an expansion error above 1 as "does not fit" and notes
	// it; a run that passes the limit stops there.
	fits := func(v int64) (bool, error) {
		ok, _, err := p.fits(limit, withValue(settings, key, v)...)
		if err != nil && v > 1 {
			if note == "" {
				note = "limited by the model: " + firstLine(err)
			}
			return false, nil
		}
		return ok, err
	}
	// The peak at 1 is needed only if 1 fits: a run past the limit stops
	// early, and one that fits has run to its end.
	ok, r1, err := p.fits(limit, withValue(settings, key, 1)...)
	if err != nil || !ok {
		return 0, "", err
	}
	p1 := r1.Peak.DeviceUsedBytes
	// A second point far from 1 (the description's own value, when larger)
	// gives a slope that already includes the terms growing with the size.
	ref := max(p.baseValue(key), 2)
	guess := ref
	if pr, err := peak(ref); err == nil && pr > p1 {
		guess = 1 + (limit-p1)*(ref-1)/(pr-p1)
	}
	guess = min(max(guess, 1), maxValue)
	lo, hi := int64(1), int64(0) // lo fits; hi does not (0: unknown)
	if ok, err := fits(guess); err != nil {
		return 0, "", err
	} else if ok {
		lo = guess
		for step := max(guess/64, 1); hi == 0; step *= 2 {
			next := lo + step
			if next > maxValue {
				return lo, "no limit found up to 2^24", nil
			}
			ok, err := fits(next)
			if err != nil {
				return 0, "", err
			}
			if ok {
				lo = next
			} else {
				hi = next
			}
		}
	} else {
		hi = guess
		for step := max(guess/64, 1); ; step *= 2 {
			next := max(hi-step, lo)
			if next == lo {
				break
			}
			ok, err := fits(next)
			if err != nil {
				return 0, "", err
			}
			if ok {
				lo = next
				break
			}
			hi = next
		}
	}
	lo, err = bisect(fits, lo, hi)
	return lo, note, err
}

// bisect narrows lo (fits) and hi (does not) to neighbours and returns lo.
func bisect(fits func(int64) (bool, error), lo, hi int64) (int64, error) {
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		ok, err := fits(mid)
		if err != nil {
			return 0, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// fragmentWindow is how far on each side of a search's answer fit tests
// every value. Near the limit whether a step fits depends on how the
// allocator's live blocks fragment its segments, which need not grow with
// the batch: a search's boundary can have values that do not fit below it
// and values that fit above it.
const fragmentWindow = 16

// settle finds, from lo (a search's answer, which fits), the largest value
// whose fragmentWindow values below it all fit too: it tests the values
// below the candidate and, at a value that does not fit, moves below it.
// Near the limit whether a step fits depends on how the allocator's live
// blocks fragment, so a bisection's answer can sit above values that do
// not fit. The note names the values above the answer, up to
// fragmentWindow past lo, that fit too and those that do not.
func (p *planner) settle(key string, limit, lo int64, settings ...[2]string) (int64, string, error) {
	known := map[int64]bool{lo: true}
	unsettled := map[int64]bool{} // values that release the cache every step without settling
	// test fills known for the untested values in [from, to], in parallel.
	test := func(from, to int64) error {
		var vs []int64
		for v := from; v <= to; v++ {
			if _, ok := known[v]; !ok {
				vs = append(vs, v)
			}
		}
		type outcome struct {
			ok, unsettled bool
			err           error
		}
		out := inParallel(len(vs), func(i int) outcome {
			ok, unsettled, _, err := p.fitCheck(limit, withValue(settings, key, vs[i])...)
			if err != nil && vs[i] > lo {
				return outcome{} // past the model's bounds (positions): does not fit
			}
			return outcome{ok, unsettled, err}
		})
		for i, o := range out {
			if o.err != nil {
				return o.err
			}
			known[vs[i]] = o.ok
			unsettled[vs[i]] = o.unsettled
		}
		return nil
	}
	settled := lo
	for {
		from := max(settled-fragmentWindow, 1)
		if err := test(from, settled); err != nil {
			return 0, "", err
		}
		miss := int64(0) // the highest value in [from, settled] that does not fit
		for v := settled; v >= from; v-- {
			if !known[v] {
				miss = v
				break
			}
		}
		if miss == 0 {
			break
		}
		if settled = miss - 1; settled == 0 {
			return 0, "", nil
		}
	}
	if err := test(settled+1, lo+fragmentWindow); err != nil {
		return 0, "", err
	}
	var fit, miss, releasing []int64
	for v := settled + 1; v <= lo+fragmentWindow; v++ {
		switch {
		case known[v]:
			fit = append(fit, v)
		case unsettled[v]:
			releasing = append(releasing, v)
			miss = append(miss, v)
		default:
			miss = append(miss, v)
		}
	}
	var notes []string
	if len(fit) > 0 {
		miss = slices.DeleteFunc(miss, func(v int64) bool { return v > fit[len(fit)-1] })
		verb := "do not"
		if len(miss) == 1 {
			verb = "does not"
		}
		notes = append(notes, fmt.Sprintf("above it fragmentation decides: %s also fit, %s %s", spans(fit), spans(miss), verb))
	}
	if len(releasing) > 0 {
		verb := "run releasing their cached blocks every step"
		if len(releasing) == 1 {
			verb = "runs releasing its cached blocks every step"
		}
		notes = append(notes, fmt.Sprintf("%s %s without settling: not counted, a later step may run out of memory", spans(releasing), verb))
	}
	return settled, strings.Join(notes, "; "), nil
}

// spans writes sorted values as ranges: "188–193, 199".
func spans(vs []int64) string {
	var parts []string
	for i := 0; i < len(vs); {
		j := i
		for j+1 < len(vs) && vs[j+1] == vs[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d–%d", vs[i], vs[j]))
		} else {
			parts = append(parts, strconv.FormatInt(vs[i], 10))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// largestSettled is largest, then settle around its answer: the main
// searches of fit, whose answer should be one every smaller value near it
// also fits.
func (p *planner) largestSettled(key string, limit int64, settings ...[2]string) (int64, string, error) {
	v, note, err := p.largest(key, limit, settings...)
	if err != nil || v <= 0 {
		return v, note, err
	}
	settled, more, err := p.settle(key, limit, v, settings...)
	if err != nil {
		return 0, "", err
	}
	if more != "" {
		if note != "" {
			note += "; "
		}
		note += more
	}
	return settled, note, nil
}

// baseValue is the description's own value of a searched key (0 if unset).
func (p *planner) baseValue(key string) int64 {
	switch key {
	case "training.batch_size":
		return p.base.Training.BatchSize
	case "training.seq_len":
		return p.base.Training.SeqLen
	case "training.image_size":
		return p.base.Training.ImageSize
	}
	return 0
}

// inParallel runs job(0) … job(n-1) on every core and returns their
// results in order.
func inParallel[T any](n int, job func(i int) T) []T {
	out := make([]T, n)
	jobs := make(chan int)
	var wg sync.WaitGroup
	var once sync.Once
	var bug any // the first panic of a worker, raised again on the caller's goroutine
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					once.Do(func() { bug = r })
					for range jobs { // let the sender finish
					}
				}
			}()
			for i := range jobs {
				out[i] = job(i)
			}
		}()
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if bug != nil {
		panic(bug) // run's reportBug turns it into one line
	}
	return out
}
