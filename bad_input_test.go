package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files from the current output")

// TestBadInput runs every malformed description under testdata/bad and
// compares memplan's one-line error with the .err file beside it.
func TestBadInput(t *testing.T) {
	files, _ := filepath.Glob("testdata/bad/*.yaml")
	if len(files) < 40 {
		t.Fatalf("only %d bad descriptions; the corpus needs at least 40", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runCLI("estimate", f)
			if code != exitFailed {
				t.Fatalf("exit %d, want %d; stdout %q", code, exitFailed, stdout)
			}
			if stdout != "" {
				t.Errorf("stdout must stay empty on error, got %q", stdout)
			}
			if strings.Count(stderr, "\n") != 1 {
				t.Errorf("want one line, got %q", stderr)
			}
			golden := strings.TrimSuffix(f, ".yaml") + ".err"
			if *update {
				if err := os.WriteFile(golden, []byte(stderr), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run BadInput -update to create it)", err)
			}
			if stderr != string(want) {
				t.Errorf("error differs\n got: %s want: %s", stderr, want)
			}
			if !strings.HasPrefix(stderr, "memplan: testdata/bad/") {
				t.Errorf("error must start with file:line:col, got %q", stderr)
			}
		})
	}
}
