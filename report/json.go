package report

import (
	"encoding/json"
	"io"

	"github.com/memplan/memplan/estimate"
)

// WriteJSON writes the result in the JSON contract of DESIGN.md.
func WriteJSON(w io.Writer, r *estimate.Result, _ Options) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteShapesJSON writes a graph's expansion: every tensor and op.
func WriteShapesJSON(w io.Writer, g any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(g)
}
