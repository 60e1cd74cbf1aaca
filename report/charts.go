package report

import (
	"fmt"
	"html/template"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/render"

	"github.com/memplan/memplan/estimate"
)

// maxTimelinePoints bounds the points drawn per iteration; a longer
// timeline is downsampled by samplePoints.
const maxTimelinePoints = 1200

// htmlChart is one chart of the page: go-echarts' element snippet and the
// chart's option, serialized for a script element.
type htmlChart struct {
	ID, Title string
	Element   template.HTML
	Option    template.JS
	Note      string
}

// snippetChart is what go-echarts' Line and Bar offer.
type snippetChart interface {
	RenderSnippet() render.ChartSnippet
	JSONNotEscaped() template.HTML
}

// funcMarker is how go-echarts marks a JS function inside its option JSON.
var funcMarker = regexp.MustCompile(`(__f__")|("__f__)|(__f__)`)

// renderChart renders c through go-echarts' RenderSnippet (the element that
// holds the chart) and serializes its option for our own script element.
// The option is taken from JSONNotEscaped rather than the snippet's Option,
// which html-unescapes the JSON and so would turn a name's "&lt;" into "<".
// Every <, > and & is then written as a \u escape, which JSON strings allow
// and which keeps any "</script>" or "<!--" in a name from touching the
// page; the JS functions of this file hold none of those characters outside
// string literals.
func renderChart(c snippetChart, id, title, note string) htmlChart {
	snip := c.RenderSnippet()
	option := funcMarker.ReplaceAllString(string(c.JSONNotEscaped()), "")
	option = jsSafe.Replace(strings.TrimSpace(option))
	return htmlChart{ID: id, Title: title, Element: template.HTML(snip.Element), Option: template.JS(option), Note: note}
}

var jsSafe = strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`, "\u2028", `\u2028`, "\u2029", `\u2029`)

// chartText makes a string from the model description safe to hand to
// go-echarts: its function marker __f__ must not appear in data, or the
// quotes around the string would be stripped.
func chartText(s string) string { return strings.ReplaceAll(s, "__f__", "__f_\u2060_") }

// mibValue is bytes in MiB, rounded to 0.1 for the charts.
func mibValue(b int64) float64 { return math.Round(float64(b)/(1<<20)*10) / 10 }

// The charts' JS functions: single-quoted strings only (go-echarts writes
// them into JSON strings), and no <, > or & outside a string literal.
const (
	timelineTooltip = `function (ps) { var e = echarts.format.encodeHTML; var d = ps[0].data; var s = 'event ' + d.value[0]; if (d.name) { s += '<br/>' + e(d.name); } for (var i = 0; i !== ps.length; i++) { s += '<br/>' + ps[i].marker + e(ps[i].seriesName) + ': ' + ps[i].value[1].toFixed(1) + ' MiB'; } return s; }`
	mibFormatter    = `function (v) { return (typeof v === 'number' ? v.toFixed(1) : v) + ' MiB'; }`
)

// timelineCharts draws allocated and reserved across the events of each
// simulated iteration, with the phase boundaries and the peak marked.
func timelineCharts(r *estimate.Result) ([]htmlChart, error) {
	var out []htmlChart
	for _, it := range r.Iterations {
		lo, hi := -1, -1
		for i, ev := range r.Timeline {
			if ev.Iteration == it.Iteration {
				if lo < 0 {
					lo = i
				}
				hi = i + 1
			}
		}
		if lo < 0 {
			continue
		}
		evs := r.Timeline[lo:hi]
		// What must be drawn exactly: the ends, each phase's first and last
		// event, and each phase's peak.
		keep := []int{0, len(evs) - 1}
		type boundary struct {
			at    int
			phase estimate.Phase
		}
		var bounds []boundary
		for i, ev := range evs {
			if i == 0 || ev.Phase != evs[i-1].Phase {
				bounds = append(bounds, boundary{i, ev.Phase})
				keep = append(keep, i)
				if i > 0 {
					keep = append(keep, i-1)
				}
			}
		}
		peakAt, peakPhase := -1, estimate.PhaseForward
		var peakBytes int64 = -1
		for _, ph := range it.Phases {
			if ph.PeakEvent >= lo && ph.PeakEvent < hi {
				keep = append(keep, ph.PeakEvent-lo)
				if ph.PeakAllocatedBytes > peakBytes {
					peakAt, peakBytes, peakPhase = ph.PeakEvent-lo, ph.PeakAllocatedBytes, ph.Phase
				}
			}
		}
		idx := samplePoints(evs, keep, maxTimelinePoints)

		alloc := make([]opts.LineData, len(idx))
		reserved := make([]opts.LineData, len(idx))
		for k, i := range idx {
			ev := evs[i]
			x := i + 1
			alloc[k] = opts.LineData{Value: []any{x, mibValue(ev.Allocated)}, Name: chartText(eventLabel(ev))}
			reserved[k] = opts.LineData{Value: []any{x, mibValue(ev.Reserved)}}
		}
		var marks []opts.MarkLineNameXAxisItem
		for _, b := range bounds {
			marks = append(marks, opts.MarkLineNameXAxisItem{Name: b.phase.String(), XAxis: b.at + 1})
		}
		var points []opts.MarkPointNameCoordItem
		if peakAt >= 0 {
			label := fmt.Sprintf("peak %s (%s)", MiB(evs[peakAt].Allocated), peakPhase)
			if it.Iteration == r.Peak.Iteration {
				label = "overall " + label
			}
			points = append(points, opts.MarkPointNameCoordItem{
				Name: "peak", Coordinate: []any{peakAt + 1, mibValue(evs[peakAt].Allocated)}, Value: label,
				Symbol: "circle", SymbolSize: 10,
				Label:     &opts.Label{Show: opts.Bool(true), Formatter: "{c}", Position: "right", FontWeight: "bold", Color: "#c4262e"},
				ItemStyle: &opts.ItemStyle{Color: "#c4262e"},
			})
		}

		id := fmt.Sprintf("chart-timeline-%d", it.Iteration)
		line := charts.NewLine()
		line.SetGlobalOptions(
			charts.WithInitializationOpts(opts.Initialization{ChartID: id, Width: "100%", Height: "440px"}),
			charts.WithAnimation(false),
			charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "0"}),
			charts.WithGridOpts(opts.Grid{Left: "70", Right: "40", Top: "40", Bottom: "90"}),
			charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis", Formatter: opts.FuncOpts(timelineTooltip)}),
			charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "event", NameLocation: "middle", NameGap: 25, Min: 1, Max: len(evs)}),
			charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: "MiB", AxisLabel: &opts.AxisLabel{Formatter: "{value}"}}),
			charts.WithDataZoomOpts(opts.DataZoom{Type: "inside", XAxisIndex: 0}, opts.DataZoom{Type: "slider", XAxisIndex: 0}),
		)
		line.AddSeries("allocated", alloc,
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), Step: "end"}),
			charts.WithLineStyleOpts(opts.LineStyle{Width: 1.5}),
			charts.WithMarkLineNameXAxisItemOpts(marks...),
			charts.WithMarkLineStyleOpts(opts.MarkLineStyle{
				Symbol:    []string{"none", "none"},
				Label:     &opts.Label{Show: opts.Bool(true), Formatter: "{b}", Position: "insideEndTop"},
				LineStyle: &opts.LineStyle{Color: "#8891a0", Type: "dashed", Width: 1},
			}),
			charts.WithMarkPointNameCoordItemOpts(points...),
		)
		line.AddSeries("reserved", reserved,
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), Step: "end"}),
			charts.WithLineStyleOpts(opts.LineStyle{Width: 1.5, Type: "dashed"}),
		)
		title := "Iteration 1 (" + firstStep(it) + ")"
		if it.Iteration != 1 {
			title = fmt.Sprintf("Iteration %d (steady state: every later step)", it.Iteration)
		}
		note := fmt.Sprintf("%s events, every one drawn.", commas(int64(len(evs))))
		if len(idx) < len(evs) {
			note = fmt.Sprintf("%s events, drawn with %s points: in each of %d equal runs of events the lowest and highest allocated and the highest reserved, plus each phase's first, last and peak event, exactly.",
				commas(int64(len(evs))), commas(int64(len(idx))), maxTimelinePoints/3)
		}
		out = append(out, renderChart(line, id, title, note))
	}
	return out, nil
}

// eventLabel describes one event for the tooltip: what it did, to which
// tensor, and the op when the tensor's name does not already say it.
func eventLabel(ev estimate.Event) string {
	s := fmt.Sprintf("%s %s %s (%s)", ev.Action, MiB(ev.Bytes), ev.Tensor, ev.Role)
	if op := strings.TrimSuffix(ev.Op, " (backward)"); op != "" && !strings.Contains(ev.Tensor, op) {
		s += " in " + ev.Op
	} else if strings.HasSuffix(ev.Op, " (backward)") {
		s += " in backward"
	}
	return s
}

// samplePoints returns, in order, the indexes of evs to draw: every one when
// there are at most max; otherwise, in each of max/3 equal runs of events,
// the one with the lowest allocated, the one with the highest allocated and
// the one with the highest reserved (the first on ties), plus every index in
// keep. The rule depends on nothing but evs, so the output is deterministic.
func samplePoints(evs []estimate.Event, keep []int, max int) []int {
	n := len(evs)
	if n <= max {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	buckets := max / 3
	set := map[int]bool{}
	for _, k := range keep {
		if k >= 0 && k < n {
			set[k] = true
		}
	}
	for b := 0; b < buckets; b++ {
		lo, hi := b*n/buckets, (b+1)*n/buckets
		if lo >= hi {
			continue
		}
		minA, maxA, maxR := lo, lo, lo
		for i := lo + 1; i < hi; i++ {
			if evs[i].Allocated < evs[minA].Allocated {
				minA = i
			}
			if evs[i].Allocated > evs[maxA].Allocated {
				maxA = i
			}
			if evs[i].Reserved > evs[maxR].Reserved {
				maxR = i
			}
		}
		set[minA], set[maxA], set[maxR] = true, true, true
	}
	idx := make([]int, 0, len(set))
	for i := range set {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	return idx
}

// roleChart is the stacked bar of what was live at each phase's allocated
// peak, by role.
func roleChart(r *estimate.Result) (htmlChart, error) {
	totals := map[string]int64{}
	var cats []string
	for _, it := range r.Iterations {
		for _, ph := range it.Phases {
			cats = append(cats, phaseCategory(it.Iteration, ph.Phase))
			for role, b := range ph.PeakByRole {
				totals[role] += b
			}
		}
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{ChartID: "chart-roles", Width: "100%", Height: "420px"}),
		charts.WithAnimation(false),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "0"}),
		charts.WithGridOpts(opts.Grid{Left: "70", Right: "40", Top: "60", Bottom: "40"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis", ValueFormatter: opts.FuncOpts(mibFormatter)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category"}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: "MiB"}),
	)
	for i := range cats {
		cats[i] = chartText(cats[i])
	}
	bar.SetXAxis(cats)
	for _, role := range estimate.SortedRoles(totals) {
		var data []opts.BarData
		for _, it := range r.Iterations {
			for _, ph := range it.Phases {
				data = append(data, opts.BarData{Value: mibValue(ph.PeakByRole[role])})
			}
		}
		bar.AddSeries(chartText(role), data, charts.WithBarChartOpts(opts.BarChart{Stack: "live"}))
	}
	return renderChart(bar, "chart-roles", "Live at each phase's allocated peak, by role (MiB)",
		"Each bar is what was allocated at that phase's peak, split by the role of each tensor; the bars add up to the phase's peak allocated."), nil
}

// phaseCategory labels one phase of one iteration on a category axis.
func phaseCategory(it int, ph estimate.Phase) string {
	if it == 2 {
		return "steady · " + ph.String()
	}
	return fmt.Sprintf("it %d · %s", it, ph)
}

// firstStep says what sets the first iteration apart: the optimizer's
// state made in its step, or just that it is the first (no optimizer, or
// an inference forward).
func firstStep(it estimate.IterationRun) string {
	what := "first forward"
	for _, ph := range it.Phases {
		switch ph.Phase {
		case estimate.PhaseOptimizer:
			return "first step: optimizer state created"
		case estimate.PhaseBackward:
			what = "first step"
		}
	}
	return what
}
