package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/memplan/memplan/estimate"
	"github.com/memplan/memplan/internal/readlimit"
	"github.com/memplan/memplan/templates"
)

// WriteHTML renders the result as one self-contained HTML page: the
// headline, the timeline and by-role charts (go-echarts, with the echarts
// script inlined), and the phase, gap, term, layer and input tables. The
// page is executed from templates.ReportHTML, or from opt.Template when set;
// html/template escapes every name that came from the model description, and
// the chart options are serialized so that none of them can end a script.
// The output is deterministic: chart ids are fixed and a long timeline is
// downsampled by a fixed rule.
func WriteHTML(w io.Writer, r *estimate.Result, opt Options) error {
	src, name := templates.ReportHTML, "report.html.tmpl"
	if opt.Template != "" {
		b, err := readlimit.File(opt.Template, 8<<20)
		if err != nil {
			return fmt.Errorf("reading the HTML template: %w", err)
		}
		src, name = string(b), opt.Template
	}
	tpl, err := template.New(name).Parse(src)
	if err != nil {
		return fmt.Errorf("parsing the HTML template %s: %w", name, err)
	}
	page, err := newHTMLPage(r, opt)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := tpl.Execute(&buf, page); err != nil {
		return fmt.Errorf("executing the HTML template %s: %w", name, err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// htmlPage is what the HTML template is executed with.
type htmlPage struct {
	Title, Version string
	GPU            estimate.GPUSummary
	Params         string
	ParamSize      string
	Headline       htmlHeadline
	Warnings       []string
	Timelines      []htmlChart
	RoleChart      htmlChart
	Phases         []htmlPhase
	Gaps           []htmlGap
	Terms          []htmlTerm
	Layers         []htmlLayer
	LayerTotal     *htmlLayer
	// LayersNote says what the layer table counts when it differs from
	// the terms (a per-rank estimate: the whole model's layers).
	LayersNote string
	Inputs     estimate.Inputs

	CSS            template.CSS
	EChartsJS      template.JS
	EChartsVersion string
}

type htmlHeadline struct {
	Allocated, Reserved, DeviceUsed string
	Phase, Iteration, Op            string
	HasTotal, Fits                  bool
	GPUName, Total                  string
	Headroom, HeadroomPct           string
	// Released says how the step fits only by releasing cached blocks.
	Released string
}

type htmlPhase struct {
	Iteration, Phase              string
	PeakAllocated, PeakReserved   string
	EndAllocated, EndReserved, Op string
	IsPeak                        bool
}

type htmlGap struct{ From, To, Size, Cause string }

type htmlTerm struct {
	Included          bool
	Name, Size, Bytes string
	Note              string
}

type htmlLayer struct {
	Layer, Ops, Parameters                            string
	ParameterSize, GradientSize, SavedSize, TotalSize string
}

func newHTMLPage(r *estimate.Result, opt Options) (*htmlPage, error) {
	title := r.Name
	if opt.Title != "" {
		title = opt.Title
	}
	p := &htmlPage{
		Title:          title,
		Version:        r.Version,
		GPU:            r.GPU,
		Params:         commas(r.Model.Parameters),
		ParamSize:      fmt.Sprintf("%s (%.1f MB)", MiB(r.Model.ParameterBytes), float64(r.Model.ParameterBytes)/1e6),
		Headline:       headlineOf(r),
		Warnings:       r.Warnings,
		Inputs:         r.Inputs,
		CSS:            template.CSS(templates.ReportCSS),
		EChartsJS:      template.JS(templates.EChartsJS),
		EChartsVersion: templates.EChartsVersion,
	}
	var err error
	if p.Timelines, err = timelineCharts(r); err != nil {
		return nil, err
	}
	if p.RoleChart, err = roleChart(r); err != nil {
		return nil, err
	}
	for _, it := range r.Iterations {
		for _, ph := range it.Phases {
			p.Phases = append(p.Phases, htmlPhase{
				Iteration: iterationLabel(it.Iteration), Phase: ph.Phase.String(),
				PeakAllocated: MiB(ph.PeakAllocatedBytes), PeakReserved: MiB(ph.PeakReservedBytes),
				EndAllocated: MiB(ph.EndAllocatedBytes), EndReserved: MiB(ph.EndReservedBytes),
				Op:     ph.PeakOp,
				IsPeak: it.Iteration == r.Peak.Iteration && ph.Phase == r.Peak.Phase,
			})
		}
	}
	for _, g := range r.Gaps {
		p.Gaps = append(p.Gaps, htmlGap{From: g.From, To: g.To, Size: MiB(g.Bytes), Cause: g.Cause})
	}
	for _, t := range r.Terms {
		p.Terms = append(p.Terms, htmlTerm{Included: t.Included, Name: t.Name, Size: MiB(t.Bytes), Bytes: commas(t.Bytes), Note: t.Note})
	}
	var tot estimate.LayerRow
	for _, l := range r.Layers {
		p.Layers = append(p.Layers, layerOf(l))
		tot.Ops += l.Ops
		tot.Parameters += l.Parameters
		tot.ParameterBytes += l.ParameterBytes
		tot.GradientBytes += l.GradientBytes
		tot.SavedBytes += l.SavedBytes
	}
	if len(r.Layers) > 0 {
		t := layerOf(tot)
		p.LayerTotal = &t
		if r.Parallel != nil {
			p.LayersNote = fmt.Sprintf("The whole model's layers, not rank %d's share: the terms above are per rank (%s).", r.Parallel.Rank, r.Parallel.Layout)
		}
	}
	return p, nil
}

func layerOf(l estimate.LayerRow) htmlLayer {
	return htmlLayer{
		Layer: l.Layer, Ops: fmt.Sprint(l.Ops), Parameters: commas(l.Parameters),
		ParameterSize: MiB(l.ParameterBytes), GradientSize: MiB(l.GradientBytes), SavedSize: MiB(l.SavedBytes),
		TotalSize: MiB(l.ParameterBytes + l.GradientBytes + l.SavedBytes),
	}
}

func headlineOf(r *estimate.Result) htmlHeadline {
	p := r.Peak
	h := htmlHeadline{
		Allocated: Size(p.AllocatedBytes), Reserved: Size(p.ReservedBytes), DeviceUsed: Size(p.DeviceUsedBytes),
		Phase: p.Phase.String(), Iteration: iterationLabel(p.Iteration), Op: p.Op,
		HasTotal: r.GPU.TotalBytes > 0, Fits: true, GPUName: r.GPU.Name, Total: GiB(r.GPU.TotalBytes), Released: releasedNote(r),
	}
	if h.HasTotal {
		head := r.GPU.TotalBytes - p.DeviceUsedBytes
		h.Fits = head >= 0
		if h.Fits {
			h.Headroom = GiB(head)
			h.HeadroomPct = fmt.Sprintf("%.0f%%", 100*float64(head)/float64(r.GPU.TotalBytes))
		} else {
			h.Headroom = GiB(-head)
		}
	}
	return h
}

// iterationLabel names a simulated iteration for people.
func iterationLabel(it int) string {
	switch it {
	case 1:
		return "iteration 1 (first step)"
	case 2:
		return "iteration 2 (steady state)"
	}
	return fmt.Sprintf("iteration %d", it)
}

// commas writes an integer with thousands separators.
func commas(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
