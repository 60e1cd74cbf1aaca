package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/report"
)

// runReport estimates a description and writes the HTML or XLSX report of
// the result, atomically: memplan report FILE -o out.html|out.xlsx.
func runReport(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("report", "FILE -o out.html|out.xlsx [--gpu NAME|FILE] [--template FILE]", stderr)
	out := fs.String("o", "", "the report to write: .html or .xlsx (also .json, .txt)")
	gpu := fs.String("gpu", "", "GPU profile: a built-in name ("+strings.Join(calibrate.BuiltinNames(), ", ")+") or a calibration file; default: the description's gpu")
	tmpl := fs.String("template", "", "an HTML template to use instead of the embedded one (a copy of templates/report.html.tmpl)")
	pos, code := parseFile(fs, args, stdout)
	if code >= 0 {
		return code
	}
	if *out == "" {
		fmt.Fprintln(stderr, "memplan report: -o is required (the report to write: .html, .xlsx, .json or .txt)")
		fs.Usage()
		return exitUsage
	}
	ext := strings.ToLower(filepath.Ext(*out))
	switch ext {
	case ".html", ".xlsx", ".json", ".txt":
	default:
		fmt.Fprintf(stderr, "memplan report: -o %s: unknown extension %q (allowed: .html, .xlsx, .json, .txt)\n", *out, filepath.Ext(*out))
		return exitUsage
	}
	if *tmpl != "" && ext != ".html" {
		fmt.Fprintf(stderr, "memplan report: --template applies to an .html report only\n")
		return exitUsage
	}
	r, err := estimateFile(pos[0], *gpu, true)
	if err != nil {
		return fail(stderr, err)
	}
	if *tmpl != "" {
		var buf bytes.Buffer
		if err := report.WriteHTML(&buf, r, report.Options{Template: *tmpl}); err != nil {
			return fail(stderr, fmt.Errorf("rendering report %s: %w", *out, err))
		}
		err = writeFileAtomic(*out, buf.Bytes())
	} else {
		err = writeReport(*out, r)
	}
	if err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	return exitOK
}
