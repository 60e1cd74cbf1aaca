package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/memplan/memplan/estimate"
)

// The workbook's sheets, in order.
const (
	sheetSummary  = "Summary"
	sheetPhases   = "Phases"
	sheetLayers   = "Layers"
	sheetTimeline = "Timeline"
	sheetTerms    = "Terms"
)

// bytesPerMiB is the divisor of every MiB formula (2^20).
const bytesPerMiB = 1 << 20

// Number formats: sizes are either exact bytes or MiB (2^20 bytes), and the
// MiB cells say so in the cell as well as in the column header.
const (
	fmtMiB   = `#,##0.0" MiB"`
	fmtBytes = `#,##0" B"`
	fmtCount = `#,##0`
)

// Where a term's bytes sit (the Terms sheet's "where" column; the Summary's
// totals add terms up by it).
const (
	whereAllocator = "allocator"
	whereOutside   = "outside the allocator"
	whereSubtotal  = "subtotal"
)

// WriteXLSX renders the result as an XLSX workbook: Summary (the headline
// figures, and totals that are live formulas over the Terms sheet), Phases
// (with a native stacked-column chart of memory by role), Layers, Timeline
// (every event, through excelize's stream writer) and Terms. Sizes are
// numbers in bytes or MiB with labeled formats; every sheet's header row is
// frozen and every list is an Excel table.
func WriteXLSX(w io.Writer, r *estimate.Result, opt Options) error {
	f := excelize.NewFile()
	defer f.Close()
	x := &xlsxWriter{f: f, r: r, opt: opt}
	if err := x.write(); err != nil {
		return fmt.Errorf("writing the XLSX workbook: %w", err)
	}
	if _, err := f.WriteTo(w); err != nil {
		return fmt.Errorf("writing the XLSX workbook: %w", err)
	}
	return nil
}

type xlsxWriter struct {
	f   *excelize.File
	r   *estimate.Result
	opt Options

	sMiB, sBytes, sCount, sHeader, sTitle, sBold int

	// termRows is the Terms sheet's last row; termRow the row of each term by name.
	termLast int
}

func (x *xlsxWriter) write() error {
	f := x.f
	if err := f.SetSheetName("Sheet1", sheetSummary); err != nil {
		return err
	}
	for _, s := range []string{sheetPhases, sheetLayers, sheetTimeline, sheetTerms} {
		if _, err := f.NewSheet(s); err != nil {
			return err
		}
	}
	if err := x.styles(); err != nil {
		return err
	}
	title := x.r.Name
	if x.opt.Title != "" {
		title = x.opt.Title
	}
	if err := f.SetDocProps(&excelize.DocProperties{
		Title: title + " — memplan memory report", Creator: "memplan " + x.r.Version,
		Description: "GPU memory per training phase, predicted by memplan. MiB = 2^20 bytes.",
	}); err != nil {
		return err
	}
	// Terms first: the Summary's formulas refer to its rows.
	for _, step := range []func() error{x.terms, x.summary, x.phases, x.layers, x.timeline} {
		if err := step(); err != nil {
			return err
		}
	}
	f.SetActiveSheet(0)
	return nil
}

func (x *xlsxWriter) styles() error {
	var err error
	str := func(s string) *string { return &s }
	if x.sMiB, err = x.f.NewStyle(&excelize.Style{CustomNumFmt: str(fmtMiB)}); err != nil {
		return err
	}
	if x.sBytes, err = x.f.NewStyle(&excelize.Style{CustomNumFmt: str(fmtBytes)}); err != nil {
		return err
	}
	if x.sCount, err = x.f.NewStyle(&excelize.Style{CustomNumFmt: str(fmtCount)}); err != nil {
		return err
	}
	if x.sHeader, err = x.f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}, Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}}); err != nil {
		return err
	}
	if x.sTitle, err = x.f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true, Size: 14}}); err != nil {
		return err
	}
	x.sBold, err = x.f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	return err
}

// cell names a cell by column (1-based) and row.
func cell(col, row int) string {
	name, _ := excelize.CoordinatesToCellName(col, row)
	return name
}

// colName names a column (1-based).
func colName(col int) string {
	name, _ := excelize.ColumnNumberToName(col)
	return name
}

// header writes a bold header row 1, freezes it and sets column widths.
func (x *xlsxWriter) header(sheet string, cols []string, widths []float64) error {
	for i, c := range cols {
		if err := x.f.SetCellStr(sheet, cell(i+1, 1), c); err != nil {
			return err
		}
	}
	if err := x.f.SetCellStyle(sheet, "A1", cell(len(cols), 1), x.sHeader); err != nil {
		return err
	}
	for i, wd := range widths {
		if err := x.f.SetColWidth(sheet, colName(i+1), colName(i+1), wd); err != nil {
			return err
		}
	}
	return x.f.SetPanes(sheet, frozenHeader())
}

func frozenHeader() *excelize.Panes {
	return &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft",
		Selection: []excelize.Selection{{SQRef: "A2", ActiveCell: "A2", Pane: "bottomLeft"}}}
}

func (x *xlsxWriter) table(sheet, name string, cols, rows int) error {
	if rows < 2 {
		return nil // an Excel table needs a data row
	}
	return x.f.AddTable(sheet, &excelize.Table{Range: "A1:" + cell(cols, rows), Name: name, StyleName: "TableStyleMedium2"})
}

// termWhere says where a term's bytes sit.
func termWhere(t estimate.Term) string { return t.Where.String() }

// terms writes the Terms sheet: one row per term, bytes as numbers (the
// cells the Summary's totals add up) and MiB as formulas over them. The
// model-states subtotal is itself a formula over its three parts.
func (x *xlsxWriter) terms() error {
	f, s := x.f, sheetTerms
	if err := x.header(s, []string{"Term", "Included", "Where", "Bytes", "MiB", "Note"}, []float64{48, 10, 20, 18, 14, 100}); err != nil {
		return err
	}
	rowOf := map[string]int{}
	for i, t := range x.r.Terms {
		rowOf[t.Name] = i + 2
	}
	for i, t := range x.r.Terms {
		row := i + 2
		inc := "included"
		if !t.Included {
			inc = "excluded"
		}
		vals := []any{t.Name, inc, termWhere(t)}
		for c, v := range vals {
			if err := f.SetCellValue(s, cell(c+1, row), v); err != nil {
				return err
			}
		}
		bytesCell := cell(4, row)
		var parts []string
		if termWhere(t) == whereSubtotal {
			for _, p := range []string{"parameters", "gradients", "optimizer state"} {
				if r, ok := rowOf[p]; ok {
					parts = append(parts, cell(4, r))
				}
			}
		}
		if len(parts) == 3 {
			if err := f.SetCellFormula(s, bytesCell, strings.Join(parts, "+")); err != nil {
				return err
			}
		} else if err := f.SetCellInt(s, bytesCell, t.Bytes); err != nil {
			return err
		}
		if err := f.SetCellFormula(s, cell(5, row), fmt.Sprintf("%s/%d", bytesCell, bytesPerMiB)); err != nil {
			return err
		}
		if err := f.SetCellStr(s, cell(6, row), t.Note); err != nil {
			return err
		}
	}
	last := len(x.r.Terms) + 1
	x.termLast = last
	if last >= 2 {
		if err := f.SetCellStyle(s, "D2", cell(4, last), x.sBytes); err != nil {
			return err
		}
		if err := f.SetCellStyle(s, "E2", cell(5, last), x.sMiB); err != nil {
			return err
		}
	}
	return x.table(s, "Terms", 6, last)
}

// summary writes the headline figures and the totals over the Terms sheet.
func (x *xlsxWriter) summary() error {
	f, s, r := x.f, sheetSummary, x.r
	if err := x.header(s, []string{"Item", "Bytes or value", "MiB", "Note"}, []float64{52, 30, 16, 110}); err != nil {
		return err
	}
	row := 2
	put := func(label string, value any, note string) (int, error) {
		at := row
		row++
		if err := f.SetCellStr(s, cell(1, at), label); err != nil {
			return at, err
		}
		switch v := value.(type) {
		case formula:
			if err := f.SetCellFormula(s, cell(2, at), string(v)); err != nil {
				return at, err
			}
		case nil:
		default:
			if err := f.SetCellValue(s, cell(2, at), v); err != nil {
				return at, err
			}
		}
		return at, f.SetCellStr(s, cell(4, at), note)
	}
	size := func(label string, value any, note string) (int, error) {
		at, err := put(label, value, note)
		if err != nil {
			return at, err
		}
		if err := f.SetCellStyle(s, cell(2, at), cell(2, at), x.sBytes); err != nil {
			return at, err
		}
		if err := f.SetCellFormula(s, cell(3, at), fmt.Sprintf("%s/%d", cell(2, at), bytesPerMiB)); err != nil {
			return at, err
		}
		return at, f.SetCellStyle(s, cell(3, at), cell(3, at), x.sMiB)
	}
	// section starts a titled block after a blank row.
	section := func(title string) error {
		row++
		if err := f.SetCellStr(s, cell(1, row), title); err != nil {
			return err
		}
		err := f.SetCellStyle(s, cell(1, row), cell(1, row), x.sBold)
		row++
		return err
	}
	title := r.Name
	if x.opt.Title != "" {
		title = x.opt.Title
	}
	steps := []func() error{
		func() error {
			_, err := put("report", title, "memplan "+r.Version+"; MiB = 2^20 bytes, GiB = 2^30 bytes")
			return err
		},
		func() error { _, err := put("model", r.Inputs.Model, "description: "+r.Inputs.File); return err },
		func() error {
			at, err := put("parameters", r.Model.Parameters, "")
			if err != nil {
				return err
			}
			return f.SetCellStyle(s, cell(2, at), cell(2, at), x.sCount)
		},
		func() error {
			cal := "uncalibrated"
			if r.GPU.Calibrated {
				cal = "calibrated"
			}
			_, err := put("GPU", r.GPU.Name, fmt.Sprintf("profile %s (%s)", r.GPU.Profile, cal))
			return err
		},
		func() error {
			op := ""
			if r.Peak.Op != "" {
				op = ", at " + r.Peak.Op
			}
			_, err := put("peak", fmt.Sprintf("%s, %s", iterationLabel(r.Peak.Iteration), r.Peak.Phase), "the largest allocated across phases and iterations"+op)
			return err
		},
	}
	for _, st := range steps {
		if err := st(); err != nil {
			return err
		}
	}
	gpuRow, err := size("GPU memory", r.GPU.TotalBytes, "the profile's total device memory")
	if err != nil {
		return err
	}
	allocRow, err := size("peak allocated (simulated)", r.Peak.AllocatedBytes, "torch.cuda.max_memory_allocated() at the peak")
	if err != nil {
		return err
	}
	if _, err := size("peak reserved (simulated)", r.Peak.ReservedBytes, "torch.cuda.max_memory_reserved(): the caching allocator's segments"); err != nil {
		return err
	}
	outside := "reserved plus the CUDA context and library kernels"
	for _, t := range r.Terms {
		if t.Name == "NCCL buffers" && t.Included && t.Bytes > 0 {
			outside = "reserved plus the CUDA context, library kernels and NCCL's buffers"
		}
	}
	smiRow, err := size("nvidia-smi at the peak (simulated)", r.Peak.DeviceUsedBytes, outside)
	if err != nil {
		return err
	}
	headRow, err := size("headroom", formula(fmt.Sprintf("B%d-B%d", gpuRow, smiRow)), "GPU memory − nvidia-smi at the peak")
	if err != nil {
		return err
	}
	if _, err := put("fits the GPU", formula(fmt.Sprintf(`IF(B%d>=0,"yes","no")`, headRow)), ""); err != nil {
		return err
	}

	if err := section("Totals over the Terms sheet (live formulas: edit a term's bytes there and these move)"); err != nil {
		return err
	}
	last := max(x.termLast, 2)
	sumWhere := func(where string) formula {
		return formula(fmt.Sprintf(`SUMIFS(%s!$D$2:$D$%d,%s!$B$2:$B$%d,"included",%s!$C$2:$C$%d,"%s")`,
			sheetTerms, last, sheetTerms, last, sheetTerms, last, where))
	}
	inRow, err := size("included terms in the allocator", sumWhere(whereAllocator), "tensors: model states, inputs, activations, temporaries and workspaces (the “at the peak” terms as live at the overall peak)")
	if err != nil {
		return err
	}
	outRow, err := size("included terms outside the allocator", sumWhere(whereOutside), "CUDA context and library kernels: nvidia-smi counts them, memory_reserved() does not")
	if err != nil {
		return err
	}
	totRow, err := size("total of included terms", formula(fmt.Sprintf("B%d+B%d", inRow, outRow)), "the model-states subtotal is not added twice")
	if err != nil {
		return err
	}
	if _, err := size("headroom against the terms", formula(fmt.Sprintf("B%d-B%d", gpuRow, totRow)), "GPU memory − total of included terms"); err != nil {
		return err
	}
	if _, err := size("simulated peak allocated − allocator terms", formula(fmt.Sprintf("B%d-B%d", allocRow, inRow)), "the terms add model states whole; at the simulated peak some (e.g. gradients during backward) are only partly allocated, and blocks are rounded"); err != nil {
		return err
	}
	if r.Parallel != nil {
		if _, err := put("Layers sheet", nil, fmt.Sprintf("the whole model's layers, not rank %d's share: the terms are per rank (%s)", r.Parallel.Rank, r.Parallel.Layout)); err != nil {
			return err
		}
	}
	if len(r.Warnings) == 0 {
		return nil
	}
	// The estimate's warnings, as the text, JSON and HTML reports carry them.
	if err := section("Warnings"); err != nil {
		return err
	}
	for i, w := range r.Warnings {
		if _, err := put(fmt.Sprintf("warning %d", i+1), nil, w); err != nil {
			return err
		}
	}
	return nil
}

// formula marks a Summary value as a formula.
type formula string

// phases writes one row per phase of each iteration with what was live at
// its peak by role, and the stacked-column chart of those roles.
func (x *xlsxWriter) phases() error {
	f, s, r := x.f, sheetPhases, x.r
	totals := map[string]int64{}
	n := 0
	for _, it := range r.Iterations {
		for _, ph := range it.Phases {
			n++
			for role, b := range ph.PeakByRole {
				totals[role] += b
			}
		}
	}
	roles := estimate.SortedRoles(totals)
	cols := []string{"Step", "Iteration", "Phase", "Peak allocated (MiB)", "Peak reserved (MiB)", "End allocated (MiB)", "End reserved (MiB)", "Op at the peak"}
	widths := []float64{20, 10, 12, 16, 16, 16, 16, 44}
	const firstRole = 9
	for _, role := range roles {
		cols = append(cols, role+" at the peak (MiB)")
		widths = append(widths, 16)
	}
	cols = append(cols, "Sum of roles (MiB)")
	widths = append(widths, 16)
	if err := x.header(s, cols, widths); err != nil {
		return err
	}
	row := 2
	for _, it := range r.Iterations {
		for _, ph := range it.Phases {
			vals := []any{phaseCategory(it.Iteration, ph.Phase), it.Iteration, ph.Phase.String(),
				mib(ph.PeakAllocatedBytes), mib(ph.PeakReservedBytes), mib(ph.EndAllocatedBytes), mib(ph.EndReservedBytes), ph.PeakOp}
			for _, role := range roles {
				vals = append(vals, mib(ph.PeakByRole[role]))
			}
			if err := f.SetSheetRow(s, cell(1, row), &vals); err != nil {
				return err
			}
			if len(roles) > 0 {
				if err := f.SetCellFormula(s, cell(firstRole+len(roles), row), fmt.Sprintf("SUM(%s:%s)", cell(firstRole, row), cell(firstRole+len(roles)-1, row))); err != nil {
					return err
				}
			}
			row++
		}
	}
	last := row - 1
	if last < 2 {
		return nil
	}
	for _, c := range [][2]int{{4, 7}, {firstRole, len(cols)}} {
		if err := f.SetCellStyle(s, cell(c[0], 2), cell(c[1], last), x.sMiB); err != nil {
			return err
		}
	}
	if err := x.table(s, "Phases", len(cols), last); err != nil {
		return err
	}
	if len(roles) == 0 {
		return nil
	}
	var series []excelize.ChartSeries
	for i := range roles {
		c := colName(firstRole + i)
		series = append(series, excelize.ChartSeries{
			Name:       fmt.Sprintf("%s!$%s$1", s, c),
			Categories: fmt.Sprintf("%s!$A$2:$A$%d", s, last),
			Values:     fmt.Sprintf("%s!$%s$2:$%s$%d", s, c, c, last),
		})
	}
	return f.AddChart(s, cell(1, last+3), &excelize.Chart{
		Type:      excelize.ColStacked,
		Series:    series,
		Title:     excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: "Live at each phase's allocated peak, by role (MiB)"}}},
		Legend:    excelize.ChartLegend{Position: "right"},
		Dimension: excelize.ChartDimension{Width: 960, Height: 420},
		YAxis:     excelize.ChartAxis{MajorGridLines: true, NumFmt: excelize.ChartNumFmt{CustomNumFmt: `#,##0" MiB"`}},
		Format:    excelize.GraphicOptions{OffsetX: 4, OffsetY: 4},
	})
}

// mib is bytes in MiB: exact, since 2^20 divides into a float64 exactly.
func mib(b int64) float64 { return float64(b) / bytesPerMiB }

// layers writes one row per layer.
func (x *xlsxWriter) layers() error {
	f, s := x.f, sheetLayers
	cols := []string{"Layer", "Ops", "Parameters", "Parameters (MiB)", "Gradients (MiB)", "Saved activations (MiB)", "Total (MiB)"}
	if err := x.header(s, cols, []float64{40, 8, 16, 16, 16, 20, 16}); err != nil {
		return err
	}
	for i, l := range x.r.Layers {
		row := i + 2
		vals := []any{l.Layer, l.Ops, l.Parameters, mib(l.ParameterBytes), mib(l.GradientBytes), mib(l.SavedBytes)}
		if err := f.SetSheetRow(s, cell(1, row), &vals); err != nil {
			return err
		}
		if err := f.SetCellFormula(s, cell(7, row), fmt.Sprintf("SUM(D%d:F%d)", row, row)); err != nil {
			return err
		}
	}
	last := len(x.r.Layers) + 1
	if last < 2 {
		return nil
	}
	if err := f.SetCellStyle(s, "C2", cell(3, last+2), x.sCount); err != nil {
		return err
	}
	if err := f.SetCellStyle(s, "D2", cell(7, last+2), x.sMiB); err != nil {
		return err
	}
	if err := x.table(s, "Layers", len(cols), last); err != nil {
		return err
	}
	// The sum under the table.
	tot := last + 2
	if err := f.SetCellStr(s, cell(1, tot), "all layers"); err != nil {
		return err
	}
	for c := 2; c <= 7; c++ {
		if err := f.SetCellFormula(s, cell(c, tot), fmt.Sprintf("SUM(%s:%s)", cell(c, 2), cell(c, last))); err != nil {
			return err
		}
	}
	return f.SetCellStyle(s, cell(1, tot), cell(1, tot), x.sBold)
}

// timeline writes every event through the stream writer.
func (x *xlsxWriter) timeline() error {
	sw, err := x.f.NewStreamWriter(sheetTimeline)
	if err != nil {
		return err
	}
	widths := []float64{8, 10, 11, 8, 48, 36, 20, 14, 16, 16}
	for i, wd := range widths {
		if err := sw.SetColWidth(i+1, i+1, wd); err != nil {
			return err
		}
	}
	if err := sw.SetPanes(frozenHeader()); err != nil {
		return err
	}
	cols := []string{"Event", "Iteration", "Phase", "Action", "Op", "Tensor", "Role", "Size (MiB)", "Allocated (MiB)", "Reserved (MiB)"}
	hdr := make([]any, len(cols))
	for i, c := range cols {
		hdr[i] = excelize.Cell{StyleID: x.sHeader, Value: c}
	}
	if err := sw.SetRow("A1", hdr); err != nil {
		return err
	}
	n, prevIt := 0, -1
	for i, ev := range x.r.Timeline {
		if ev.Iteration != prevIt {
			n, prevIt = 0, ev.Iteration
		}
		n++
		row := []any{n, ev.Iteration, ev.Phase.String(), ev.Action.String(), ev.Op, ev.Tensor, ev.Role,
			excelize.Cell{StyleID: x.sMiB, Value: mib(ev.Bytes)},
			excelize.Cell{StyleID: x.sMiB, Value: mib(ev.Allocated)},
			excelize.Cell{StyleID: x.sMiB, Value: mib(ev.Reserved)}}
		if err := sw.SetRow(cell(1, i+2), row); err != nil {
			return err
		}
	}
	if last := len(x.r.Timeline) + 1; last >= 2 {
		if err := sw.AddTable(&excelize.Table{Range: "A1:" + cell(len(cols), last), Name: "Timeline", StyleName: "TableStyleLight9"}); err != nil {
			return err
		}
	}
	return sw.Flush()
}
