package allocator

import (
	"math/bits"
	"strconv"
	"strings"
)

// ParseAllocConf reads a PYTORCH_CUDA_ALLOC_CONF (or PYTORCH_ALLOC_CONF)
// string such as "expandable_segments:True,max_split_size_mb:512" into a
// Config. It understands expandable_segments, max_split_size_mb and a
// single-valued roundup_power2_divisions; options that do not change the
// counters this package models (backend:native,
// garbage_collection_threshold, release_lock_on_cudamalloc, the pinned_*
// options) are accepted and ignored. Capacity is left 0.
func ParseAllocConf(s string) (Config, error) {
	var cfg Config
	for _, opt := range confOptions(s) {
		key, val, ok := strings.Cut(opt, ":")
		if !ok {
			return cfg, &ConfigError{Field: opt, Reason: "want key:value"}
		}
		switch key {
		case "expandable_segments":
			switch val {
			case "True":
				cfg.ExpandableSegments = true
			case "False":
				cfg.ExpandableSegments = false
			default:
				return cfg, &ConfigError{Field: key, Reason: strconv.Quote(val) + ": want True or False"}
			}
		case "max_split_size_mb":
			mb, err := strconv.ParseInt(val, 10, 64)
			if err != nil || mb <= LargeBuffer>>20 || mb > 1<<40 {
				return cfg, &ConfigError{Field: key, Reason: strconv.Quote(val) + ": want a whole number of MiB above 20"}
			}
			cfg.MaxSplitSize = mb << 20
		case "roundup_power2_divisions":
			if strings.HasPrefix(val, "[") {
				by, err := ParseRoundupDivisions(val)
				if err != nil {
					return cfg, err
				}
				cfg.RoundupPower2DivisionsBySize = by
				continue
			}
			d, err := strconv.Atoi(val)
			if err != nil || d < 0 || d&(d-1) != 0 {
				return cfg, &ConfigError{Field: key, Reason: strconv.Quote(val) +
					": want a power of two, or a list such as [256:1,512:2,>:8]"}
			}
			cfg.RoundupPower2Divisions = d
		case "backend":
			if val != "native" {
				return cfg, &ConfigError{Field: key, Reason: strconv.Quote(val) + ": only the native caching allocator is modelled"}
			}
		case "garbage_collection_threshold", "release_lock_on_cudamalloc", "expandable_segments_handle_type",
			"pinned_use_cuda_host_register", "pinned_num_register_threads", "pinned_use_background_threads",
			"pinned_reserve_segment_size_mb", "graph_capture_record_stream_reuse":
			// no effect on the modelled counters
		default:
			return cfg, &ConfigError{Field: key, Reason: "unknown option; known: expandable_segments, " +
				"max_split_size_mb, roundup_power2_divisions (and options without effect on the counters)"}
		}
	}
	return cfg, nil
}

// confOptions splits an allocator configuration into its options at
// commas and blanks outside brackets.
func confOptions(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case depth == 0 && (r == ',' || r == ' ' || r == '\t'):
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// ParseRoundupDivisions reads roundup_power2_divisions' list form,
// "[256:1,512:2,1024:4,>:8]", as c10's AcceleratorAllocatorConfig does
// (PyTorch 2.11): each key is a power-of-two size in MiB naming the range
// [key, 2·key) MiB, the first key also fills every range below it, a range
// no key names is 0 (plain 512-byte rounding), and ">" fills every range
// above the last key named; divisions are powers of two, or 0 for none.
func ParseRoundupDivisions(s string) ([RoundupIntervals]int, error) {
	var by [RoundupIntervals]int
	bad := func(reason string) ([RoundupIntervals]int, error) {
		return by, &ConfigError{Field: "roundup_power2_divisions", Reason: strconv.Quote(s) + ": " + reason +
			" (allowed: a list such as [256:1,512:2,>:8]: sizes in MiB and divisions, powers of two)"}
	}
	body, ok := strings.CutPrefix(strings.TrimSpace(s), "[")
	if body, ok = strings.CutSuffix(body, "]"); !ok || strings.TrimSpace(body) == "" {
		return bad("want a bracketed list")
	}
	last, first := 0, true
	for _, entry := range strings.Split(body, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(entry), ":")
		if !ok {
			return bad(strconv.Quote(entry) + " is not size:divisions")
		}
		d, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || d < 0 || d&(d-1) != 0 {
			return bad("divisions " + strconv.Quote(v) + " are not a power of two or 0")
		}
		if k = strings.TrimSpace(k); k == ">" {
			for i := last + 1; i < RoundupIntervals; i++ {
				by[i] = d
			}
			continue
		}
		mb, err := strconv.ParseInt(k, 10, 64)
		if err != nil || mb < 1 || mb&(mb-1) != 0 {
			return bad("size " + strconv.Quote(k) + " is not a power of two")
		}
		i := min(bits.Len64(uint64(mb))-1, RoundupIntervals-1)
		if first {
			for j := 0; j < i; j++ {
				by[j] = d
			}
			first = false
		}
		by[i], last = d, i
	}
	return by, nil
}
