package reconcile

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/memplan/memplan/templates"
)

// The page is self-contained (the HTML report's stylesheet inlined, no
// script, no link); html/template escapes every name, note and cause.
//
//go:embed page.html.tmpl
var pageTemplate string

var page = template.Must(template.New("reconcile").Parse(pageTemplate))

type htmlCell struct{ Estimated, Measured, Error, Class string }

type htmlRow struct {
	Iteration, MeasuredIteration int
	Phase                        string
	Cells                        []htmlCell
	Largest                      bool
}

type htmlDevice struct{ Name, Estimated, Measured, Error, Class string }

type htmlTerm struct {
	Name, Estimated, Measured, Note string
	Included                        bool
}

type htmlPage struct {
	*Report
	Figures []Figure
	Rows    []htmlRow
	Device  []htmlDevice
	Terms   []htmlTerm
	Largest string
	CSS     template.CSS
}

// errClass grades an error for colour: within 2% (or 1 MiB) ok, within 10% warn.
func errClass(p Pair) string {
	if !p.Known() {
		return ""
	}
	pc := p.Percent()
	if pc < 0 {
		pc = -pc
	}
	switch {
	case abs(p.Error()) < 1<<20 || pc <= 2:
		return "ok"
	case pc <= 10:
		return "warn"
	}
	return "bad"
}

// cellOf is one figure of the per-phase table, in bare MiB (the table says the unit).
func cellOf(p Pair) htmlCell {
	e := "–"
	if p.Known() {
		e = fmt.Sprintf("%s (%+.1f%%)", strings.TrimSuffix(signed(p.Error()), " MiB"), p.Percent())
	}
	return htmlCell{Estimated: num(p.Estimated), Measured: num(p.Measured), Error: e, Class: errClass(p)}
}

// WriteHTML renders the report as one self-contained HTML page in the style
// of the HTML report (report.WriteHTML): the per-phase table, nvidia-smi, the
// explained gaps and every term.
func WriteHTML(w io.Writer, rep *Report) error {
	// The stylesheet is the HTML report's (templates.ReportCSS), a constant
	// of this program, not input.
	pg := htmlPage{Report: rep, Figures: phaseFigures, CSS: template.CSS(templates.ReportCSS)}
	for i := range rep.Rows {
		r := &rep.Rows[i]
		hr := htmlRow{Iteration: r.Iteration, MeasuredIteration: r.MeasuredIteration, Phase: r.Phase.String(), Largest: rep.Largest != nil && rep.Largest.Row == i}
		for _, f := range phaseFigures {
			hr.Cells = append(hr.Cells, cellOf(r.Pair(f)))
		}
		pg.Rows = append(pg.Rows, hr)
	}
	d := rep.Device
	for _, x := range []struct {
		name string
		p    Pair
	}{
		{"nvidia-smi (estimated at the peak, measured at the end)", d.Used},
		{"reserved", d.Reserved},
		{"outside the allocator (nvidia-smi − reserved)", d.Outside},
		{"CUDA context", d.Context},
		{"library kernels (loaded lazily)", d.Kernels},
	} {
		pg.Device = append(pg.Device, htmlDevice{Name: x.name, Estimated: mib(x.p.Estimated), Measured: mib(x.p.Measured), Error: errText(x.p), Class: errClass(x.p)})
	}
	for _, t := range rep.Terms {
		pg.Terms = append(pg.Terms, htmlTerm{Name: t.Name, Estimated: mib(t.Bytes), Measured: mib(t.Measured), Note: t.Note, Included: t.Included})
	}
	if rep.Largest != nil {
		row := &rep.Rows[rep.Largest.Row]
		pg.Largest = fmt.Sprintf("%s %s, %s", row.Label(), rep.Largest.Figure, errText(rep.Largest.Pair))
	}
	if err := page.Execute(w, pg); err != nil {
		return fmt.Errorf("rendering the reconcile page: %w", err)
	}
	return nil
}
