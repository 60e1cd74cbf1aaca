package allocator

import (
	"strings"
	"testing"
)

// TestParseRoundupDivisions follows c10's parser: the first key fills every
// range below it, ">" fills the ranges above the last key named, and a
// range between two keys stays 0.
func TestParseRoundupDivisions(t *testing.T) {
	by, err := ParseRoundupDivisions("[256:1,512:2,1024:4,>:8]")
	if err != nil {
		t.Fatal(err)
	}
	want := [RoundupIntervals]int{1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 4, 8, 8, 8, 8, 8}
	if by != want {
		t.Errorf("got %v, want %v", by, want)
	}
	if by, _ = ParseRoundupDivisions("[1:2,64:4,>:8]"); by != [RoundupIntervals]int{2, 0, 0, 0, 0, 0, 4, 8, 8, 8, 8, 8, 8, 8, 8, 8} {
		t.Errorf("[1:2,64:4,>:8]: %v", by)
	}
	for _, bad := range []string{"[]", "[256]", "[300:2]", "[256:3]", "256:2", "[256:x]", "[256:-2]"} {
		if _, err := ParseRoundupDivisions(bad); err == nil || !strings.Contains(err.Error(), "allowed:") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	cfg, err := ParseAllocConf("expandable_segments:False,roundup_power2_divisions:[256:1,512:2,1024:4,>:8],max_split_size_mb:512")
	if err != nil || cfg.RoundupPower2DivisionsBySize != want || cfg.MaxSplitSize != 512<<20 {
		t.Errorf("ParseAllocConf: %+v, %v", cfg, err)
	}
}

// TestRoundSizeBySize: a request is rounded with the divisions of its own
// size range, [2^i, 2^(i+1)) MiB.
func TestRoundSizeBySize(t *testing.T) {
	by, _ := ParseRoundupDivisions("[256:1,512:2,1024:4,>:8]")
	cfg := Config{RoundupPower2DivisionsBySize: by}
	for _, c := range []struct{ size, want int64 }{
		{300 << 20, 300 << 20},           // [256, 512) MiB: 1 division, 512 B rounding
		{600 << 20, 768 << 20},           // [512, 1024): 2 divisions of 512 MiB
		{1100 << 20, 1280 << 20},         // [1024, 2048): 4 divisions of 256 MiB
		{5 << 20, 5 << 20},               // below 256 MiB: 1
		{(5 << 20) + 1, (5 << 20) + 512}, // 512 B rounding
		{(300 << 20) + 7, (300 << 20) + 512},
	} {
		if got := RoundSize(c.size, cfg); got != c.want {
			t.Errorf("RoundSize(%d) = %d, want %d", c.size, got, c.want)
		}
	}
	if err := (Config{RoundupPower2DivisionsBySize: [RoundupIntervals]int{3}}).Validate(); err == nil {
		t.Error("a division of 3 passes Validate")
	}
}
