package reconcile

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/memplan/memplan/internal/errwriter"
)

// WriteText renders the report for a terminal: the per-phase table, the
// nvidia-smi comparison, the terms and the explained gaps.
func WriteText(w io.Writer, rep *Report) error {
	ew := errwriter.New(w)
	ew.Printf("reconcile %s\n", rep.Name)
	ew.Printf("  estimate: memplan %s, profile %s (%s), %d parameters\n", rep.Version, rep.Profile, rep.GPU, rep.Parameters.Estimated)
	ew.Printf("  measured: %s, %s, torch %s, %d parameters, %d iterations (run iterations count from 0)\n\n", rep.MeasuredCase, orDash(rep.MeasuredGPU), orDash(rep.Torch), rep.Parameters.Measured, rep.Iterations)

	ew.Printf("per phase (estimated / measured, MiB; error = estimated − measured):\n")
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "iteration\trun\tphase\t")
	for _, f := range phaseFigures {
		fmt.Fprintf(tw, "%s\terror\t", f)
	}
	fmt.Fprintln(tw)
	for i := range rep.Rows {
		r := &rep.Rows[i]
		fmt.Fprintf(tw, "%d\t%d\t%s\t", r.Iteration, r.MeasuredIteration, r.Phase)
		for _, f := range phaseFigures {
			p := r.Pair(f)
			fmt.Fprintf(tw, "%s / %s\t%s\t", num(p.Estimated), num(p.Measured), errText(p))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	d := rep.Device
	ew.Printf("\nnvidia-smi (process): estimated %s at the peak, measured %s at the end of the run, error %s\n", mib(d.Used.Estimated), mib(d.Used.Measured), errText(d.Used))
	ew.Printf("  reserved %s / %s (%s); outside the allocator %s / %s (%s)\n",
		mib(d.Reserved.Estimated), mib(d.Reserved.Measured), errText(d.Reserved), mib(d.Outside.Estimated), mib(d.Outside.Measured), errText(d.Outside))
	if rep.Largest != nil {
		row := &rep.Rows[rep.Largest.Row]
		ew.Printf("largest per-phase miss: %s %s, %s\n", row.Label(), rep.Largest.Figure, errText(rep.Largest.Pair))
	}

	ew.Printf("\nterms (estimated; measured where the run records it):\n")
	tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	for _, t := range rep.Terms {
		mark := "included"
		if !t.Included {
			mark = "excluded"
		}
		meas := ""
		if t.Measured >= 0 {
			meas = "measured " + mib(t.Measured)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", mark, t.Name, mib(t.Bytes), meas, t.Note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	ew.Printf("\ngaps and their likely causes:\n")
	for _, c := range rep.Causes {
		ew.Printf("  - %s: %s\n", c.Kind, c.Text)
	}
	if len(rep.Warnings) > 0 {
		ew.Printf("\nwarnings:\n")
		for _, w := range rep.Warnings {
			ew.Printf("  - %s\n", w)
		}
	}
	return ew.Err
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// num formats bytes as a bare MiB number for the table ("–" where unknown).
func num(b int64) string {
	if b == Unknown {
		return "–"
	}
	return fmt.Sprintf("%.1f", float64(b)/(1<<20))
}
