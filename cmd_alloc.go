package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/memplan/memplan/estimate/allocator"
	"github.com/memplan/memplan/report"
)

func runAlloc(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("alloc", "[--expandable] SIZE... (e.g. 4MiB 1024x1024xfp32 21MiB; free:N frees the N-th request)", stderr)
	expandable := fs.Bool("expandable", false, "model expandable_segments:True")
	pos, code := parseArgs(fs, args, stdout)
	if code >= 0 {
		return code
	}
	if len(pos) == 0 {
		fmt.Fprintln(stderr, "memplan alloc: no requests (give sizes such as 4MiB or 1024x1024xfp32, and free:N)")
		fs.Usage()
		return exitUsage
	}
	a := allocator.New(allocator.Config{ExpandableSegments: *expandable})
	var blocks []allocator.BlockID
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "step\trequest\tbytes\tallocated\treserved\tinactive split\tsegments\t")
	for i, arg := range pos {
		var label string
		var n int64
		var freeIdx int
		if _, err := fmt.Sscanf(arg, "free:%d", &freeIdx); err == nil {
			switch {
			case len(blocks) == 0:
				return fail(stderr, fmt.Errorf("alloc: %q frees request %d, but no request was made before it (allowed: free:N after the N-th size)", arg, freeIdx))
			case freeIdx < 1 || freeIdx > len(blocks):
				return fail(stderr, fmt.Errorf("alloc: %q frees request %d, but only %d were made (allowed: free:1 to free:%d)", arg, freeIdx, len(blocks), len(blocks)))
			}
			// The freed block's bytes, counted negative: what the row gives back.
			n = -a.BlockSize(blocks[freeIdx-1])
			if err := a.Free(blocks[freeIdx-1]); err != nil {
				return fail(stderr, fmt.Errorf("alloc: %s: %w", arg, err))
			}
			label = arg
		} else {
			size, err := allocator.ParseSize(arg)
			if err != nil {
				return fail(stderr, fmt.Errorf("alloc: %w", err))
			}
			blk, err := a.Malloc(size, 0)
			if err != nil {
				return fail(stderr, fmt.Errorf("alloc: %s: %w", arg, err))
			}
			blocks = append(blocks, blk)
			label, n = arg, size
		}
		st := a.Stats()
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%s\t%d\t\n", i+1, label, n, report.MiB(st.Allocated), report.MiB(st.Reserved), report.MiB(st.InactiveSplit), st.Segments)
	}
	if err := tw.Flush(); err != nil {
		return fail(stderr, err)
	}
	return exitOK
}
