package allocator

import (
	"errors"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"4MiB", 4 << 20},
		{"21MiB", 21 << 20},
		{"512", 512},
		{"0", 0},
		{"1.5GiB", 3 << 29},
		{"10MB", 10_000_000},
		{"10 mb", 10_000_000},
		{"2 KiB", 2048},
		{"1kb", 1000},
		{"7B", 7},
		{"3 bytes", 3},
		{"0.5KiB", 512},
		{"1TiB", 1 << 40},
		{"1.1MB", 1_100_000},
		{"1024x1024xfp32", 4 << 20},
		{"1024x1024", 4 << 20},
		{"1024 x 1024 x bf16", 2 << 20},
		{"8x1024x768xfp16", 8 * 1024 * 768 * 2},
		{"1000x1000xfp64", 8_000_000},
		{"10xint64", 80},
		{"3x5xint32", 60},
		{"4x4xint8", 16},
		{"4x4xuint8", 16},
		{"4x4xbool", 16},
		{"2x2xcomplex64", 32},
		{"2x3xtorch.float16", 12},
		{"1024×1024×fp32", 4 << 20},
		{"0x7xfp32", 0},
		{"16.11GiB", 17297980785}, // 17297980784.64: the nearest byte
		{"1.0000000001KiB", 1024},
		{"0.0007KiB", 1}, // 0.7168 bytes
	} {
		got, err := ParseSize(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		in, mention string
	}{
		{"", "empty"},
		{"  ", "empty"},
		{"-4MiB", "negative"},
		{"4M", "ambiguous unit"},
		{"4 furlongs", "KiB"},
		{"1.5B", "whole number"},
		{"0.3", "whole number"},
		{"MiB", "no number"},
		{"1.2.3MiB", "no number"},
		{"1024x1024xfp33", "unknown dtype"},
		{"1024x", "unknown unit"},
		{"80XB", `unknown unit "XB"`},
		{"80xGiB", `unknown unit "xGiB"`},
		{"x1024", "no number"},
		{"99999999999999999999", "int64"},
		{"9000PiB", "int64"},
		{"4294967296x4294967296xfp32", "int64"},
	} {
		_, err := ParseSize(tc.in)
		var se *SizeError
		if !errors.As(err, &se) {
			t.Errorf("ParseSize(%q): want a SizeError, got %v", tc.in, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("ParseSize(%q) = %v; want it to mention %q", tc.in, err, tc.mention)
		}
	}
	if n, ok := DtypeSize("BF16"); !ok || n != 2 {
		t.Errorf("DtypeSize(BF16) = %d, %v", n, ok)
	}
}
