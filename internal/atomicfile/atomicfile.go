// Package atomicfile writes a file so that readers see either the old
// content or the whole new one: a temporary file in the same folder, written,
// synced and renamed over the target. On error nothing is left behind and an
// existing file is untouched.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data, atomically, with mode 0644.
func Write(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if st, serr := os.Stat(path); serr == nil && st.IsDir() {
		return fmt.Errorf("writing %s: it is a folder (allowed: a file path)", path)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		// The temporary file's name means nothing to the reader: say what
		// is wrong with the folder.
		if st, serr := os.Stat(dir); serr != nil {
			return fmt.Errorf("writing %s: folder %s: %w", path, dir, withoutPath(serr))
		} else if !st.IsDir() {
			return fmt.Errorf("writing %s: %s is not a folder", path, dir)
		}
		return fmt.Errorf("writing %s: cannot create a file in %s: %w", path, dir, withoutPath(err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	// CreateTemp makes the file 0600; what memplan writes is an ordinary document.
	if err = tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync() // make the rename durable where the file system allows
		d.Close()
	}
	return nil
}

// withoutPath returns the cause of a *fs.PathError (the message already
// names the path), or err.
func withoutPath(err error) error {
	var perr *fs.PathError
	if errors.As(err, &perr) {
		return perr.Err
	}
	return err
}
