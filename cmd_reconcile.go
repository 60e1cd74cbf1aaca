package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
	f := *format
	if f != "" && f != "text" && f != "html" && f != "json" {
		fmt.Fprintf(stderr, "memplan reconcile: --format %q (allowed: text, html, json)\n", f)
		return exitUsage
	}
	if *out != "" {
		byExt := map[string]string{".html": "html", ".htm": "html", ".json": "json", ".txt": "text"}[strings.ToLower(filepath.Ext(*out))]
		switch {
		case byExt == "":
			fmt.Fprintf(stderr, "memplan reconcile: -o %s: unknown extension %q (allowed: .html, .json, .txt)\n", *out, filepath.Ext(*out))
			return exitUsage
		case f != "" && f != byExt:
			fmt.Fprintf(stderr, "memplan reconcile: --format %s and -o %s disagree (the extension sets the format; give one of them)\n", f, *out)
			return exitUsage
		}
		f = byExt
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
	var buf bytes.Buffer
	switch f {
	case "html":
		err = reconcile.WriteHTML(&buf, rep)
	case "json":
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	default:
		err = reconcile.WriteText(&buf, rep)
	}
	if err != nil {
		return fail(stderr, err)
	}
	if *out != "" {
		if err := writeFileAtomic(*out, buf.Bytes()); err != nil {
			return fail(stderr, err)
		}
		fmt.Fprintf(stdout, "wrote %s\n", *out)
		return exitOK
	}
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		return fail(stderr, err)
	}
	return exitOK
}
