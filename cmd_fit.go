package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/memplan/memplan/estimate"
	"github.com/memplan/memplan/report"
	"github.com/memplan/memplan/spec"
)

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
