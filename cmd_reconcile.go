package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/reconcile"
)

func runReconcile(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("reconcile", "FILE.yaml measured.json [--format text|html|json] [--gpu NAME|FILE] [-o out.html|.txt|.json]", stderr)
	format := fs.String("format", "", "output format: text, html or json (default: from -o's extension, else text)")
	gpu := fs.String("gpu", "", "GPU profile: a built-in name ("+strings.Join(calibrate.BuiltinNames(), ", ")+") or a calibration file; default: the description's gpu")
	out := fs.String("o", "", "write to this file instead of standard output")
	pos, code := parseArgs(fs, args, stdout)
	if code >= 0 {
		return code
	}
	if len(pos) != 2 {
		fmt.Fprintf(stderr, "memplan reconcile: want a description and a measured run, got %d arguments%s\n", len(pos), listed(pos))
		fs.Usage()
		return exitUsage
	}
	f := *format
	if f != "" && f != "text" && f != "html" && f != "json" {
		fmt.Fprintf(stderr, "memplan reconcile: --format %q (allowed: text, html, json)\n", f)
		return exitUsage
	}
	f, err := formatFor(f, f != "", *out, map[string]string{".html": "html", ".htm": "html", ".json": "json", ".txt": "text"})
	if err != nil {
		fmt.Fprintf(stderr, "memplan reconcile: %v\n", err)
		return exitUsage
	}
	if f == "" {
		f = "text"
	}
	m, err := reconcile.ReadMeasured(pos[1])
	if err != nil {
		return fail(stderr, err)
	}
	r, err := estimateFile(pos[0], *gpu, false)
	if err != nil {
		return fail(stderr, err)
	}
	rep := reconcile.Compare(r, m)
	dst := &output{path: *out, stdout: stdout}
	switch f {
	case "html":
		err = reconcile.WriteHTML(dst, rep)
	case "json":
		enc := json.NewEncoder(dst)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	default:
		err = reconcile.WriteText(dst, rep)
	}
	if err == nil {
		err = dst.done()
	}
	if err != nil {
		return fail(stderr, err)
	}
	return exitOK
}
