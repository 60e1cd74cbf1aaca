package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/report"
	"github.com/memplan/memplan/spec"
)

// sweep estimates the grid of --set values and writes one row per point.
func sweep(path, gpu, format string, sets []string, stdout, stderr io.Writer) error {
	p, err := newPlanner(path, gpu)
	if err != nil {
		return err
	}
	type axis struct {
		key    string
		values []string
	}
	var axes []axis
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		k = strings.TrimSpace(k)
		if !ok || v == "" {
			return usageError{fmt.Errorf("--set %q: want key=v1,v2,… (keys: %s)", s, strings.Join(spec.SettableKeys(), ", "))}
		}
		if !contains(spec.SettableKeys(), k) {
			return usageError{fmt.Errorf("--set %q: unknown key %q (allowed: %s)", s, k, strings.Join(spec.SettableKeys(), ", "))}
		}
		for _, a := range axes {
			if a.key == k {
				return usageError{fmt.Errorf("--set %q: %s is already an axis (give all its values in one --set: %s=%s,%s)", s, k, k, strings.Join(a.values, ","), v)}
			}
		}
		values := strings.Split(v, ",")
		for i := range values {
			values[i] = strings.TrimSpace(values[i])
			if err := p.checkValue(k, values[i]); err != nil {
				if k == "gpu" {
					// a profile that cannot be read, as --gpu's: exit 1
					return fmt.Errorf("--set %q: %w", s, err)
				}
				return usageError{fmt.Errorf("--set %q: %w", s, err)}
			}
		}
		axes = append(axes, axis{k, values})
	}
	header := []string{}
	for _, a := range axes {
		header = append(header, a.key)
	}
	header = append(header, "peak_allocated_bytes", "peak_reserved_bytes", "device_used_bytes", "peak_iteration", "peak_phase", "alloc_retries", "error")
	// The grid in row order; points are estimated concurrently, one worker
	// per CPU, each holding one result at a time.
	var points [][][2]string
	var walk func(i int, cur [][2]string)
	walk = func(i int, cur [][2]string) {
		if i == len(axes) {
			points = append(points, append([][2]string(nil), cur...))
			return
		}
		for _, v := range axes[i].values {
			walk(i+1, append(cur, [2]string{axes[i].key, v}))
		}
	}
	walk(0, nil)
	// One worker per CPU; each estimate uses a second core only when there
	// are fewer points than cores.
	p.serial = len(points) >= runtime.GOMAXPROCS(0)
	p.skipHopeless = true
	warnings := make([][]string, len(points)) // each worker writes its own points'
	rows := inParallel(len(points), func(i int) []string {
		row, w := sweepRow(p, points[i])
		warnings[i] = w
		return row
	})
	if err := writeSweep(stdout, format, header, len(axes), rows); err != nil {
		return err
	}
	printWarnings(stderr, slices.Concat(warnings...))
	failed := 0
	for _, row := range rows {
		if row[len(row)-1] != "" {
			failed++
		}
	}
	if failed > 0 {
		return pointsFailed{failed, len(rows)}
	}
	return nil
}

// usageError is a sweep's --set that cannot be run at all (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }

func (e usageError) Unwrap() error { return e.err }

// pointsFailed: the sweep wrote every row, and some could not be estimated.
type pointsFailed struct{ failed, total int }

func (e pointsFailed) Error() string {
	return fmt.Sprintf("%d of %d grid points could not be estimated (the error column says why)", e.failed, e.total)
}

// writeSweep writes a sweep's rows (the values of its axes, then the peaks
// or the error) as CSV, JSON lines or a text table.
func writeSweep(stdout io.Writer, format string, header []string, axes int, rows [][]string) error {
	switch format {
	case "csv":
		w := csv.NewWriter(stdout)
		w.Write(header)
		w.WriteAll(rows)
		return w.Error()
	case "json", "jsonl":
		// One object a line, keys in the header's order; numbers, booleans
		// and a null error are written as such.
		for _, row := range rows {
			var line bytes.Buffer
			line.WriteByte('{')
			for i, h := range header {
				if i > 0 {
					line.WriteByte(',')
				}
				k, _ := json.Marshal(h)
				line.Write(k)
				line.WriteByte(':')
				line.Write(jsonCell(row[i], i < axes, i >= axes && i < axes+4 || i == axes+5))
			}
			line.WriteString("}\n")
			if _, err := stdout.Write(line.Bytes()); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(append(header[:axes:axes], "peak allocated", "peak reserved", "nvidia-smi", "peak at"), "\t"))
	// One unit a column, so that its figures compare at a glance: GiB when
	// any of them reaches 10 GiB, MiB otherwise.
	var sizes [3]func(int64) string
	for c := range sizes {
		sizes[c] = report.MiB
		for _, row := range rows {
			if v, err := strconv.ParseInt(row[axes+c], 10, 64); err == nil && v >= 10<<30 {
				sizes[c] = report.GiB
			}
		}
	}
	for _, row := range rows {
		cells := append([]string(nil), row[:axes]...)
		if e := row[len(row)-1]; e != "" {
			// every row has every column, so that tabwriter aligns them all
			cells = append(cells, "—", "—", "—", "error: "+e)
		} else {
			for c, size := range sizes {
				v, _ := strconv.ParseInt(row[axes+c], 10, 64)
				cells = append(cells, size(v))
			}
			at := "iter " + row[axes+3] + " " + row[axes+4]
			if n := row[axes+5]; n != "0" {
				at += " (cache released " + n + "×)"
			}
			cells = append(cells, at)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// checkValue refuses a value key cannot take, before any point runs; a
// GPU's profile is resolved once here for every point that names it.
func (p *planner) checkValue(key, value string) error {
	if key != "gpu" {
		return p.base.CheckSetting(key, value)
	}
	if value == p.base.GPU || p.profiles[value] != nil {
		return nil
	}
	prof, err := calibrate.Resolve(value)
	if err != nil {
		return err
	}
	if p.profiles == nil {
		p.profiles = map[string]*calibrate.Profile{}
	}
	p.profiles[value] = prof
	return nil
}

// jsonCell writes one cell of a sweep's row: an axis value as a number or
// boolean when it reads as one (else a string), a count (a peak, the
// iteration) as a number, the phase and the error as strings; an empty
// cell (a failed point's peaks, a point without error) is null.
func jsonCell(v string, axis, count bool) []byte {
	switch {
	case axis:
		if _, err := strconv.ParseFloat(v, 64); err == nil && json.Valid([]byte(v)) {
			return []byte(v)
		}
		if b, err := strconv.ParseBool(v); err == nil {
			return []byte(strconv.FormatBool(b))
		}
	case v == "":
		return []byte("null")
	case count:
		return []byte(v)
	}
	q, _ := json.Marshal(v)
	return q
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sweepRow estimates one grid point into a row: the values, then the peaks
// (or the error).
func sweepRow(p *planner, point [][2]string) (row, warnings []string) {
	row = make([]string, 0, len(point)+7)
	for _, kv := range point {
		row = append(row, kv[1])
	}
	r, err := p.estimate(point...)
	if err != nil {
		return append(row, "", "", "", "", "", "", firstLine(err)), nil
	}
	// A note about the point's own run (Result.Notes) is said with the point.
	for _, w := range r.Warnings {
		if slices.Contains(r.Notes, w) {
			w = pointName(point) + ": " + w
		}
		warnings = append(warnings, w)
	}
	// alloc_retries: how often the point's allocator released its cached
	// blocks to fit the GPU (0 when it never reached it).
	return append(row, fmt.Sprint(r.Peak.AllocatedBytes), fmt.Sprint(r.Peak.ReservedBytes), fmt.Sprint(r.Peak.DeviceUsedBytes), fmt.Sprint(r.Peak.Iteration), r.Peak.Phase.String(), fmt.Sprint(r.AllocRetries), ""), warnings
}

// pointName is a grid point as --set would give it: key=value, …
func pointName(point [][2]string) string {
	parts := make([]string, len(point))
	for i, kv := range point {
		parts[i] = kv[0] + "=" + kv[1]
	}
	return strings.Join(parts, " ")
}
