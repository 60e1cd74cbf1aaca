package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	if err := Write(p, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("two")); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "two" {
		t.Errorf("content %q", got)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode())
	}
	missing := filepath.Join(dir, "missing")
	if err := Write(filepath.Join(missing, "b.txt"), []byte("x")); err == nil || !errors.Is(err, fs.ErrNotExist) ||
		err.Error() != "writing "+filepath.Join(missing, "b.txt")+": folder "+missing+": no such file or directory" {
		t.Errorf("a missing folder: %v (want it named, and no temporary file)", err)
	}
	if err := Write(filepath.Join(p, "c.txt"), []byte("x")); err == nil || !strings.HasSuffix(err.Error(), p+" is not a folder") {
		t.Errorf("a file as the folder: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

// A folder at the path is named as such, not as a failed rename.
func TestWriteOverFolder(t *testing.T) {
	dir := t.TempDir()
	err := Write(dir, []byte("x"))
	if err == nil || !strings.Contains(err.Error(), "it is a folder (allowed: a file path)") {
		t.Errorf("over a folder: %v", err)
	}
}
