package main

import (
	"fmt"
	"io"

	"github.com/memplan/memplan/calibrate"
)

func runCalibrate(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("calibrate", "[-o FILE] [--device N]", stderr)
	out := fs.String("o", "gpu-profile.yaml", "where to write the profile")
	device := fs.Int("device", 0, "CUDA device index")
	pos, code := parseArgs(fs, args, stdout)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		fs.Usage()
		return exitUsage
	}
	p, err := calibrate.Run(calibrate.Options{Device: *device, Output: *out}, stderr)
	if err != nil {
		return fail(stderr, err)
	}
	if err := calibrate.WriteFile(*out, p); err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "wrote %s (%s)\n", *out, p.GPUName)
	return exitOK
}
