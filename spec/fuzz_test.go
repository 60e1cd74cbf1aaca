package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the description loader: it must never
// panic, and every error must be one line starting with file:line:col.
func FuzzParse(f *testing.F) {
	for _, glob := range []string{"../examples/*.yaml", "../testdata/bad/*.yaml", "testdata/fuzz-seeds/*.yaml"} {
		files, _ := filepath.Glob(glob)
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse("fuzz.yaml", data)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "fuzz.yaml:") && !strings.Contains(msg, ".json:") {
				t.Fatalf("error without position: %q", msg)
			}
			if strings.Contains(msg, "\n") {
				t.Fatalf("multi-line error: %q", msg)
			}
			return
		}
		if m.IsCustom() {
			if g, err := ExpandCustom(m); err == nil {
				for _, tn := range g.Tensors {
					if tn.Bytes < 0 {
						t.Fatalf("negative bytes for %s", tn.Name)
					}
				}
			}
		}
	})
}
