package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memplan/memplan/estimate"
	"github.com/memplan/memplan/templates"
)

// hostile is a name from a YAML file that must not change the page.
const hostile = `</script><b>x`

func renderHTML(t *testing.T, r *estimate.Result, opt Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r, opt); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// withoutECharts replaces the inlined echarts script, checked separately,
// so that the golden files stay small.
func withoutECharts(t *testing.T, page string) string {
	t.Helper()
	if strings.Count(page, templates.EChartsJS) != 1 {
		t.Fatalf("the page does not inline echarts.min.js exactly once")
	}
	return strings.Replace(page, templates.EChartsJS, "/* echarts.min.js "+templates.EChartsVersion+": elided from the golden file */", 1)
}

func TestHTMLGolden(t *testing.T) {
	for _, name := range examples {
		t.Run(name, func(t *testing.T) {
			r := exampleResult(t, name)
			page := renderHTML(t, r, Options{})
			if again := renderHTML(t, r, Options{}); again != page {
				t.Fatal("two renderings of one result differ: the output is not deterministic")
			}
			golden(t, name+".html.golden", []byte(withoutECharts(t, page)))
		})
	}
}

func TestHTMLContents(t *testing.T) {
	r := exampleResult(t, "gpt2-fp32-adamw-b8")
	page := renderHTML(t, r, Options{})
	for _, want := range []string{
		`id="chart-timeline-1"`, `id="chart-timeline-2"`, `id="chart-roles"`,
		`memplanChart("chart-timeline-1", {`, `memplanChart("chart-roles", {`,
		"Fits the NVIDIA H200", "headroom",
		`"markLine":{`,
		"overall peak " + MiB(r.Peak.AllocatedBytes),
		"Apache ECharts " + templates.EChartsVersion,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// Each phase boundary is marked at the phase's first event.
	n, prev := 0, -1
	for i, ev := range r.Timeline {
		if ev.Iteration != prev {
			n, prev = 0, ev.Iteration
		}
		n++
		if i == 0 || ev.Phase != r.Timeline[i-1].Phase {
			if want := fmt.Sprintf(`{"name":"%s","xAxis":%d}`, ev.Phase, n); !strings.Contains(page, want) {
				t.Errorf("the page lacks the phase boundary %s", want)
			}
		}
	}
	for _, term := range r.Terms {
		if !strings.Contains(page, ">"+escapeText(term.Name)+"<") {
			t.Errorf("the terms table lacks %q", term.Name)
		}
	}
	for _, l := range r.Layers {
		if !strings.Contains(page, "<code>"+escapeText(l.Layer)+"</code>") {
			t.Errorf("the layer table lacks %q", l.Layer)
		}
	}
	for _, g := range r.Gaps {
		if !strings.Contains(page, "+"+MiB(g.Bytes)) {
			t.Errorf("the gaps table lacks %s → %s", g.From, g.To)
		}
	}
	for _, w := range r.Warnings {
		if !strings.Contains(page, escapeText(w)) {
			t.Errorf("the page lacks the warning %q", w)
		}
	}
	for _, bad := range []string{`<script src=`, `<link `, `@import`} {
		if strings.Contains(page, bad) {
			t.Errorf("the page refers to an outside resource (%q): it must open with no network", bad)
		}
	}
}

// escapeText is what html/template makes of text in an element.
func escapeText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;").Replace(s)
}

// hostileResult is the MLP example with every name that comes from the
// description replaced by markup, a go-echarts function marker and an
// entity.
func hostileResult(t *testing.T) *estimate.Result {
	r := freshResult(t, "mlp10m-fp32-adam")
	r.Name = hostile
	r.Inputs.Model = hostile
	r.Inputs.File = hostile + ".yaml"
	r.Peak.Op = hostile
	r.Warnings = append(r.Warnings, "warning about "+hostile)
	r.Layers[0].Layer = hostile
	r.Layers[1].Layer = `__f__alert(1)//`
	r.Terms[0].Note = hostile
	for i := range r.Timeline {
		r.Timeline[i].Op = hostile
		r.Timeline[i].Tensor = `__f__"+alert(2)+"__f__ &lt;i&gt;`
	}
	for i := range r.Iterations {
		for j := range r.Iterations[i].Phases {
			r.Iterations[i].Phases[j].PeakOp = hostile
		}
	}
	return r
}

var chartCall = regexp.MustCompile(`(?m)^  <script>memplanChart\("([a-z0-9-]+)", (.*)\);</script>$`)

func TestHTMLEscapesNames(t *testing.T) {
	plain := renderHTML(t, exampleResult(t, "mlp10m-fp32-adam"), Options{})
	page := renderHTML(t, hostileResult(t), Options{})
	if strings.Contains(page, "<b>x") {
		t.Error("a name from the description reached the page as markup")
	}
	if a, b := strings.Count(page, "<script"), strings.Count(plain, "<script"); a != b {
		t.Errorf("the page has %d script elements, %d without the hostile names", a, b)
	}
	if a, b := strings.Count(strings.ToLower(page), "</script"), strings.Count(strings.ToLower(plain), "</script"); a != b {
		t.Errorf("the page has %d </script, %d without the hostile names", a, b)
	}
	for _, want := range []string{
		"<h1>&lt;/script&gt;&lt;b&gt;x</h1>",
		"<title>&lt;/script&gt;&lt;b&gt;x — memplan memory report</title>",
		`\u003c/script\u003e\u003cb\u003ex`, // in the chart options
		`\u0026lt;i\u0026gt;`,               // an entity stays an entity
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// Each chart's option, with our own functions taken out, is plain JSON:
	// no name broke out of its string.
	calls := chartCall.FindAllStringSubmatch(page, -1)
	if len(calls) != 3 {
		t.Fatalf("found %d chart calls, want 3", len(calls))
	}
	for _, c := range calls {
		opt := c[2]
		for _, fn := range []string{timelineTooltip, mibFormatter} {
			opt = strings.ReplaceAll(opt, jsSafe.Replace(fn), "null")
		}
		if !json.Valid([]byte(opt)) {
			t.Errorf("chart %s: the option is not JSON once our functions are taken out: %.300s", c[1], opt)
		}
		if strings.Contains(opt, "alert(") && !strings.Contains(opt, `__f_`+"\u2060"+`_`) {
			t.Errorf("chart %s: a function marker in a name survived", c[1])
		}
	}
}

func TestChartFunctionsAreScriptSafe(t *testing.T) {
	for _, fn := range []string{timelineTooltip, mibFormatter} {
		// Outside string literals the functions may hold no <, > or &
		// (they would be \u-escaped) and no double quote (go-echarts
		// writes them into JSON strings).
		code := regexp.MustCompile(`'[^']*'`).ReplaceAllString(fn, "''")
		if strings.ContainsAny(code, `<>&"`) || strings.Contains(fn, "\n") {
			t.Errorf("function not safe to inline: %s", fn)
		}
	}
}

func TestHTMLCustomTemplate(t *testing.T) {
	r := exampleResult(t, "mlp10m-fp32-adam")
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.html.tmpl")
	if err := os.WriteFile(path, []byte(`<p>{{.Title}}: {{.Headline.Allocated}} {{len .Timelines}}</p>`), 0o644); err != nil {
		t.Fatal(err)
	}
	got := renderHTML(t, r, Options{Template: path, Title: "a & b"})
	if want := "<p>a &amp; b: " + Size(r.Peak.AllocatedBytes) + " 2</p>"; got != want {
		t.Errorf("custom template: got %q, want %q", got, want)
	}
	if err := os.WriteFile(path, []byte(`{{.Nope`), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r, Options{Template: path}); err == nil || !strings.Contains(err.Error(), "parsing the HTML template") {
		t.Errorf("a broken template: got error %v", err)
	}
	if err := WriteHTML(&buf, r, Options{Template: filepath.Join(dir, "missing")}); err == nil || !strings.Contains(err.Error(), "reading the HTML template") {
		t.Errorf("a missing template: got error %v", err)
	}
}

func TestHTMLWithoutTimeline(t *testing.T) {
	r := *exampleResult(t, "mlp10m-fp32-adam")
	r.Timeline = nil
	page := renderHTML(t, &r, Options{})
	if !strings.Contains(page, "No timeline") || !strings.Contains(page, `id="chart-roles"`) {
		t.Error("a result without a timeline should still render, saying so")
	}
}

func TestSamplePoints(t *testing.T) {
	r := exampleResult(t, "gpt2-fp32-adamw-b8")
	var evs []estimate.Event
	for _, ev := range r.Timeline {
		if ev.Iteration == 1 {
			evs = append(evs, ev)
		}
	}
	if len(evs) <= maxTimelinePoints {
		t.Fatalf("iteration 1 has %d events: too few to test downsampling", len(evs))
	}
	keep := []int{0, len(evs) - 1, 17, 1000}
	idx := samplePoints(evs, keep, maxTimelinePoints)
	if len(idx) > maxTimelinePoints+len(keep) {
		t.Errorf("%d points drawn, want at most %d", len(idx), maxTimelinePoints+len(keep))
	}
	in := map[int]bool{}
	for i, x := range idx {
		if i > 0 && x <= idx[i-1] {
			t.Fatalf("indexes not increasing at %d", i)
		}
		in[x] = true
	}
	for _, k := range keep {
		if !in[k] {
			t.Errorf("kept index %d was dropped", k)
		}
	}
	hi := 0
	for i, ev := range evs {
		if ev.Allocated > evs[hi].Allocated {
			hi = i
		}
	}
	if !in[hi] {
		t.Errorf("the highest allocated (event %d) was dropped", hi)
	}
	again := samplePoints(evs, keep, maxTimelinePoints)
	if len(again) != len(idx) {
		t.Error("samplePoints is not deterministic")
	}
	if got := samplePoints(evs[:10], nil, maxTimelinePoints); len(got) != 10 {
		t.Errorf("a short timeline: %d points, want all 10", len(got))
	}
}

// The first iteration's chart says what sets it apart: the optimizer's
// state in a training step, only that it is first in an inference forward.
func TestFirstIterationTitle(t *testing.T) {
	for name, want := range map[string]string{
		"gpt2-fp32-adamw-b8":                    "Iteration 1 (first step: optimizer state created)",
		"measured/resnet50-fp32-infer-b64":      "Iteration 1 (first forward)",
		"holdout33/gpt2-fp32-adamw-mb2-b4-s512": "Iteration 1 (first step: optimizer state created)",
	} {
		page := renderHTML(t, freshResult(t, name), Options{})
		if !strings.Contains(page, want) || (strings.Contains(name, "infer") && strings.Contains(page, "optimizer state created")) {
			t.Errorf("%s: the page lacks %q", name, want)
		}
	}
}

// A per-rank page says that its layer table is the whole model's.
func TestPerRankLayersNote(t *testing.T) {
	page := renderHTML(t, freshResult(t, "parallel/llama-small-bf16-fsdp-w4"), Options{})
	if !strings.Contains(page, "whole model&#39;s layers, not rank 0&#39;s share") {
		t.Error("the per-rank page does not say its layer table is the whole model's")
	}
	if strings.Contains(renderHTML(t, exampleResult(t, "gpt2-fp32-adamw-b8"), Options{}), "whole model&#39;s layers") {
		t.Error("a one-GPU page carries the per-rank note")
	}
}
