package report

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// screenshotPath is where TestHTMLInChromium leaves its picture of the GPT-2
// report (ignored by git: it is remade on every run).
const screenshotPath = "testdata/screenshot-gpt2-fp32-adamw-b8.png"

// chromiumPath finds Debian's chromium (or $MEMPLAN_CHROMIUM).
func chromiumPath() (string, error) {
	if p := os.Getenv("MEMPLAN_CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium in PATH (Debian: apt-get install -y chromium; .ci/run installs it when missing)")
}

// errNoStart marks a Chromium that could not be started at all.
var errNoStart = errors.New("chromium did not start")

// runChromium runs headless Chromium on url with the extra flags, in a new
// empty profile, and returns its stdout and stderr.
func runChromium(t *testing.T, bin, url string, extra ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio",
		"--user-data-dir=" + t.TempDir(),
		// Console messages and uncaught exceptions go to stderr as CONSOLE lines.
		"--enable-logging=stderr", "--v=0",
	}
	args = append(args, extra...)
	args = append(args, url)
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if out.Len() == 0 {
			return out.String(), errb.String(), errors.Join(errNoStart, err)
		}
		return out.String(), errb.String(), err
	}
	return out.String(), errb.String(), nil
}

var consoleLine = regexp.MustCompile(`(?m)^.*:CONSOLE[:(].*$`)

// TestHTMLInChromium opens the GPT-2 report and the report with hostile
// names in headless Chromium: every chart must have drawn its canvas, the
// console must stay silent (no errors, no exceptions), and a screenshot of
// the GPT-2 page is saved under testdata/.
func TestHTMLInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode: starts Chromium")
	}
	bin, err := chromiumPath()
	if err != nil {
		t.Skipf("cannot run Chromium: %v", err)
	}
	dir := t.TempDir()
	pages := map[string]string{
		"gpt2":    renderHTML(t, exampleResult(t, "gpt2-fp32-adamw-b8"), Options{}),
		"hostile": renderHTML(t, hostileResult(t), Options{}),
	}
	for _, name := range []string{"gpt2", "hostile"} {
		path := filepath.Join(dir, name+".html")
		if err := os.WriteFile(path, []byte(pages[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		url := "file://" + path
		dom, logs, err := runChromium(t, bin, url, "--virtual-time-budget=15000", "--dump-dom")
		if errors.Is(err, errNoStart) {
			t.Skipf("cannot start Chromium (%s): %v\n%s", bin, err, tail(logs, 2000))
		}
		if err != nil {
			t.Fatalf("%s: chromium: %v\n%s", name, err, tail(logs, 2000))
		}
		if msgs := consoleLine.FindAllString(logs, -1); len(msgs) > 0 {
			t.Errorf("%s: the page wrote to the console:\n%s", name, strings.Join(msgs, "\n"))
		}
		for _, id := range []string{"chart-timeline-1", "chart-timeline-2", "chart-roles"} {
			i := strings.Index(dom, `id="`+id+`"`)
			if i < 0 {
				t.Errorf("%s: the DOM has no chart %s", name, id)
				continue
			}
			rest := dom[i:]
			if j := strings.Index(rest[1:], `id="chart-`); j >= 0 {
				rest = rest[:j+1]
			}
			if !strings.Contains(rest, "<canvas") {
				t.Errorf("%s: chart %s drew no canvas", name, id)
			}
		}
		if name == "hostile" {
			if strings.Contains(dom, "<b>x") {
				t.Error("hostile: a name from the description became markup in the DOM")
			}
			if !strings.Contains(dom, "<h1>&lt;/script&gt;&lt;b&gt;x</h1>") {
				t.Error("hostile: the title is not shown as text")
			}
			continue
		}
		shot, err := filepath.Abs(screenshotPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(shot); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		_, logs, err = runChromium(t, bin, url, "--virtual-time-budget=15000", "--window-size=1280,4400", "--screenshot="+shot)
		if err != nil {
			t.Fatalf("screenshot: %v\n%s", err, tail(logs, 2000))
		}
		st, err := os.Stat(shot)
		if err != nil || st.Size() < 50_000 {
			t.Fatalf("screenshot %s missing or too small (%v)", shot, err)
		}
		t.Logf("screenshot: %s (%d bytes)", shot, st.Size())
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
