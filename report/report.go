// Package report renders one estimate.Result: a text table, JSON, a
// self-contained HTML page and an XLSX workbook. Writers only format; they
// never compute estimates.
package report

// Options tune how a report is rendered.
type Options struct {
	// Template, when set, is the path of an HTML template replacing the embedded one.
	Template string
	// Title overrides the report title (the model name by default).
	Title string
}
