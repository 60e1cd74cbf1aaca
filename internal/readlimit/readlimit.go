// Package readlimit reads a whole input file with a bound on its size, so a
// device (/dev/zero), a pipe or a huge file is refused after reading a
// little more than the bound instead of exhausting memory.
package readlimit

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// TooLargeError is a file longer than the bound its reader allowed.
type TooLargeError struct {
	Path  string
	Limit int64
}

// Error names the file and the bound.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %d bytes (allowed: at most %d)", e.Path, e.Limit, e.Limit)
}

// File reads the file at path; more than limit bytes is a *TooLargeError.
func File(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, &os.PathError{Op: "read", Path: path, Err: syscall.EISDIR}
	}
	return Reader(f, path, limit)
}

// Reader reads r to its end; more than limit bytes is a *TooLargeError
// naming path.
func Reader(r io.Reader, path string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return data, nil
}
