package reconcile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/memplan/memplan/estimate"
	"github.com/memplan/memplan/internal/readlimit"
	"github.com/memplan/memplan/internal/textpos"
)

// maxMeasuredBytes bounds a measured run's file: the probe's runs take well
// under 1 MiB, so the bound only stops a device or a runaway file.
const maxMeasuredBytes = 64 << 20

// probeJSON is what a measured run's errors say is allowed.
const probeJSON = "the JSON memplan_probe.py writes"

// jsonSpace is the white space JSON allows between tokens.
const jsonSpace = " \t\r\n"

// InputError is a measured run refused at a place in its file; Msg says what
// is wrong and what is allowed.
type InputError struct {
	File      string
	Line, Col int
	Msg       string
	// Err is the decoder's error Msg describes, when there is one.
	Err error
}

// Error is FILE:LINE:COL: Msg.
func (e *InputError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Unwrap returns the decoder's error, if any.
func (e *InputError) Unwrap() error { return e.Err }

// ReadMeasured reads a measured run from a file and checks it as
// ParseMeasured does.
func ReadMeasured(path string) (*Measured, error) {
	data, err := readlimit.File(path, maxMeasuredBytes)
	var tooLarge *readlimit.TooLargeError
	if errors.As(err, &tooLarge) {
		return nil, &InputError{File: path, Line: 1, Col: 1, Err: err,
			Msg: fmt.Sprintf("the file is larger than %d bytes (allowed: at most %d, %s)", int64(maxMeasuredBytes), int64(maxMeasuredBytes), probeJSON)}
	}
	if err != nil {
		return nil, fmt.Errorf("reading measured run: %w", err)
	}
	return ParseMeasured(path, data)
}

// ParseMeasured decodes and checks a measured run held in memory; file names
// it in errors, each an *InputError with the line and column of what is
// wrong: the JSON's syntax (one object, nothing after it, no byte-order
// mark, as Python's json.load reads it), each value's type, at least one
// iteration, known phase names, allocator counters that are not all zero,
// and no negative byte count, counter or time.
func ParseMeasured(file string, data []byte) (*Measured, error) {
	src := &source{file: file, data: data}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return nil, src.errorAt(0, nil, "the file starts with a UTF-8 byte-order mark (allowed: %s, which has none; Python's json.load refuses one too)", probeJSON)
	}
	if len(bytes.Trim(data, jsonSpace)) == 0 {
		return nil, src.errorAt(0, nil, "empty file (allowed: %s)", probeJSON)
	}
	m := &Measured{src: src}
	if err := json.Unmarshal(data, m); err != nil {
		return nil, src.decodeError(err)
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return m, nil
}

// SameModel checks that the run measured the model r describes, by the
// physical quantities the probe recorded of it: the parameter count and the
// parameters' bytes, where the file has them, must be the estimate's.
// description names the description file in the message.
func (m *Measured) SameModel(r *estimate.Result, description string) error {
	what := "the run"
	if m.Case != "" {
		what = fmt.Sprintf("the run (case %q)", m.Case)
	}
	if m.ParamCount > 0 && m.ParamCount != r.Model.Parameters {
		return m.src.errorAtPath("param_count", nil,
			"%s has %d parameters, %s describes %d: it is another model (allowed: a run of the described model, with its parameter count)",
			what, m.ParamCount, description, r.Model.Parameters)
	}
	if m.ParamBytes > 0 && m.ParamBytes != r.Model.ParameterBytes {
		return m.src.errorAtPath("param_bytes", nil,
			"%s keeps its parameters in %d bytes, %s describes %d: another model or precision (allowed: a run of the described model, with its parameter dtype)",
			what, m.ParamBytes, description, r.Model.ParameterBytes)
	}
	return nil
}

// check refuses a decoded run that has nothing to compare or impossible
// figures.
func (m *Measured) check() error {
	s := m.src
	if len(m.Iterations) == 0 {
		return s.errorAtPath("iterations", nil, "no iterations (allowed: %s: iterations[i].phases.forward.before/after …)", probeJSON)
	}
	for i, it := range m.Iterations {
		at := fmt.Sprintf("iterations[%d]", i)
		if len(it.Phases) == 0 {
			return s.errorAtPath(at+".phases", nil, "iteration %d has no phases (allowed: forward, backward, optimizer, zero_grad, each with before and after)", i)
		}
		for _, name := range slices.Sorted(maps.Keys(it.Phases)) {
			var p estimate.Phase
			if err := p.UnmarshalText([]byte(name)); err != nil {
				return s.errorAtPath(at+".phases."+name, err, "iteration %d: unknown phase %q (allowed: forward, backward, optimizer, zero_grad)", i, name)
			}
			if ph := it.Phases[name]; ph.After.AllocatedPeak == 0 && ph.After.ReservedCurrent == 0 {
				return s.errorAtPath(at+".phases."+name+".after", nil, "iteration %d %s: no allocator counters (allowed: after with allocated_bytes.all.peak and reserved_bytes.all.current, not both 0)", i, name)
			}
		}
	}
	return m.checkNegatives()
}

// checkNegatives refuses the first negative figure in the file: byte counts,
// counters and times cannot be below 0.
func (m *Measured) checkNegatives() error {
	type bad struct {
		path, value string
		at          int64
	}
	var found []bad
	add := func(path string, v int64) {
		if v < 0 {
			found = append(found, bad{path, fmt.Sprint(v), m.src.offsetOf(path)})
		}
	}
	stats := func(path string, st Stats) {
		v := reflect.ValueOf(st)
		for i := 0; i < v.NumField(); i++ {
			add(path+"."+v.Type().Field(i).Tag.Get("json"), v.Field(i).Int())
		}
	}
	nvml := func(path string, n NVML) {
		add(path+".device_used", n.DeviceUsed)
		for i, p := range n.Procs {
			add(fmt.Sprintf("%s.procs[%d].used", path, i), p.Used)
		}
	}
	add("param_count", m.ParamCount)
	add("param_bytes", m.ParamBytes)
	add("input_bytes", m.InputBytes)
	add("optimizer_state_bytes", m.OptimizerStateBytes)
	nvml("nvml_before_cuda", m.NVMLBeforeCUDA)
	nvml("nvml_after_context", m.NVMLAfterContext)
	nvml("nvml_final", m.NVMLFinal)
	stats("stats_after_context", m.StatsAfterContext)
	stats("after_model", m.AfterModel)
	stats("after_inputs", m.AfterInputs)
	stats("final_stats", m.FinalStats)
	for i, it := range m.Iterations {
		for _, name := range slices.Sorted(maps.Keys(it.Phases)) {
			at := fmt.Sprintf("iterations[%d].phases.%s", i, name)
			ph := it.Phases[name]
			stats(at+".before", ph.Before)
			stats(at+".after", ph.After)
			if ph.Ms < 0 {
				found = append(found, bad{at + ".ms", fmt.Sprint(ph.Ms), m.src.offsetOf(at + ".ms")})
			}
		}
	}
	if len(found) == 0 {
		return nil
	}
	first := found[0]
	for _, b := range found[1:] {
		if b.at < first.at {
			first = b
		}
	}
	return m.src.errorAt(first.at, nil, "%s is %s (allowed: 0 or more: bytes, counts and times are never negative)", first.path, first.value)
}

// source is the file a measured run was read from, with the position of
// each of its JSON values (indexed on first use) for errors.
type source struct {
	file  string
	data  []byte
	spans []span
	// byPath maps a value's lower-cased path to its index in spans (JSON
	// keys match struct fields case-insensitively, and a repeated key's last
	// value is the one decoded).
	byPath map[string]int
}

// span is one JSON value: its path (iterations[0].phases.forward.ms) and
// its bytes, data[start:end].
type span struct {
	path       string
	start, end int64
}

// decodeError turns json.Unmarshal's error into an *InputError at the
// place it names, in words about the file rather than about Go types.
func (s *source) decodeError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		msg := se.Error()
		switch {
		case msg == "unexpected end of JSON input":
			end := int64(len(bytes.TrimRight(s.data, jsonSpace)))
			return s.errorAt(end, err, "the file ends before the JSON object does (allowed: %s, whole)", probeJSON)
		case strings.HasSuffix(msg, "after top-level value"):
			return s.errorAt(se.Offset-1, err, "more after the JSON object (allowed: one JSON object, then only white space)")
		default:
			return s.errorAt(se.Offset-1, err, "not valid JSON: %s (allowed: %s)", msg, probeJSON)
		}
	case errors.As(err, &te):
		sp := s.spanAt(te.Offset)
		value := describe(s.data[sp.start:sp.end])
		if sp.path == "" {
			return s.errorAt(sp.start, err, "the file holds %s (allowed: a JSON object, %s)", value, probeJSON)
		}
		return s.errorAt(sp.start, err, "%s is %s (allowed: %s)", sp.path, value, allowedKind(te.Type))
	default:
		return s.errorAt(0, err, "not readable as a measured run (allowed: %s)", probeJSON)
	}
}

// describe names a JSON value as an error shows it: an object, an array, or
// the literal itself, shortened.
func describe(raw []byte) string {
	switch {
	case len(raw) == 0:
		return "empty"
	case raw[0] == '{':
		return "an object"
	case raw[0] == '[':
		return "an array"
	}
	if utf8.RuneCount(raw) > 40 {
		r := []rune(string(raw))
		return string(r[:40]) + "…"
	}
	return string(raw)
}

// allowedKind says in JSON's words what a field of type t takes.
func allowedKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Int64:
		return "a whole number from 0 to 9223372036854775807"
	case reflect.Int, reflect.Int32, reflect.Uint, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	}
	return "the value memplan_probe.py writes there"
}

// errorAt is an *InputError at byte offset off of the file; for a run not
// read from a file (s nil), a plain error.
func (s *source) errorAt(off int64, err error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if s == nil {
		if err != nil {
			return fmt.Errorf("measured run: %s: %w", msg, err)
		}
		return fmt.Errorf("measured run: %s", msg)
	}
	line, col := textpos.LineCol(s.data, off)
	return &InputError{File: s.file, Line: line, Col: col, Msg: msg, Err: err}
}

// errorAtPath is errorAt the value at path, or at the nearest enclosing
// value the file has.
func (s *source) errorAtPath(path string, err error, format string, args ...any) error {
	return s.errorAt(s.offsetOf(path), err, format, args...)
}

// offsetOf is the offset of the value at path, or of the nearest value
// enclosing it that the file has (0, the start, at worst).
func (s *source) offsetOf(path string) int64 {
	if s == nil {
		return 0
	}
	s.index()
	for p := strings.ToLower(path); p != ""; {
		if i, ok := s.byPath[p]; ok {
			return s.spans[i].start
		}
		cut := max(strings.LastIndexByte(p, '.'), strings.LastIndexByte(p, '['))
		if cut < 0 {
			break
		}
		p = p[:cut]
	}
	return 0
}

// spanAt is the innermost value that ends at or contains offset off as
// json.UnmarshalTypeError reports it (just past a literal, just inside an
// object or array).
func (s *source) spanAt(off int64) span {
	s.index()
	best := span{end: int64(len(s.data))}
	for _, sp := range s.spans {
		if sp.start < off && off <= sp.end {
			best = sp
		}
	}
	return best
}

// index records every value's path and bytes; the data is valid JSON by
// the time it is needed.
func (s *source) index() {
	if s.byPath != nil {
		return
	}
	s.byPath = map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(s.data))
	dec.UseNumber()
	_ = s.walk(dec, "") // a syntax error was reported before any lookup
}

// walk indexes the value dec reads next, at path, and those inside it.
func (s *source) walk(dec *json.Decoder, path string) error {
	start := dec.InputOffset()
	for start < int64(len(s.data)) && strings.IndexByte(jsonSpace+",:", s.data[start]) >= 0 {
		start++
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	i := len(s.spans)
	s.spans = append(s.spans, span{path: path, start: start})
	s.byPath[strings.ToLower(path)] = i
	switch tok {
	case json.Delim('{'):
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return err
			}
			k, _ := key.(string)
			sub := k
			if path != "" {
				sub = path + "." + k
			}
			if err := s.walk(dec, sub); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
	case json.Delim('['):
		for n := 0; dec.More(); n++ {
			if err := s.walk(dec, fmt.Sprintf("%s[%d]", path, n)); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
	}
	s.spans[i].end = dec.InputOffset()
	return nil
}
