package report

import (
	"encoding/json"
	"io"

	"github.com/memplan/memplan/estimate"
	"github.com/memplan/memplan/internal/errwriter"
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

// WriteEvents writes the event timeline as tab-separated lines: iteration,
// phase, action, bytes (as the allocator counts them), role, op, tensor,
// allocated and reserved after the event.
func WriteEvents(w io.Writer, r *estimate.Result) error {
	ew := errwriter.New(w)
	ew.Printf("iteration\tphase\taction\tbytes\trole\top\ttensor\tallocated\treserved\trequested\n")
	for _, e := range r.Timeline {
		ew.Printf("%d\t%s\t%s\t%d\t%s\t%s\t%s\t%d\t%d\t%d\n", e.Iteration, e.Phase, e.Action, e.Bytes, e.Role, e.Op, e.Tensor, e.Allocated, e.Reserved, e.Requested)
	}
	return ew.Err
}
