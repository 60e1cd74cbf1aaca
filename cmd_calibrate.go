package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/spec"
	"github.com/memplan/memplan/spec/family"
)

func runCalibrate(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("calibrate", "[-o FILE] [--device N] [--convs MODEL.yaml]...", stderr)
	out := fs.String("o", "gpu-profile.yaml", "where to write the profile")
	device := fs.Int("device", 0, "CUDA device index")
	var convFiles listFlag
	fs.Var(&convFiles, "convs", "also measure the cuDNN workspaces of every convolution of this description, at its batch size and 1–256 (repeatable)")
	pos, code := parseArgs(fs, args, stdout)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "memplan calibrate: takes no arguments (descriptions go after --convs), got %d%s\n", len(pos), listed(pos))
		fs.Usage()
		return exitUsage
	}
	geos, err := convGeometries(convFiles)
	if err != nil {
		return fail(stderr, err)
	}
	p, err := calibrate.Run(calibrate.Options{Device: *device, Output: *out, Convs: geos}, stderr)
	if err != nil {
		return fail(stderr, err)
	}
	if err := calibrate.WriteFile(*out, p); err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "wrote %s (%s", *out, p.GPUName)
	if len(p.ConvWorkspaces) > 0 {
		fmt.Fprintf(stdout, "; %d convolution geometries", len(p.ConvWorkspaces))
	}
	fmt.Fprintln(stdout, ")")
	return exitOK
}

// convGeometries lists the convolutions of the descriptions to measure:
// each distinct geometry at the description's batch size and at the batch
// sizes the workspace tables interpolate between (the geometry's batch
// dimension scaled with the description's), so that fit and sweeps over
// the batch find them measured.
func convGeometries(files []string) ([]spec.ConvGeometry, error) {
	var out []spec.ConvGeometry
	seen := map[spec.ConvGeometry]bool{}
	add := func(g spec.ConvGeometry) {
		if !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	for _, f := range files {
		m, err := spec.Load(f)
		if err != nil {
			return nil, err
		}
		g, err := family.Expand(m)
		if err != nil {
			return nil, err
		}
		if len(g.Convs) == 0 {
			return nil, fmt.Errorf("%s: --convs: the description has no convolution (allowed: a description with conv2d layers, a ResNet or a ViT)", f)
		}
		batch := m.Training.BatchSize
		for _, c := range g.Convs {
			geo := c.Geometry
			add(geo)
			if batch <= 0 || geo.N%batch != 0 {
				continue
			}
			per := geo.N / batch
			for _, b := range spec.ConvTableBatches() {
				geo.N = per * b
				add(geo)
			}
		}
	}
	slices.SortFunc(out, compareGeometry)
	return out, nil
}

// compareGeometry orders geometries by shape, then batch.
func compareGeometry(a, b spec.ConvGeometry) int {
	ka := [...]int64{int64(a.DType), a.Cin, a.H, a.W, a.Cout, a.KH, a.KW, a.Stride, a.Pad, a.Groups, a.N}
	kb := [...]int64{int64(b.DType), b.Cin, b.H, b.W, b.Cout, b.KH, b.KW, b.Stride, b.Pad, b.Groups, b.N}
	return slices.Compare(ka[:], kb[:])
}
