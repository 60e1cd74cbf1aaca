package allocator

import (
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
	for _, opt := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
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
			d, err := strconv.Atoi(val)
			if err != nil || d < 0 || d&(d-1) != 0 {
				return cfg, &ConfigError{Field: key, Reason: strconv.Quote(val) +
					": want one power of two (per-size lists are not modelled)"}
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
