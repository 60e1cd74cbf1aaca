package report

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/memplan/memplan/estimate"
)

func renderXLSX(t *testing.T, r *estimate.Result) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteXLSX(&buf, r, Options{}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func openXLSX(t *testing.T, b []byte) *excelize.File {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("re-reading the workbook: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// dumpXLSX writes a workbook as text for the golden files: per sheet its
// frozen panes, tables, and every cell with its formula and number format
// (the Timeline sheet: its first and last rows), and the charts' kinds.
func dumpXLSX(t *testing.T, b []byte) string {
	t.Helper()
	f := openXLSX(t, b)
	var sb strings.Builder
	for _, sheet := range f.GetSheetList() {
		fmt.Fprintf(&sb, "== sheet %s\n", sheet)
		p, err := f.GetPanes(sheet)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sb, "panes: freeze=%v ySplit=%d topLeft=%s\n", p.Freeze, p.YSplit, p.TopLeftCell)
		tables, err := f.GetTables(sheet)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			fmt.Fprintf(&sb, "table %s %s\n", tb.Name, tb.Range)
		}
		rows, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sb, "rows: %d\n", len(rows))
		for i, row := range rows {
			if sheet == sheetTimeline && i >= 6 && i < len(rows)-3 {
				if i == 6 {
					sb.WriteString("…\n")
				}
				continue
			}
			fmt.Fprintf(&sb, "%d:", i+1)
			for j, v := range row {
				c := cell(j+1, i+1)
				fm, err := f.GetCellFormula(sheet, c)
				if err != nil {
					t.Fatal(err)
				}
				if v == "" && fm == "" {
					continue
				}
				fmt.Fprintf(&sb, " %s=", colName(j+1))
				if fm != "" {
					fmt.Fprintf(&sb, "=%s", fm)
				} else {
					fmt.Fprintf(&sb, "%q", v)
				}
				if id, err := f.GetCellStyle(sheet, c); err == nil && id != 0 {
					if st, err := f.GetStyle(id); err == nil && st.CustomNumFmt != nil {
						fmt.Fprintf(&sb, " [%s]", *st.CustomNumFmt)
					}
				}
			}
			sb.WriteString("\n")
		}
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for _, zf := range zr.File {
		if !strings.HasPrefix(zf.Name, "xl/charts/chart") {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		x, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		s := string(x)
		fmt.Fprintf(&sb, "== %s: barChart=%v barDir=col=%v grouping=stacked=%v series=%d\n", zf.Name,
			strings.Contains(s, "<c:barChart>"), strings.Contains(s, `<c:barDir val="col"/>`),
			strings.Contains(s, `<c:grouping val="stacked"/>`), strings.Count(s, "<c:ser>"))
	}
	return sb.String()
}

func TestXLSXGolden(t *testing.T) {
	for _, name := range examples {
		t.Run(name, func(t *testing.T) {
			golden(t, name+".xlsx.txt", []byte(dumpXLSX(t, renderXLSX(t, exampleResult(t, name)))))
		})
	}
}

// findRow returns the row whose column A reads label.
func findRow(t *testing.T, f *excelize.File, sheet, label string) int {
	t.Helper()
	rows, err := f.GetRows(sheet)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if len(r) > 0 && r[0] == label {
			return i + 1
		}
	}
	t.Fatalf("sheet %s has no row %q", sheet, label)
	return 0
}

func calcFloat(t *testing.T, f *excelize.File, sheet, c string) float64 {
	t.Helper()
	s, err := f.CalcCellValue(sheet, c, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatalf("calculating %s!%s: %v", sheet, c, err)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%s!%s = %q: not a number", sheet, c, s)
	}
	return v
}

// TestXLSXFormulas re-reads the workbook and checks the formulas' results
// against the result, then edits a term and checks that the totals move.
func TestXLSXFormulas(t *testing.T) {
	for _, name := range examples {
		t.Run(name, func(t *testing.T) {
			r := exampleResult(t, name)
			f := openXLSX(t, renderXLSX(t, r))
			if got, want := f.GetSheetList(), []string{sheetSummary, sheetPhases, sheetLayers, sheetTimeline, sheetTerms}; strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("sheets %v, want %v", got, want)
			}
			var inAlloc, outside, params int64
			for _, term := range r.Terms {
				if !term.Included {
					continue
				}
				switch termWhere(term) {
				case whereAllocator:
					inAlloc += term.Bytes
				case whereOutside:
					outside += term.Bytes
				}
				if term.Name == "parameters" {
					params = term.Bytes
				}
			}
			if outside == 0 || inAlloc == 0 {
				t.Fatalf("terms in the allocator %d, outside %d: both should be > 0", inAlloc, outside)
			}
			at := func(label string) string {
				return fmt.Sprintf("B%d", findRow(t, f, sheetSummary, label))
			}
			check := func(label string, want int64) {
				t.Helper()
				if got := calcFloat(t, f, sheetSummary, at(label)); got != float64(want) {
					t.Errorf("Summary %q = %.0f, want %d", label, got, want)
				}
			}
			check("included terms in the allocator", inAlloc)
			check("included terms outside the allocator", outside)
			check("total of included terms", inAlloc+outside)
			check("headroom", r.GPU.TotalBytes-r.Peak.DeviceUsedBytes)
			check("headroom against the terms", r.GPU.TotalBytes-inAlloc-outside)
			check("simulated peak allocated − allocator terms", r.Peak.AllocatedBytes-inAlloc)
			if got, err := f.CalcCellValue(sheetSummary, at("fits the GPU")); err != nil || got != "yes" {
				t.Errorf("Summary fits the GPU = %q, %v; want yes", got, err)
			}
			mibRow := findRow(t, f, sheetSummary, "peak allocated (simulated)")
			// Excel (and excelize) keep 15 significant digits.
			if got, want := calcFloat(t, f, sheetSummary, fmt.Sprintf("C%d", mibRow)), float64(r.Peak.AllocatedBytes)/(1<<20); math.Abs(got-want) > 1e-9*want {
				t.Errorf("peak allocated in MiB = %v", got)
			}

			// The model-states subtotal is a formula over its parts.
			msRow := findRow(t, f, sheetTerms, "model states (parameters + gradients + optimizer state)")
			var states int64
			for _, term := range r.Terms {
				if strings.HasPrefix(term.Name, "model states") {
					states = term.Bytes
				}
			}
			if got := calcFloat(t, f, sheetTerms, fmt.Sprintf("D%d", msRow)); got != float64(states) {
				t.Errorf("model states = %.0f, want %d", got, states)
			}

			// Phases: the roles add up to the peak allocated.
			rows, _ := f.GetRows(sheetPhases)
			hdr := rows[0]
			sumCol := len(hdr)
			for i := 2; i <= 1+len(r.Iterations)*len(r.Iterations[0].Phases); i++ {
				sum := calcFloat(t, f, sheetPhases, cell(sumCol, i))
				peak := calcFloat(t, f, sheetPhases, cell(4, i))
				if math.Abs(sum-peak) > 1e-9 {
					t.Errorf("Phases row %d: roles add to %v MiB, peak allocated %v MiB", i, sum, peak)
				}
			}

			// Edit a term: the totals move with it.
			pRow := findRow(t, f, sheetTerms, "parameters")
			if err := f.SetCellInt(sheetTerms, fmt.Sprintf("D%d", pRow), params+(1<<30)); err != nil {
				t.Fatal(err)
			}
			check("included terms in the allocator", inAlloc+(1<<30))
			check("total of included terms", inAlloc+outside+(1<<30))
			if got := calcFloat(t, f, sheetTerms, fmt.Sprintf("D%d", msRow)); got != float64(states+(1<<30)) {
				t.Errorf("model states after the edit = %.0f, want %d", got, states+(1<<30))
			}
			if got, want := calcFloat(t, f, sheetTerms, fmt.Sprintf("E%d", pRow)), float64(params+(1<<30))/(1<<20); math.Abs(got-want) > 1e-9*want {
				t.Errorf("parameters MiB after the edit = %v", got)
			}

			// Timeline: one row per event.
			trows, err := f.GetRows(sheetTimeline)
			if err != nil {
				t.Fatal(err)
			}
			if len(trows) != len(r.Timeline)+1 {
				t.Errorf("Timeline has %d rows, want %d events + header", len(trows), len(r.Timeline))
			}
			// Layers: one row per layer (then a blank row and the sum).
			lrows, _ := f.GetRows(sheetLayers)
			if len(lrows) != len(r.Layers)+3 {
				t.Errorf("Layers has %d rows, want %d layers + header + blank + sum", len(lrows), len(r.Layers))
			}
		})
	}
}

func TestXLSXKeepsNames(t *testing.T) {
	r := hostileResult(t)
	f := openXLSX(t, renderXLSX(t, r))
	if v, _ := f.GetCellValue(sheetLayers, "A2"); v != hostile {
		t.Errorf("Layers!A2 = %q, want %q", v, hostile)
	}
	if v, _ := f.GetCellValue(sheetTimeline, "E2"); v != hostile {
		t.Errorf("Timeline!E2 = %q, want %q", v, hostile)
	}
	if v, _ := f.GetCellValue(sheetSummary, "B2"); v != hostile {
		t.Errorf("Summary!B2 = %q, want %q", v, hostile)
	}
	// The warnings close the Summary, each in a row, as the other reports carry them.
	rows, _ := f.GetRows(sheetSummary)
	var notes []string
	for _, row := range rows {
		if len(row) == 4 && strings.HasPrefix(row[0], "warning ") {
			notes = append(notes, row[3])
		}
	}
	if len(r.Warnings) == 0 || !slices.Equal(notes, r.Warnings) {
		t.Errorf("Summary warnings %q, want %q", notes, r.Warnings)
	}
}
