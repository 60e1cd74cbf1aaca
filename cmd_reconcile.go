package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	if err := outputNotInput(*out, pos); err != nil {
		fmt.Fprintf(stderr, "memplan reconcile: %v\n", err)
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
	if err := m.SameModel(r, pos[0]); err != nil {
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

// outputNotInput refuses an -o that names one of the inputs, by its cleaned
// path or, when both exist, as the same file (a link, another spelling):
// writing the report there would replace what it was made from.
func outputNotInput(out string, inputs []string) error {
	if out == "" {
		return nil
	}
	names := []string{"the description", "the measured run"}
	outInfo, outErr := os.Stat(out)
	for i, in := range inputs {
		same := samePath(out, in)
		if !same && outErr == nil {
			if inInfo, err := os.Stat(in); err == nil {
				same = os.SameFile(outInfo, inInfo)
			}
		}
		if same {
			what := "an input"
			if i < len(names) {
				what = names[i]
			}
			return fmt.Errorf("-o %s is %s %s (allowed: an output file that is neither input)", out, what, in)
		}
	}
	return nil
}

// samePath reports whether a and b name one path once cleaned and made
// absolute.
func samePath(a, b string) bool {
	a, b = filepath.Clean(a), filepath.Clean(b)
	if a == b {
		return true
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}
