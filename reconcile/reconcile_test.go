package reconcile

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/estimate"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// goldenCases: the estimate each golden is made from is frozen in
// testdata/CASE.estimate.json (the root package's TestReconcileFixtures
// refreshes them); the measured runs are the repository's H200 runs.
var goldenCases = []struct {
	name, measured string
	rows           int
	html           bool
}{
	{"gpt2-fp32-adamw-b8", "../testdata/measured/h200/gpt2-fp32-adamw-b8.json", 8, true},
	{"resnet50-fp32-sgd-b64", "../testdata/validation/h200/resnet50-fp32-sgd-b64.json", 8, true},
	{"resnet18-fp32-sgd-b64", "../testdata/measured/h200/resnet18-fp32-sgd-b64.json", 8, false},
	{"resnet50-fp32-infer-b64", "../testdata/measured/h200/resnet50-fp32-infer-b64.json", 2, false},
	{"custom-convnet-fp32-sgd-b64", "../testdata/measured/h200/custom-convnet-fp32-sgd-b64.json", 8, false},
	{"mlp10m-fp32-adam", "../testdata/measured/h200/mlp10m-fp32-adam.json", 8, true},
	{"custom-transformer-fp32-adamw-b8", "../testdata/measured/h200/custom-transformer-fp32-adamw-b8.json", 8, false},
}

func loadCase(t *testing.T, name, measured string) (*estimate.Result, *Measured) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".estimate.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r estimate.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	m, err := ReadMeasured(measured)
	if err != nil {
		t.Fatal(err)
	}
	return &r, m
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./reconcile -update)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs from line %d:\n got: %s\nwant: %s\n(run go test ./reconcile -update if the change is meant)", path, i+1, g, w)
			}
		}
	}
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			r, m := loadCase(t, c.name, c.measured)
			rep := Compare(r, m)
			var buf bytes.Buffer
			if err := WriteText(&buf, rep); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", c.name+".txt"), buf.Bytes())
			if c.html {
				buf.Reset()
				if err := WriteHTML(&buf, rep); err != nil {
					t.Fatal(err)
				}
				golden(t, filepath.Join("testdata", c.name+".html"), buf.Bytes())
			}
			// Every term of the estimate is in the report, included or not.
			if len(rep.Terms) != len(r.Terms) {
				t.Errorf("%d terms, the estimate has %d", len(rep.Terms), len(r.Terms))
			}
			// Both iterations, every phase.
			if len(rep.Rows) != c.rows {
				t.Errorf("%d rows, want %d", len(rep.Rows), c.rows)
			}
		})
	}
}

// TestCompareGPT2 checks the numbers behind the GPT-2 report against the
// measured file itself.
func TestCompareGPT2(t *testing.T) {
	c := goldenCases[0]
	r, m := loadCase(t, c.name, c.measured)
	rep := Compare(r, m)
	last := len(m.Iterations) - 1
	for _, row := range rep.Rows {
		want := 0
		if row.Iteration == 2 {
			want = last
		}
		if row.MeasuredIteration != want {
			t.Errorf("%s compared with run iteration %d, want %d", row.Label(), row.MeasuredIteration, want)
		}
		mp, _ := m.Phase(want, row.Phase)
		if row.PeakAllocated.Measured != mp.After.AllocatedPeak || row.PeakReserved.Measured != mp.After.ReservedPeak || row.EndAllocated.Measured != mp.After.AllocatedCurrent {
			t.Errorf("%s: measured figures %+v do not come from the run's phase", row.Label(), row)
		}
		// zero_grad only frees: its peak is its start in both.
		if row.Phase == estimate.PhaseZeroGrad && (!row.StaleAllocated || !row.EstimatedStaleAllocated) {
			t.Errorf("%s: zero_grad peak not flagged stale (run %v, estimate %v)", row.Label(), row.StaleAllocated, row.EstimatedStaleAllocated)
		}
		if row.Phase == estimate.PhaseForward && row.StaleAllocated {
			t.Errorf("%s: forward flagged stale", row.Label())
		}
	}
	d := rep.Device
	if d.Used.Measured != m.NVMLFinal.Procs[0].Used {
		t.Errorf("nvidia-smi measured %d, NVML process %d", d.Used.Measured, m.NVMLFinal.Procs[0].Used)
	}
	if d.Outside.Measured != m.NVMLFinal.Procs[0].Used-m.FinalStats.ReservedCurrent {
		t.Errorf("outside measured %d", d.Outside.Measured)
	}
	if d.Context.Measured != m.NVMLAfterContext.Procs[0].Used || d.Context.Measured+d.Kernels.Measured != d.Outside.Measured {
		t.Errorf("context %d + kernels %d != outside %d", d.Context.Measured, d.Kernels.Measured, d.Outside.Measured)
	}
	if d.Used.Estimated != r.Peak.DeviceUsedBytes || d.Outside.Estimated != r.Peak.DeviceUsedBytes-r.Peak.ReservedBytes {
		t.Errorf("estimated nvidia-smi %+v", d)
	}
	kinds := map[CauseKind]bool{}
	for _, c := range rep.Causes {
		kinds[c.Kind] = true
	}
	for _, k := range []CauseKind{CauseLargestMiss, CauseSegments, CauseStaleness, CauseOutside} {
		if !kinds[k] {
			t.Errorf("no %s cause", k)
		}
	}
	if rep.Largest == nil {
		t.Fatal("no largest miss")
	}
	for _, row := range rep.Rows {
		for _, f := range phaseFigures {
			if abs(row.Pair(f).Error()) > abs(rep.Largest.Pair.Error()) {
				t.Errorf("%s %s misses by more than the largest miss", row.Label(), f)
			}
		}
	}
}

// synthetic builds a one-phase-per-iteration estimate and run whose numbers
// the causes must quote.
func synthetic() (*estimate.Result, *Measured) {
	const M = 1 << 20
	r := &estimate.Result{
		Name:  "syn",
		Model: estimate.ModelSummary{Parameters: 10, ParameterBytes: 40},
		GPU:   estimate.GPUSummary{Profile: "h200", Name: "NVIDIA H200"},
		Iterations: []estimate.IterationRun{
			{Iteration: 1, Phases: []estimate.PhaseRun{
				{Phase: estimate.PhaseForward, PeakAllocatedBytes: 100 * M, PeakReservedBytes: 190 * M, EndAllocatedBytes: 80 * M, EndReservedBytes: 190 * M},
				{Phase: estimate.PhaseBackward, PeakAllocatedBytes: 150 * M, PeakReservedBytes: 190 * M, EndAllocatedBytes: 20 * M, EndReservedBytes: 190 * M},
			}},
			{Iteration: 2, Phases: []estimate.PhaseRun{
				{Phase: estimate.PhaseForward, PeakAllocatedBytes: 100 * M, PeakReservedBytes: 190 * M, EndAllocatedBytes: 80 * M, EndReservedBytes: 190 * M},
				{Phase: estimate.PhaseBackward, PeakAllocatedBytes: 150 * M, PeakReservedBytes: 190 * M, EndAllocatedBytes: 20 * M, EndReservedBytes: 190 * M},
			}},
		},
		Peak:  estimate.Peak{AllocatedBytes: 150 * M, ReservedBytes: 190 * M, DeviceUsedBytes: 940 * M, Iteration: 1, Phase: estimate.PhaseBackward},
		Terms: []estimate.Term{{Name: "CUDA context", Bytes: 500 * M, Included: true}, {Name: "library kernels", Bytes: 250 * M, Included: true}, {Name: "NCCL buffers", Note: "<none>"}},
	}
	st := func(cur, peak, res, resPeak int64) Stats {
		return Stats{AllocatedCurrent: cur * M, AllocatedPeak: peak * M, ReservedCurrent: res * M, ReservedPeak: resPeak * M, RequestedPeak: peak*M - 1024, SegmentsCurrent: 4}
	}
	it := func(fwdStart int64, fwdRes int64) MeasuredIteration {
		return MeasuredIteration{Phases: map[string]MeasuredPhase{
			"forward":  {Before: st(fwdStart, fwdStart, fwdRes, fwdRes), After: st(80, 110, 200, 200)},
			"backward": {Before: st(80, 80, 200, 200), After: st(20, 80, 200, 200)}, // the peak is the start: stale
		}}
	}
	m := &Measured{
		Case: "syn", ParamCount: 12, ParamBytes: 48,
		NVMLAfterContext: NVML{Procs: []Proc{{PID: 1, Used: 500 * M}}},
		NVMLFinal:        NVML{DeviceUsed: 2000 * M, Procs: []Proc{{PID: 1, Used: 1000 * M}}},
		FinalStats:       Stats{ReservedCurrent: 200 * M},
		Iterations:       []MeasuredIteration{it(10, 20), it(20, 20), it(20, 200)},
	}
	return r, m
}

func TestCompareSynthetic(t *testing.T) {
	r, m := synthetic()
	rep := Compare(r, m)
	if len(rep.Rows) != 4 {
		t.Fatalf("%d rows", len(rep.Rows))
	}
	bw := rep.Rows[1]
	if !bw.StaleAllocated || bw.EstimatedStaleAllocated {
		t.Errorf("backward: run stale %v (want true), estimate stale %v (want false)", bw.StaleAllocated, bw.EstimatedStaleAllocated)
	}
	if bw.Start != (Pair{80 << 20, 80 << 20}) {
		t.Errorf("backward start %+v", bw.Start)
	}
	if rep.Rows[0].Start.Estimated != Unknown || rep.Rows[2].Start.Estimated != 20<<20 {
		t.Errorf("forward starts %+v, %+v", rep.Rows[0].Start, rep.Rows[2].Start)
	}
	if rep.Largest == nil || rep.Largest.Row != 1 || rep.Largest.Figure != PeakAllocated || rep.Largest.Pair.Error() != 70<<20 {
		t.Errorf("largest miss %+v, want iteration 1 backward peak allocated +70 MiB", rep.Largest)
	}
	if d := rep.Device; d.Outside.Measured != 800<<20 || d.Context.Measured != 500<<20 || d.Kernels.Measured != 300<<20 || d.OtherOnDevice != 1000<<20 {
		t.Errorf("device %+v", d)
	}
	text := map[CauseKind]string{}
	for _, c := range rep.Causes {
		text[c.Kind] += c.Text + "\n"
	}
	for k, want := range map[CauseKind][]string{
		CauseModel:       {"10 parameters, the run 12"},
		CauseLargestMiss: {"+70.0 MiB", "already off when the phase began", "+70.0 MiB arises within the phase"},
		CauseStaleness:   {"backward (80.0 MiB, its start", "the estimate rises above the phase's start, the run does not"},
		CauseOutside:     {"lazily loaded kernels (-50.0 MiB)", "1000.0 MiB not in this process"},
		CauseNotSteady:   {"+180.0 MiB in run iteration 1 forward", "run iteration 2 grew nothing"},
	} {
		for _, w := range want {
			if !strings.Contains(text[k], w) {
				t.Errorf("%s cause lacks %q:\n%s", k, w, text[k])
			}
		}
	}
}

func TestHTMLEscapes(t *testing.T) {
	r, m := synthetic()
	r.Name = `<script>alert("x")</script>`
	r.Warnings = []string{"<b>bold</b>"}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, Compare(r, m)); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, bad := range []string{"<script>", "<b>bold", "<none>"} {
		if strings.Contains(out, bad) {
			t.Errorf("unescaped %q in the page", bad)
		}
	}
	if !strings.Contains(out, "&lt;script&gt;") || strings.Contains(out, "src=") || strings.Contains(out, "href=") {
		t.Error("the page is not escaped or not self-contained")
	}
}

// TestParseMeasuredRefuses: each refusal is one line, FILE:LINE:COL, what
// is wrong and what is allowed, in the file's words, not Go's.
func TestParseMeasuredRefuses(t *testing.T) {
	const after = `"after": {"allocated_bytes.all.peak": 5, "reserved_bytes.all.current": 8}`
	for _, c := range []struct{ in, want string }{
		{``, "m.json:1:1: empty file (allowed: the JSON memplan_probe.py writes)"},
		{" \n\t\n", "m.json:1:1: empty file (allowed: the JSON memplan_probe.py writes)"},
		{"\xef\xbb\xbf{}", "m.json:1:1: the file starts with a UTF-8 byte-order mark (allowed: the JSON memplan_probe.py writes, which has none; Python's json.load refuses one too)"},
		{`nope`, "m.json:1:2: not valid JSON: invalid character 'o' in literal null (expecting 'u') (allowed: the JSON memplan_probe.py writes)"},
		{"{\n  \"case\": \"x\",\n  ]", "m.json:3:3: not valid JSON: invalid character ']' looking for beginning of object key string (allowed: the JSON memplan_probe.py writes)"},
		{"{\"iterations\": [\n", "m.json:1:17: the file ends before the JSON object does (allowed: the JSON memplan_probe.py writes, whole)"},
		{"{\"iterations\": [{\"phases\": {\"forward\": {" + after + "}}}]}\nxyz\n", "m.json:2:1: more after the JSON object (allowed: one JSON object, then only white space)"},
		{"{\"iterations\": [{\"phases\": {\"forward\": {" + after + "}}}]}}", "m.json:1:119: more after the JSON object (allowed: one JSON object, then only white space)"},
		{`[1, 2]`, "m.json:1:1: the file holds an array (allowed: a JSON object, the JSON memplan_probe.py writes)"},
		{`"x"`, `m.json:1:1: the file holds "x" (allowed: a JSON object, the JSON memplan_probe.py writes)`},
		{"{\n \"iterations\": \"forward\"}", `m.json:2:16: iterations is "forward" (allowed: an array)`},
		{`{"iterations": {"phases": {}}}`, "m.json:1:16: iterations is an object (allowed: an array)"},
		{`{"param_count": "ten"}`, `m.json:1:17: param_count is "ten" (allowed: a whole number from 0 to 9223372036854775807)`},
		{`{"param_count": 1e30}`, "m.json:1:17: param_count is 1e30 (allowed: a whole number from 0 to 9223372036854775807)"},
		{`{"iterations": [{"phases": {"forward": {"after": {"allocated_bytes.all.peak": 1.5}}}}]}`, "m.json:1:79: iterations[0].phases.forward.after.allocated_bytes.all.peak is 1.5 (allowed: a whole number from 0 to 9223372036854775807)"},
		{`{"iterations": [{"phases": {"forward": {"ms": true}}}]}`, "m.json:1:47: iterations[0].phases.forward.ms is true (allowed: a number)"},
		{`{"case": "x"}`, "m.json:1:1: no iterations (allowed: the JSON memplan_probe.py writes: iterations[i].phases.forward.before/after …)"},
		{`{"case": "x", "iterations": []}`, "m.json:1:29: no iterations (allowed: the JSON memplan_probe.py writes: iterations[i].phases.forward.before/after …)"},
		{`{"iterations": [{"phases": {}}]}`, "m.json:1:28: iteration 0 has no phases (allowed: forward, backward, optimizer, zero_grad, each with before and after)"},
		{`{"iterations": [{}]}`, "m.json:1:17: iteration 0 has no phases (allowed: forward, backward, optimizer, zero_grad, each with before and after)"},
		{`{"iterations": [{"phases": {"warmup": {"after": {"allocated_bytes.all.peak": 1}}}}]}`, `m.json:1:39: iteration 0: unknown phase "warmup" (allowed: forward, backward, optimizer, zero_grad)`},
		{`{"iterations": [{"phases": {"forward": {"after": {}}}}]}`, "m.json:1:50: iteration 0 forward: no allocator counters (allowed: after with allocated_bytes.all.peak and reserved_bytes.all.current, not both 0)"},
		{`{"iterations": [{"phases": {"forward": {"before": {}}}}]}`, "m.json:1:40: iteration 0 forward: no allocator counters (allowed: after with allocated_bytes.all.peak and reserved_bytes.all.current, not both 0)"},
		{"{\"iterations\": [{\"phases\": {\"forward\": {\n  \"after\": {\"allocated_bytes.all.peak\": -5, \"reserved_bytes.all.current\": 8}}}}]}", "m.json:2:41: iterations[0].phases.forward.after.allocated_bytes.all.peak is -5 (allowed: 0 or more: bytes, counts and times are never negative)"},
		{`{"iterations": [{"phases": {"forward": {` + after + `, "before": {"reserved_bytes.all.peak": -1}}}}]}`, "m.json:1:154: iterations[0].phases.forward.before.reserved_bytes.all.peak is -1 (allowed: 0 or more: bytes, counts and times are never negative)"},
		{`{"iterations": [{"phases": {"forward": {` + after + `, "ms": -0.5}}}]}`, "m.json:1:122: iterations[0].phases.forward.ms is -0.5 (allowed: 0 or more: bytes, counts and times are never negative)"},
		// the first negative in the file is the one named
		{`{"nvml_final": {"device_used": -1, "procs": [{"pid": 1, "used": -2}]}, "param_bytes": -3, "iterations": [{"phases": {"forward": {` + after + `}}}]}`, "m.json:1:32: nvml_final.device_used is -1 (allowed: 0 or more: bytes, counts and times are never negative)"},
		{`{"param_bytes": -3, "nvml_final": {"procs": [{"pid": 1, "used": -2}]}, "iterations": [{"phases": {"forward": {` + after + `}}}]}`, "m.json:1:17: param_bytes is -3 (allowed: 0 or more: bytes, counts and times are never negative)"},
		{`{"nvml_final": {"procs": [{"pid": 1, "used": -2}]}, "iterations": [{"phases": {"forward": {` + after + `}}}]}`, "m.json:1:46: nvml_final.procs[0].used is -2 (allowed: 0 or more: bytes, counts and times are never negative)"},
		{`{"stats_after_context": {"segment.all.current": -7}, "iterations": [{"phases": {"forward": {` + after + `}}}]}`, "m.json:1:49: stats_after_context.segment.all.current is -7 (allowed: 0 or more: bytes, counts and times are never negative)"},
	} {
		_, err := ParseMeasured("m.json", []byte(c.in))
		if err == nil || err.Error() != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.in, err, c.want)
			continue
		}
		var ie *InputError
		if !errors.As(err, &ie) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %T %q, want one line, an *InputError", c.in, err, err)
		}
		for _, leak := range []string{"Go ", "reconcile.", "int64", "json: ", "EOF", "struct"} {
			if strings.Contains(err.Error(), leak) {
				t.Errorf("%q: %q shows %q", c.in, err, leak)
			}
		}
	}
}

// The decoder's error stays reachable under the message.
func TestParseMeasuredWraps(t *testing.T) {
	_, err := ParseMeasured("m.json", []byte(`{"iterations": 3}`))
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		t.Errorf("%v does not wrap the decoder's error", err)
	}
}

// Every measured run in the repository parses; a matching estimate is the
// same model, a run of another model is refused at its param_count.
func TestSameModel(t *testing.T) {
	for _, c := range goldenCases {
		r, m := loadCase(t, c.name, c.measured)
		if err := m.SameModel(r, c.name+".yaml"); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	r, _ := loadCase(t, "mlp10m-fp32-adam", "../testdata/measured/h200/mlp10m-fp32-adam.json")
	_, gpt2 := loadCase(t, "gpt2-fp32-adamw-b8", "../testdata/measured/h200/gpt2-fp32-adamw-b8.json")
	want := `../testdata/measured/h200/gpt2-fp32-adamw-b8.json:56:17: the run (case "gpt2-fp32-adamw-b8") has 124439808 parameters, mlp.yaml describes 10000000: it is another model (allowed: a run of the described model, with its parameter count)`
	if err := gpt2.SameModel(r, "mlp.yaml"); err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	// the same count in another dtype: the parameters' bytes differ
	m, err := ParseMeasured("m.json", []byte(`{"case": "c", "param_count": 10000000,
 "param_bytes": 20000000, "iterations": [{"phases": {"forward": {"after": {"allocated_bytes.all.peak": 5}}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want = `m.json:2:17: the run (case "c") keeps its parameters in 20000000 bytes, mlp.yaml describes 40000000: another model or precision (allowed: a run of the described model, with its parameter dtype)`
	if err := m.SameModel(r, "mlp.yaml"); err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	// a run that records neither (older probes) is taken as it is
	m.ParamCount, m.ParamBytes = 0, 0
	if err := m.SameModel(r, "mlp.yaml"); err != nil {
		t.Error(err)
	}
	// a run built in memory has no file to point into
	_, syn := synthetic()
	if err := syn.SameModel(r, "mlp.yaml"); err == nil || !strings.HasPrefix(err.Error(), `measured run: the run (case "syn") has 12 parameters`) {
		t.Errorf("in memory: %v", err)
	}
}

func TestOneIterationRun(t *testing.T) {
	r, m := synthetic()
	m.Iterations = m.Iterations[:1]
	rep := Compare(r, m)
	if len(rep.Rows) != 2 || !strings.Contains(strings.Join(rep.Warnings, "\n"), "nothing to compare") {
		t.Errorf("rows %d, warnings %q", len(rep.Rows), rep.Warnings)
	}
}
