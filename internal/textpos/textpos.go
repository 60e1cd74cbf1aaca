// Package textpos turns byte offsets in a file's text into the 1-based
// line and column that error messages give (file:line:col).
package textpos

import (
	"bytes"
	"unicode/utf8"
)

// LineCol returns the line and column of the 0-based byte offset off in
// data, the column counted in characters; off is clamped to data.
func LineCol(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte("\n"))
	if nl := bytes.LastIndexByte(before, '\n'); nl >= 0 {
		before = before[nl+1:]
	}
	return line, 1 + utf8.RuneCount(before)
}
