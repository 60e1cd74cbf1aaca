package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/estimate"
	"github.com/memplan/memplan/estimate/allocator"
	"github.com/memplan/memplan/report"
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
}

// plannerGraphs is how many expanded graphs a planner keeps, up to
// plannerGraphBytes of them: enough for the variants fit's lines estimate
// in turn on two cores, without holding several graphs of a model far
// larger than the 405B.
const (
	plannerGraphs     = 4
	plannerGraphBytes = 128 << 20
)

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
	return &planner{base: m, prof: prof, graphs: family.NewCache(plannerGraphs, plannerGraphBytes)}, nil
}

// estimate runs one variant on its GPU (estimate.Options.OnDevice):
// settings are key=value overrides.
func (p *planner) estimate(settings ...[2]string) (*estimate.Result, error) {
	m, prof, err := p.variant(settings)
	if err != nil {
		return nil, err
	}
	return p.run(m, prof, estimate.Options{OnDevice: true})
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
	opt.Version, opt.PeaksOnly = version, true
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

// difference writes a verdict's margin in GiB, or in MiB (or bytes) when
// it is too small to show in GiB: 1 byte over is not "0.00 GiB over".
func difference(b int64) string {
	switch {
	case b >= 10<<20:
		return report.GiB(b)
	case b >= 1<<20:
		return report.MiB(b)
	}
	if b == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", b)
}

// largestOrNone writes a search's answer: the value, or "none (1 does not
// fit)" when not even 1 fits.
func largestOrNone(n int64) string {
	if n <= 0 {
		return "none (1 does not fit)"
	}
	return strconv.FormatInt(n, 10)
}

func firstLine(err error) string { return strings.SplitN(err.Error(), "\n", 2)[0] }

// parsePercent reads "5%" or "0.05".
func parsePercent(s string) (float64, error) {
	v := strings.TrimSuffix(strings.TrimSpace(s), "%")
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f >= 0) || math.IsInf(f, 0) { // NaN fails f >= 0
		return 0, fmt.Errorf("headroom %q (allowed: a percentage such as 5%%)", s)
	}
	if strings.HasSuffix(strings.TrimSpace(s), "%") {
		f /= 100
	} else if f >= 1 {
		return 0, fmt.Errorf("headroom %q: a share is a percentage (%s%%) or a fraction below 1 (allowed: such as 5%% or 0.05)", s, v)
	}
	if f >= 1 {
		return 0, fmt.Errorf("headroom %q leaves no memory (allowed: below 100%%)", s)
	}
	return f, nil
}

func runFit(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("fit", "FILE [--gpu NAME|FILE] [--headroom 5%]", stderr)
	gpu := fs.String("gpu", "", "GPU profile (default: the description's gpu)")
	headroom := fs.String("headroom", "5%", "memory kept free, as a share of the GPU's total")
	pos, code := parseFile(fs, args, stdout)
	if code >= 0 {
		return code
	}
	h, err := parsePercent(*headroom)
	if err != nil {
		fmt.Fprintf(stderr, "memplan fit: %v\n", err)
		return exitUsage
	}
	p, err := newPlanner(pos[0], *gpu)
	if err != nil {
		return fail(stderr, err)
	}
	limit := int64(float64(p.prof.TotalBytes) * (1 - h))
	t := p.base.Training
	p.runs = newRunMemo()
	// Every line is its own search or estimate: they run on every core
	// (each estimate on one) and print in order.
	var lines []func() (string, error)
	var baseWarnings, answerWarnings []string // read once every line has run
	lines = append(lines, func() (string, error) {
		base, err := p.estimate()
		if err != nil {
			return "", err
		}
		baseWarnings = base.Warnings
		v := verdict(base.Peak.DeviceUsedBytes, limit) + releasing(base)
		return fmt.Sprintf("as described (batch %d): nvidia-smi peak %s in iteration %d %s — %s\n", t.BatchSize, report.GiB(base.Peak.DeviceUsedBytes), base.Peak.Iteration, base.Peak.Phase, v), nil
	}, func() (string, error) {
		bmax, note, err := p.largestSettled("training.batch_size", limit)
		if err == nil && bmax > 0 {
			// What the answer's own estimate warns of (workspaces past
			// the table's batches, say) is printed with the description's.
			if r, err := p.estimate([2]string{"training.batch_size", strconv.FormatInt(bmax, 10)}); err == nil {
				answerWarnings = r.Warnings
			}
		}
		return fmt.Sprintf("largest batch_size: %s%s\n", largestOrNone(bmax), suffixNote(note)), err
	})
	if t.SeqLen > 0 {
		lines = append(lines, func() (string, error) {
			smax, note, err := p.largestSettled("training.seq_len", limit, [2]string{"training.batch_size", strconv.FormatInt(t.BatchSize, 10)})
			return fmt.Sprintf("largest seq_len at batch %d: %s%s\n", t.BatchSize, largestOrNone(smax), suffixNote(note)), err
		})
	}
	searches := len(lines)
	for _, v := range fitVariants(p.base) {
		lines = append(lines, func() (string, error) {
			r, err := p.estimate(v.settings...)
			if err != nil {
				return fmt.Sprintf("%s\t—\t—\t%s\t—\n", v.label, firstLine(err)), nil
			}
			b, _, err := p.largest("training.batch_size", limit, v.settings...)
			bs := fmt.Sprint(b)
			if b <= 0 {
				bs = "none"
			}
			if err != nil {
				bs = "—"
			}
			return fmt.Sprintf("%s\t%s\titer %d %s\t%s\t%s\n", v.label, report.GiB(r.Peak.DeviceUsedBytes), r.Peak.Iteration, r.Peak.Phase, largestTerm(r), bs), nil
		})
	}
	variants := len(lines)
	lines = append(lines, fitParallel(p, limit)...) // cmd_fit_parallel.go
	p.serial = true                                 // the lines keep every core busy
	type line struct {
		text string
		err  error
	}
	out := inParallel(len(lines), func(i int) line {
		text, err := lines[i]()
		return line{text, err}
	})
	for _, l := range out[:searches] {
		if l.err != nil {
			return fail(stderr, l.err)
		}
	}
	printWarnings(stderr, slices.Concat(baseWarnings, answerWarnings))
	// The limit in bytes too: `check --budget` takes it exactly, where the
	// GiB figure is rounded.
	fmt.Fprintf(stdout, "%s on %s (%s usable after %s%% headroom: check --budget %d)\n", p.base.Name, p.prof.GPUName, report.GiB(limit), strconv.FormatFloat(math.Round(100*h*1e6)/1e6, 'f', -1, 64), limit)
	for _, l := range out[:searches] {
		fmt.Fprint(stdout, l.text)
	}
	fmt.Fprintf(stdout, "\noptions that change memory (at batch %d):\n", t.BatchSize)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "option\tnvidia-smi peak\tpeak phase\tlargest term at the peak\tlargest batch")
	for _, l := range out[searches:variants] {
		fmt.Fprint(tw, l.text)
	}
	if err := tw.Flush(); err != nil {
		return fail(stderr, err)
	}
	if variants < len(out) {
		data := t.Parallel.DataRanks()
		if data == 1 {
			data = 8
		}
		fmt.Fprintf(stdout, "\ndata-parallel layouts (per rank, batch %d per rank, tensor %d):\n", t.BatchSize, t.Parallel.TensorRanks())
		tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "sharding\tnvidia-smi peak at data %d\tpeak phase\tfewest data ranks that fit\n", data)
		for _, l := range out[variants:] {
			fmt.Fprint(tw, l.text)
		}
		if err := tw.Flush(); err != nil {
			return fail(stderr, err)
		}
	}
	return exitOK
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

func suffixNote(n string) string {
	if n == "" {
		return ""
	}
	return " (" + n + ")"
}

// releasing says, for a result that fits its GPU only by releasing cached
// blocks (estimate.Result.UnlimitedPeak), how often and what an unlimited
// device would reserve; else it is empty.
func releasing(r *estimate.Result) string {
	if r.UnlimitedPeak == nil {
		return ""
	}
	return fmt.Sprintf(", releasing cached blocks %s (unlimited, it would reserve %s)", report.Times(r.AllocRetries), report.GiB(r.UnlimitedPeak.ReservedBytes))
}

func verdict(peak, limit int64) string {
	if peak <= limit {
		return fmt.Sprintf("fits, %s headroom", report.GiB(limit-peak))
	}
	return fmt.Sprintf("does NOT fit, %s over", report.GiB(peak-limit))
}

// largestTerm names the role holding most memory at the overall peak.
func largestTerm(r *estimate.Result) string {
	for i := range r.Iterations {
		if r.Iterations[i].Iteration != r.Peak.Iteration {
			continue
		}
		for _, ph := range r.Iterations[i].Phases {
			if ph.Phase == r.Peak.Phase {
				roles := estimate.SortedRoles(ph.PeakByRole)
				if len(roles) > 0 {
					return fmt.Sprintf("%s %s", roles[0], report.GiB(ph.PeakByRole[roles[0]]))
				}
			}
		}
	}
	return "—"
}

type variant struct {
	label    string
	settings [][2]string
}

// fitVariants lists the options that change memory, relative to m.
func fitVariants(m *spec.Model) []variant {
	t := m.Training
	vs := []variant{{label: "as described"}}
	if t.Mode == spec.ModeTrain {
		vs = append(vs, variant{fmt.Sprintf("activation_checkpointing: %v", !t.ActivationCheckpointing), [][2]string{{"training.activation_checkpointing", fmt.Sprint(!t.ActivationCheckpointing)}}})
	}
	for _, prec := range []string{"fp32", "bf16", "amp-bf16"} {
		if prec != t.Precision.String() {
			vs = append(vs, variant{"precision: " + prec, [][2]string{{"training.precision", prec}}})
		}
	}
	if t.Mode == spec.ModeTrain {
		for _, o := range [][2]string{{"adamw", "foreach"}, {"adamw", "fused"}, {"sgd", "foreach"}} {
			if o[0] == t.Optimizer.String() && o[1] == t.OptimizerImpl.String() {
				continue
			}
			s := [][2]string{{"training.optimizer", o[0]}, {"training.optimizer_impl", o[1]}}
			label := "optimizer: " + o[0] + " " + o[1]
			if o[0] == "sgd" {
				s = append(s, [2]string{"training.momentum", "0.9"})
				label = "optimizer: sgd momentum 0.9"
			}
			vs = append(vs, variant{label, s})
		}
	}
	vs = append(vs, variant{fmt.Sprintf("expandable_segments: %v", !t.Allocator.ExpandableSegments), [][2]string{{"training.allocator.expandable_segments", fmt.Sprint(!t.Allocator.ExpandableSegments)}}})
	return vs
}

func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("check", "FILE --budget SIZE [--gpu NAME|FILE]", stderr)
	budget := fs.String("budget", "", "memory budget for the nvidia-smi peak, e.g. 80GiB (default: the GPU's total)")
	gpu := fs.String("gpu", "", "GPU profile (default: the description's gpu)")
	pos, code := parseFile(fs, args, stdout)
	if code >= 0 {
		return code
	}
	p, err := newPlanner(pos[0], *gpu)
	if err != nil {
		return fail(stderr, err)
	}
	limit := p.prof.TotalBytes
	if *budget != "" {
		if limit, err = allocator.ParseSize(*budget); err != nil {
			fmt.Fprintf(stderr, "memplan check: --budget: %v\n", err)
			return exitUsage
		}
	}
	r, err := p.estimate()
	if err != nil {
		return fail(stderr, err)
	}
	printWarnings(stderr, r.Warnings)
	retries := releasing(r)
	pk := r.Peak
	line := fmt.Sprintf("%s: nvidia-smi peak %s (allocated %s, reserved %s) in iteration %d %s; budget %s: ",
		r.Name, report.GiB(pk.DeviceUsedBytes), report.GiB(pk.AllocatedBytes), report.GiB(pk.ReservedBytes), pk.Iteration, pk.Phase, report.GiB(limit))
	if pk.DeviceUsedBytes <= limit {
		note := ""
		if limit > p.prof.TotalBytes {
			// A budget past the device: the step fits the budget, but the
			// GPU is what runs out.
			note = fmt.Sprintf(" (the budget is more than the GPU's %s", report.GiB(p.prof.TotalBytes))
			if pk.DeviceUsedBytes > p.prof.TotalBytes {
				note += ", which this step does not fit"
			}
			note += ")"
		}
		fmt.Fprintf(stdout, "FITS %s%s headroom%s%s\n", line, difference(limit-pk.DeviceUsedBytes), retries, note)
		return exitOK
	}
	why := ""
	if r.DeviceError != nil {
		why = fmt.Sprintf(" (simulated at the GPU's %s: %s)", report.GiB(p.prof.TotalBytes), firstLine(r.DeviceError))
	}
	fmt.Fprintf(stdout, "DOES NOT FIT %s%s over%s\n", line, difference(pk.DeviceUsedBytes-limit), why)
	return exitNoFit
}

// sweep estimates the grid of --set values and writes one row per point.
func sweep(path, gpu, format string, sets []string, stdout, stderr io.Writer) error {
	p, err := newPlanner(path, gpu)
	if err != nil {
		return err
	}
	type axis struct {
		key    string
		values []string
	}
	var axes []axis
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		k = strings.TrimSpace(k)
		if !ok || v == "" {
			return usageError{fmt.Errorf("--set %q: want key=v1,v2,… (keys: %s)", s, strings.Join(spec.SettableKeys(), ", "))}
		}
		if !contains(spec.SettableKeys(), k) {
			return usageError{fmt.Errorf("--set %q: unknown key %q (allowed: %s)", s, k, strings.Join(spec.SettableKeys(), ", "))}
		}
		for _, a := range axes {
			if a.key == k {
				return usageError{fmt.Errorf("--set %q: %s is already an axis (give all its values in one --set: %s=%s,%s)", s, k, k, strings.Join(a.values, ","), v)}
			}
		}
		values := strings.Split(v, ",")
		for i := range values {
			values[i] = strings.TrimSpace(values[i])
			if err := p.checkValue(k, values[i]); err != nil {
				if k == "gpu" {
					// a profile that cannot be read, as --gpu's: exit 1
					return fmt.Errorf("--set %q: %w", s, err)
				}
				return usageError{fmt.Errorf("--set %q: %w", s, err)}
			}
		}
		axes = append(axes, axis{k, values})
	}
	header := []string{}
	for _, a := range axes {
		header = append(header, a.key)
	}
	header = append(header, "peak_allocated_bytes", "peak_reserved_bytes", "device_used_bytes", "peak_iteration", "peak_phase", "alloc_retries", "error")
	// The grid in row order; points are estimated concurrently, one worker
	// per CPU, each holding one result at a time.
	var points [][][2]string
	var walk func(i int, cur [][2]string)
	walk = func(i int, cur [][2]string) {
		if i == len(axes) {
			points = append(points, append([][2]string(nil), cur...))
			return
		}
		for _, v := range axes[i].values {
			walk(i+1, append(cur, [2]string{axes[i].key, v}))
		}
	}
	walk(0, nil)
	// One worker per CPU; each estimate uses a second core only when there
	// are fewer points than cores.
	p.serial = len(points) >= runtime.GOMAXPROCS(0)
	warnings := make([][]string, len(points)) // each worker writes its own points'
	rows := inParallel(len(points), func(i int) []string {
		row, w := sweepRow(p, points[i])
		warnings[i] = w
		return row
	})
	if err := writeSweep(stdout, format, header, len(axes), rows); err != nil {
		return err
	}
	printWarnings(stderr, slices.Concat(warnings...))
	failed := 0
	for _, row := range rows {
		if row[len(row)-1] != "" {
			failed++
		}
	}
	if failed > 0 {
		return pointsFailed{failed, len(rows)}
	}
	return nil
}

// usageError is a sweep's --set that cannot be run at all (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// pointsFailed: the sweep wrote every row, and some could not be estimated.
type pointsFailed struct{ failed, total int }

func (e pointsFailed) Error() string {
	return fmt.Sprintf("%d of %d grid points could not be estimated (the error column says why)", e.failed, e.total)
}

// writeSweep writes a sweep's rows (the values of its axes, then the peaks
// or the error) as CSV, JSON lines or a text table.
func writeSweep(stdout io.Writer, format string, header []string, axes int, rows [][]string) error {
	switch format {
	case "csv":
		w := csv.NewWriter(stdout)
		w.Write(header)
		w.WriteAll(rows)
		return w.Error()
	case "json", "jsonl":
		// One object a line, keys in the header's order; numbers, booleans
		// and a null error are written as such.
		for _, row := range rows {
			var line bytes.Buffer
			line.WriteByte('{')
			for i, h := range header {
				if i > 0 {
					line.WriteByte(',')
				}
				k, _ := json.Marshal(h)
				line.Write(k)
				line.WriteByte(':')
				line.Write(jsonCell(row[i], i < axes, i >= axes && i < axes+4 || i == axes+5))
			}
			line.WriteString("}\n")
			if _, err := stdout.Write(line.Bytes()); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(append(header[:axes:axes], "peak allocated", "peak reserved", "nvidia-smi", "peak at"), "\t"))
	// One unit a column, so that its figures compare at a glance: GiB when
	// any of them reaches 10 GiB, MiB otherwise.
	var sizes [3]func(int64) string
	for c := range sizes {
		sizes[c] = report.MiB
		for _, row := range rows {
			if v, err := strconv.ParseInt(row[axes+c], 10, 64); err == nil && v >= 10<<30 {
				sizes[c] = report.GiB
			}
		}
	}
	for _, row := range rows {
		cells := append([]string(nil), row[:axes]...)
		if e := row[len(row)-1]; e != "" {
			// every row has every column, so that tabwriter aligns them all
			cells = append(cells, "—", "—", "—", "error: "+e)
		} else {
			for c, size := range sizes {
				v, _ := strconv.ParseInt(row[axes+c], 10, 64)
				cells = append(cells, size(v))
			}
			at := "iter " + row[axes+3] + " " + row[axes+4]
			if n := row[axes+5]; n != "0" {
				at += " (cache released " + n + "×)"
			}
			cells = append(cells, at)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// checkValue refuses a value key cannot take, before any point runs; a
// GPU's profile is resolved once here for every point that names it.
func (p *planner) checkValue(key, value string) error {
	if key != "gpu" {
		return p.base.CheckSetting(key, value)
	}
	if value == p.base.GPU || p.profiles[value] != nil {
		return nil
	}
	prof, err := calibrate.Resolve(value)
	if err != nil {
		return err
	}
	if p.profiles == nil {
		p.profiles = map[string]*calibrate.Profile{}
	}
	p.profiles[value] = prof
	return nil
}

// jsonCell writes one cell of a sweep's row: an axis value as a number or
// boolean when it reads as one (else a string), a count (a peak, the
// iteration) as a number, the phase and the error as strings; an empty
// cell (a failed point's peaks, a point without error) is null.
func jsonCell(v string, axis, count bool) []byte {
	switch {
	case axis:
		if _, err := strconv.ParseFloat(v, 64); err == nil && json.Valid([]byte(v)) {
			return []byte(v)
		}
		if b, err := strconv.ParseBool(v); err == nil {
			return []byte(strconv.FormatBool(b))
		}
	case v == "":
		return []byte("null")
	case count:
		return []byte(v)
	}
	q, _ := json.Marshal(v)
	return q
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sweepRow estimates one grid point into a row: the values, then the peaks
// (or the error).
func sweepRow(p *planner, point [][2]string) (row, warnings []string) {
	row = make([]string, 0, len(point)+7)
	for _, kv := range point {
		row = append(row, kv[1])
	}
	r, err := p.estimate(point...)
	if err != nil {
		return append(row, "", "", "", "", "", "", firstLine(err)), nil
	}
	// A note about the point's own run (Result.Notes) is said with the point.
	for _, w := range r.Warnings {
		if slices.Contains(r.Notes, w) {
			w = pointName(point) + ": " + w
		}
		warnings = append(warnings, w)
	}
	// alloc_retries: how often the point's allocator released its cached
	// blocks to fit the GPU (0 when it never reached it).
	return append(row, fmt.Sprint(r.Peak.AllocatedBytes), fmt.Sprint(r.Peak.ReservedBytes), fmt.Sprint(r.Peak.DeviceUsedBytes), fmt.Sprint(r.Peak.Iteration), r.Peak.Phase.String(), fmt.Sprint(r.AllocRetries), ""), warnings
}

// pointName is a grid point as --set would give it: key=value, …
func pointName(point [][2]string) string {
	parts := make([]string, len(point))
	for i, kv := range point {
		parts[i] = kv[0] + "=" + kv[1]
	}
	return strings.Join(parts, " ")
}

// printWarnings writes each distinct warning once to stderr, in order:
// check, fit and sweeps print figures only, and a warning about the
// description (a misspelt config key, an uncalibrated profile) must not
// go unseen.
func printWarnings(stderr io.Writer, warnings []string) {
	seen := map[string]bool{}
	for _, w := range warnings {
		if !seen[w] {
			seen[w] = true
			fmt.Fprintf(stderr, "memplan: warning: %s\n", w)
		}
	}
}
