package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/estimate"
	"github.com/memplan/memplan/report"
	"github.com/memplan/memplan/spec"
	"github.com/memplan/memplan/spec/family"
)

// loadModel reads a description and expands it.
func loadModel(path string) (*spec.Model, *spec.Graph, error) {
	m, err := spec.Load(path)
	if err != nil {
		return nil, nil, err
	}
	g, err := family.Expand(m)
	if err != nil {
		return nil, nil, err
	}
	return m, g, nil
}

// estimateFile runs the whole pipeline for one description.
func estimateFile(path, gpu string, timeline bool) (*estimate.Result, error) {
	m, err := spec.Load(path)
	if err != nil {
		return nil, err
	}
	fromFile := gpu == ""
	if fromFile {
		gpu = m.GPUProfile()
	}
	prof, err := calibrate.Resolve(gpu)
	if err != nil {
		if fromFile && m.Pos["gpu"].Line > 0 {
			return nil, m.At("gpu").Errorf("%v", err)
		}
		return nil, err
	}
	m.Training.ConvWorkspaces = prof.ConvTable()
	g, err := family.Expand(m)
	if err != nil {
		return nil, err
	}
	return estimate.Run(m, g, prof, estimate.Options{Version: version, Timeline: timeline, Concurrent: runtime.GOMAXPROCS(0) > 1, OnDevice: true})
}

func runEstimate(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("estimate", "FILE [--format text|json] [--gpu NAME|FILE] [-o FILE]", stderr)
	format := fs.String("format", "text", "output format: text or json (with --set: text, jsonl or csv)")
	gpu := fs.String("gpu", "", "GPU profile: a built-in name ("+strings.Join(calibrate.BuiltinNames(), ", ")+") or a calibration file; default: the description's gpu")
	out := fs.String("o", "", "write a file instead of printing: a report (.html, .xlsx, .json, .txt); with --set the grid (.csv, .jsonl, .txt); with --events the events (.tsv, .txt)")
	events := fs.Bool("events", false, "print every allocator event of iteration 1 and the steady state (tab-separated) instead of the summary")
	var sets listFlag
	fs.Var(&sets, "set", "sweep: key=v1,v2,… (repeatable; keys: "+strings.Join(spec.SettableKeys(), ", ")+"); prints one row per grid point (--format text|jsonl|csv)")
	pos, code := parseFile(fs, args, stdout)
	if code >= 0 {
		return code
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "memplan estimate: "+format+"\n", a...)
		return exitUsage
	}
	formatGiven := false
	fs.Visit(func(f *flag.Flag) { formatGiven = formatGiven || f.Name == "format" })
	// What is written, and as what: --format, or the extension of -o
	// (the two must agree when both are given).
	var allowed map[string]string // format by extension of -o
	switch {
	case len(sets) > 0 && *events:
		return usage("--events and --set do not go together (a sweep prints one row per point)")
	case len(sets) > 0:
		if *format == "json" {
			*format = "jsonl"
		}
		if *format != "text" && *format != "jsonl" && *format != "csv" {
			return usage("--format %q with --set (allowed: text, jsonl, csv)", *format)
		}
		allowed = map[string]string{".csv": "csv", ".jsonl": "jsonl", ".json": "jsonl", ".txt": "text"}
	case *events:
		if formatGiven && *format != "text" {
			return usage("--format %q with --events (the events are tab-separated text)", *format)
		}
		allowed = map[string]string{".tsv": "text", ".txt": "text"}
	default:
		if *format != "text" && *format != "json" {
			return usage("--format %q (allowed: text, json)", *format)
		}
		allowed = map[string]string{".json": "json", ".txt": "text", ".html": "html", ".xlsx": "xlsx"}
	}
	f, err := formatFor(*format, formatGiven, *out, allowed)
	if err != nil {
		return usage("%v", err)
	}
	*format = f
	dst := &output{path: *out, stdout: stdout}
	if len(sets) > 0 {
		err := sweep(pos[0], *gpu, *format, sets, dst, stderr)
		var ue usageError
		if errors.As(err, &ue) {
			return usage("%v", err)
		}
		var pf pointsFailed
		if err == nil || errors.As(err, &pf) { // every row was written
			if derr := dst.done(); derr != nil {
				return fail(stderr, derr)
			}
		}
		if err != nil {
			return fail(stderr, err)
		}
		return exitOK
	}
	r, err := estimateFile(pos[0], *gpu, *out != "" || *events)
	if err != nil {
		return fail(stderr, err)
	}
	if *events {
		if err := report.WriteEvents(dst, r); err != nil {
			return fail(stderr, err)
		}
		if err := dst.done(); err != nil {
			return fail(stderr, err)
		}
		return exitOK
	}
	if *out != "" {
		if err := writeReport(*out, r); err != nil {
			return fail(stderr, err)
		}
		fmt.Fprintf(stdout, "wrote %s\n", *out)
		return exitOK
	}
	if *format == "json" {
		err = report.WriteJSON(stdout, r, report.Options{})
	} else {
		err = report.WriteText(stdout, r, report.Options{})
	}
	if err != nil {
		return fail(stderr, err)
	}
	return exitOK
}

// writeReport renders r into path by its extension, atomically.
func writeReport(path string, r *estimate.Result) error {
	var buf bytes.Buffer
	var err error
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		err = report.WriteJSON(&buf, r, report.Options{})
	case ".txt":
		err = report.WriteText(&buf, r, report.Options{})
	case ".html":
		err = report.WriteHTML(&buf, r, report.Options{})
	case ".xlsx":
		err = report.WriteXLSX(&buf, r, report.Options{})
	default:
		return fmt.Errorf("writing report %s: unknown extension %q (allowed: .html, .xlsx, .json, .txt)", path, filepath.Ext(path))
	}
	if err != nil {
		return fmt.Errorf("rendering report %s: %w", path, err)
	}
	return writeFileAtomic(path, buf.Bytes())
}

func runShapes(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("shapes", "FILE [--format text|json]", stderr)
	format := fs.String("format", "text", "output format: text or json")
	pos, code := parseFile(fs, args, stdout)
	if code >= 0 {
		return code
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "memplan shapes: --format %q (allowed: text, json)\n", *format)
		return exitUsage
	}
	_, g, err := loadModel(pos[0])
	if err != nil {
		return fail(stderr, err)
	}
	if *format == "json" {
		if err := report.WriteShapesJSON(stdout, g); err != nil {
			return fail(stderr, err)
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "layer\top\ttensor\tshape\tdtype\tbytes\trole")
	row := func(layer, op string, id spec.TensorID, role string) {
		t := g.Tensor(id)
		b := fmt.Sprint(t.Bytes)
		if t.Alias != spec.NoTensor {
			b = "0 (view of " + g.Tensor(t.Alias).Name + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", layer, op, t.Name, spec.FormatShape(t.Shape), t.DType, b, role)
	}
	for _, id := range g.Resident {
		row("(model)", "-", id, g.Tensor(id).Role.String())
	}
	for _, id := range g.Inputs {
		row("(batch)", "-", id, "input")
	}
	for i := range g.Ops {
		op := &g.Ops[i]
		saved := map[spec.TensorID]bool{}
		for _, s := range op.Saved {
			saved[s] = true
		}
		for _, id := range op.Extra {
			row(op.Layer, op.Kind, id, "saved (extra)")
		}
		for _, id := range op.Outputs {
			role := "activation"
			if saved[id] {
				role = "activation, saved"
			}
			row(op.Layer, op.Kind, id, role)
		}
		for _, id := range op.Temps {
			row(op.Layer, op.Kind, id, "temporary")
		}
		for _, id := range op.Saved {
			if g.Tensor(id).Op != i {
				row(op.Layer, op.Kind, id, "saved (reference)")
			}
		}
		for _, id := range op.GradInputs {
			if id != spec.NoTensor {
				row(op.Layer, op.Kind+" backward", id, "activation gradient")
			}
		}
		for _, id := range op.BackwardTemps {
			row(op.Layer, op.Kind+" backward", id, "temporary (backward)")
		}
	}
	if err := tw.Flush(); err != nil {
		return fail(stderr, err)
	}
	return exitOK
}
