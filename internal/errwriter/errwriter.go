// Package errwriter wraps an io.Writer so that a renderer can print freely
// and check one error at the end: the first write error is kept and every
// later write is skipped.
package errwriter

import (
	"fmt"
	"io"
)

// Writer keeps the first error of the writes to W.
type Writer struct {
	W   io.Writer
	Err error
}

// New wraps w.
func New(w io.Writer) *Writer { return &Writer{W: w} }

// Write writes p unless an earlier write failed.
func (e *Writer) Write(p []byte) (int, error) {
	if e.Err != nil {
		return 0, e.Err
	}
	n, err := e.W.Write(p)
	e.Err = err
	return n, err
}

// Printf formats onto the writer.
func (e *Writer) Printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }
