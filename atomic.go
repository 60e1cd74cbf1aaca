package main

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memplan/memplan/internal/atomicfile"
)

// writeFileAtomic writes data to path through a temporary file in the same
// folder, synced and renamed, so an error never leaves a partial file.
func writeFileAtomic(path string, data []byte) error { return atomicfile.Write(path, data) }

// output gathers a command's output, then writes it whole: to the file -o
// names (atomically, saying so on stdout), or to stdout when -o is empty.
type output struct {
	bytes.Buffer
	path   string
	stdout io.Writer
}

// done writes what was gathered.
func (o *output) done() error {
	if o.path == "" {
		_, err := o.stdout.Write(o.Bytes())
		return err
	}
	if err := writeFileAtomic(o.path, o.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(o.stdout, "wrote %s\n", o.path)
	return nil
}

// formatFor returns what to write as: format, or, when -o names a file, the
// format its extension stands for in byExt, which must agree with format
// when that was given. The error is a usage message.
func formatFor(format string, given bool, out string, byExt map[string]string) (string, error) {
	if out == "" {
		return format, nil
	}
	f, ok := byExt[strings.ToLower(filepath.Ext(out))]
	if !ok {
		return "", fmt.Errorf("-o %s: unknown extension %q (allowed here: %s)", out, filepath.Ext(out), strings.Join(slices.Sorted(maps.Keys(byExt)), ", "))
	}
	if given && f != format {
		return "", fmt.Errorf("--format %s and -o %s disagree (the extension sets the format; give one of them)", format, out)
	}
	return f, nil
}
