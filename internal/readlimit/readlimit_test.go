package readlimit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := File(p, 5); err != nil || string(b) != "12345" {
		t.Errorf("at the limit: %q, %v", b, err)
	}
	var tl *TooLargeError
	if _, err := File(p, 4); !errors.As(err, &tl) || tl.Limit != 4 {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := File(dir, 4); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
	// A device never ends: only limit+1 bytes are read.
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := File("/dev/zero", 1<<20); !errors.As(err, &tl) {
			t.Errorf("/dev/zero: %v", err)
		}
	}
}
