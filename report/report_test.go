package report

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/estimate"
	"github.com/memplan/memplan/spec"
	"github.com/memplan/memplan/spec/family"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// The examples the report tests render.
var examples = []string{"gpt2-fp32-adamw-b8", "mlp10m-fp32-adam"}

var (
	resultsMu sync.Mutex
	results   = map[string]*estimate.Result{}
)

// exampleResult estimates examples/NAME.yaml on the built-in h200 profile,
// with the timeline, once per test binary. Callers must not modify it: use
// freshResult for that.
func exampleResult(t testing.TB, name string) *estimate.Result {
	t.Helper()
	resultsMu.Lock()
	defer resultsMu.Unlock()
	if r, ok := results[name]; ok {
		return r
	}
	r := freshResult(t, name)
	results[name] = r
	return r
}

// freshResult estimates examples/NAME.yaml anew.
func freshResult(t testing.TB, name string) *estimate.Result {
	t.Helper()
	m, err := spec.Load(filepath.Join("..", "examples", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := family.Expand(m)
	if err != nil {
		t.Fatal(err)
	}
	p, err := calibrate.Builtin("h200")
	if err != nil {
		t.Fatal(err)
	}
	r, err := estimate.Run(m, g, p, estimate.Options{Version: "test", Timeline: true})
	if err != nil {
		t.Fatalf("estimating %s: %v", name, err)
	}
	return r
}

// golden compares got with testdata/NAME, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file: %v (run go test ./report/ -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test ./report/ -update after checking the change):\n%s", path, lineDiff(string(want), string(got)))
	}
}

// lineDiff shows where two texts differ: the lines between the common
// prefix and the common suffix, each cut around its first differing byte.
func lineDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var sb strings.Builder
	show := func(sign string, lines []string, other []string) {
		for i, l := range lines {
			if i == 12 {
				fmt.Fprintf(&sb, "%s … %d more lines\n", sign, len(lines)-i)
				break
			}
			o := ""
			if i < len(other) {
				o = other[i]
			}
			fmt.Fprintf(&sb, "%s %s\n", sign, around(l, o))
		}
	}
	fmt.Fprintf(&sb, "@@ line %d @@\n", pre+1)
	show("-", a[pre:len(a)-suf], b[pre:len(b)-suf])
	show("+", b[pre:len(b)-suf], a[pre:len(a)-suf])
	return sb.String()
}

// around cuts a long line to the part around where it first differs from other.
func around(l, other string) string {
	const span = 120
	if len(l) <= 2*span {
		return l
	}
	d := 0
	for d < len(l) && d < len(other) && l[d] == other[d] {
		d++
	}
	lo, hi := max(0, d-span), min(len(l), d+span)
	return fmt.Sprintf("[byte %d] …%s…", d, l[lo:hi])
}

func TestCommas(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 124439808: "124,439,808", -1234567: "-1,234,567"} {
		if got := commas(n); got != want {
			t.Errorf("commas(%d) = %q, want %q", n, got, want)
		}
	}
}
