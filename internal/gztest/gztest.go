// Package gztest opens gzipped test data: the measured traces and recorded
// event streams the tests of several packages read.
package gztest

import (
	"compress/gzip"
	"io"
	"os"
	"testing"
)

// Open returns the decompressed contents of the gzipped file at path, read
// to its end by the caller; the file and the decompressor are closed when
// the test ends. A file that cannot be opened or is not gzip fails the test.
func Open(t testing.TB, path string) io.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	t.Cleanup(func() { zr.Close() })
	return zr
}
