package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/memplan/memplan/estimate"
	"github.com/memplan/memplan/internal/errwriter"
)

// WriteText renders the terminal table: phases per iteration, the peak with
// what sets it, the nvidia-smi figure, the terms and the warnings.
func WriteText(w io.Writer, r *estimate.Result, opt Options) error {
	ew := errwriter.New(w)
	title := r.Name
	if opt.Title != "" {
		title = opt.Title
	}
	ew.Printf("%s — memplan %s, GPU %s (profile %s)\n", title, r.Version, r.GPU.Name, r.GPU.Profile)
	ew.Printf("model: %d parameters, %s (%.1f MB)\n", r.Model.Parameters, MiB(r.Model.ParameterBytes), float64(r.Model.ParameterBytes)/1e6)
	if pr := r.Parallel; pr != nil {
		ew.Printf("per rank (rank %d of %s): parameters %s, gradients %s, optimizer state %s; global batch %d\n",
			pr.Rank, pr.Layout, MiB(pr.ParameterBytes), MiB(pr.GradientBytes), MiB(pr.OptimizerStateBytes), pr.GlobalBatch)
	} else if layout, batch := inputValue(r, "parallel"), inputValue(r, "global batch"); layout != "" {
		ew.Printf("%s; global batch %s\n", layout, batch) // one rank's gradient accumulation
	}
	ew.Printf("\n")
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "iteration\tphase\tpeak allocated\tpeak reserved\tend allocated\tend reserved\t")
	// One unit for the whole table: GiB once any figure reaches 10 GiB.
	unit := MiB
	for _, it := range r.Iterations {
		for _, ph := range it.Phases {
			if ph.PeakReservedBytes >= 10<<30 {
				unit = GiB
			}
		}
	}
	for _, it := range r.Iterations {
		label := fmt.Sprint(it.Iteration)
		if it.Iteration == 2 {
			label = "2 (steady)"
		}
		for _, ph := range it.Phases {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", label, ph.Phase, unit(ph.PeakAllocatedBytes), unit(ph.PeakReservedBytes), unit(ph.EndAllocatedBytes), unit(ph.EndReservedBytes))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	p := r.Peak
	ew.Printf("\npeak: %s allocated in iteration %d %s", Size(p.AllocatedBytes), p.Iteration, p.Phase)
	if p.Op != "" {
		ew.Printf(" (at %s)", p.Op)
	}
	ew.Printf("; %s reserved\n", Size(p.ReservedBytes))
	ew.Printf("nvidia-smi (process): %s", Size(p.DeviceUsedBytes))
	if r.GPU.TotalBytes > 0 {
		head := r.GPU.TotalBytes - p.DeviceUsedBytes
		if head >= 0 {
			ew.Printf(" — fits %s with %s headroom (%.0f%%)", GiB(r.GPU.TotalBytes), GiB(head), 100*float64(head)/float64(r.GPU.TotalBytes))
		} else {
			ew.Printf(" — does NOT fit %s: %s over", GiB(r.GPU.TotalBytes), GiB(-head))
		}
	}
	ew.Printf("\n")
	if note := releasedNote(r); note != "" {
		ew.Printf("%s\n", note)
	}
	if ph := peakPhase(r); ph != nil && len(ph.PeakByRole) > 0 {
		var parts []string
		for _, k := range estimate.SortedRoles(ph.PeakByRole) {
			parts = append(parts, fmt.Sprintf("%s %s", k, MiB(ph.PeakByRole[k])))
		}
		ew.Printf("live at the peak, in allocator blocks (parameter includes buffers): %s\n", strings.Join(parts, ", "))
	}
	for _, g := range r.Gaps {
		ew.Printf("%s → %s: +%s: %s\n", g.From, g.To, MiB(g.Bytes), g.Cause)
	}
	ew.Printf("\nterms:\n")
	tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	for _, t := range r.Terms {
		mark := "included"
		if !t.Included {
			mark = "excluded"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", mark, t.Name, MiB(t.Bytes), t.Note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Warnings) > 0 {
		ew.Printf("\nwarnings:\n")
		for _, w := range r.Warnings {
			ew.Printf("  - %s\n", w)
		}
	}
	return ew.Err
}

// peakPhase returns the phase run holding the overall allocated peak.
func peakPhase(r *estimate.Result) *estimate.PhaseRun {
	for i := range r.Iterations {
		if r.Iterations[i].Iteration != r.Peak.Iteration {
			continue
		}
		for j := range r.Iterations[i].Phases {
			if r.Iterations[i].Phases[j].Phase == r.Peak.Phase {
				return &r.Iterations[i].Phases[j]
			}
		}
	}
	return nil
}

// inputValue returns the training input named key, or "".
func inputValue(r *estimate.Result, key string) string {
	for _, kv := range r.Inputs.Training {
		if kv.Key == key {
			return kv.Value
		}
	}
	return ""
}

// releasedNote says how a step fits the GPU only by releasing cached
// blocks (estimate.Result.UnlimitedPeak), or is empty.
func releasedNote(r *estimate.Result) string {
	u := r.UnlimitedPeak
	if u == nil {
		return ""
	}
	return fmt.Sprintf("at the GPU's limit the allocator releases its cached blocks %s to make room (PyTorch's num_alloc_retries, each a synchronizing cudaFree): the step fits, more slowly; unlimited it would reserve %s (nvidia-smi %s)",
		Times(r.AllocRetries), Size(u.ReservedBytes), Size(u.DeviceUsedBytes))
}
