package main

import (
	"fmt"
	"io"

	"github.com/memplan/memplan/estimate/allocator"
	"github.com/memplan/memplan/report"
)

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
