package allocator

import (
	"math"
	"math/big"
	"math/bits"
	"strings"
	"unicode"
)

const sizeExamples = "512, 4MiB, 1.5GiB, 10MB or 1024x1024xfp32"

const unitsAllowed = "B, KiB, MiB, GiB, TiB, PiB (powers of 1024) or KB, MB, GB, TB, PB (powers of 1000)"

const dtypesAllowed = "fp32, fp16, bf16, fp64, fp8, int64, int32, int16, int8, uint8, bool, complex64, complex128"

func unitBytes(u string) (int64, bool) {
	switch strings.ToLower(u) {
	case "", "b", "byte", "bytes":
		return 1, true
	case "kib":
		return 1 << 10, true
	case "mib":
		return 1 << 20, true
	case "gib":
		return 1 << 30, true
	case "tib":
		return 1 << 40, true
	case "pib":
		return 1 << 50, true
	case "kb":
		return 1e3, true
	case "mb":
		return 1e6, true
	case "gb":
		return 1e9, true
	case "tb":
		return 1e12, true
	case "pb":
		return 1e15, true
	}
	return 0, false
}

// DtypeSize returns the bytes per element of a PyTorch dtype name (fp32,
// float32, bf16, fp16, half, fp64, double, int64, long, int32, int, int16,
// int8, uint8, byte, bool, fp8 variants, complex64, complex128, ...),
// case-insensitively.
func DtypeSize(name string) (int64, bool) {
	switch strings.ToLower(strings.TrimPrefix(strings.TrimSpace(name), "torch.")) {
	case "fp32", "float32", "float", "f32":
		return 4, true
	case "bf16", "bfloat16":
		return 2, true
	case "fp16", "float16", "half", "f16":
		return 2, true
	case "fp64", "float64", "double", "f64":
		return 8, true
	case "fp8", "float8", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "e4m3", "e5m2":
		return 1, true
	case "int64", "long", "i64", "uint64", "u64":
		return 8, true
	case "int32", "int", "i32", "uint32", "u32":
		return 4, true
	case "int16", "short", "i16", "uint16", "u16":
		return 2, true
	case "int8", "i8", "uint8", "u8", "byte", "bool":
		return 1, true
	case "complex64", "cfloat":
		return 8, true
	case "complex128", "cdouble":
		return 16, true
	}
	return 0, false
}

// ParseSize reads a byte count written as
//
//   - a number of bytes with an optional unit: "512", "4MiB", "1.5GiB",
//     "10MB" (10^6 bytes), "2 KiB"; binary units are KiB, MiB, GiB, TiB and
//     PiB, decimal ones KB, MB, GB, TB and PB (any letter case);
//   - a tensor shape with an optional dtype: "1024x1024xfp32",
//     "8x1024x768xbf16"; without a dtype the elements are fp32 (4 bytes).
//
// A size with a unit is rounded to the nearest byte ("16.11GiB", as sizes
// are printed); a plain count must be a whole number of bytes. The result
// must fit an int64. Errors are *SizeError values that name what is
// allowed.
func ParseSize(s string) (int64, error) {
	plain := strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
	if plain == "" {
		return 0, &SizeError{Input: s, Reason: "empty; want a size such as " + sizeExamples}
	}
	if strings.HasPrefix(plain, "-") {
		return 0, &SizeError{Input: s, Reason: "a size cannot be negative"}
	}
	shape := strings.Map(func(r rune) rune {
		if r == '×' || r == 'X' {
			return 'x'
		}
		return r
	}, plain)
	if dims, dtype, ok := splitShape(shape); ok {
		// One number and a word that is no dtype ("80XB") is a size with
		// a mistyped unit, not a shape.
		if _, known := DtypeSize(dtype); len(dims) > 1 || dtype == "" || known {
			return parseShape(s, dims, dtype)
		}
	}
	i := 0
	for i < len(plain) && (plain[i] >= '0' && plain[i] <= '9' || plain[i] == '.') {
		i++
	}
	num, unit := plain[:i], plain[i:]
	if num == "" || strings.Count(num, ".") > 1 || num == "." {
		return 0, &SizeError{Input: s, Reason: "no number; want a size such as " + sizeExamples}
	}
	mult, ok := unitBytes(unit)
	if !ok {
		reason := "unknown unit " + quote(unit) + "; use " + unitsAllowed
		if strings.HasPrefix(strings.ToLower(unit), "x") {
			reason += ", or write a shape as dims and a dtype (1024x1024xfp32; dtypes: " + dtypesAllowed + ")"
		}
		switch strings.ToLower(unit) {
		case "k", "m", "g", "t", "p":
			reason = "ambiguous unit " + quote(unit) + "; use " + unitsAllowed
		}
		return 0, &SizeError{Input: s, Reason: reason}
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, &SizeError{Input: s, Reason: "malformed number " + quote(num)}
	}
	r.Mul(r, new(big.Rat).SetInt64(mult))
	if !r.IsInt() {
		if mult == 1 {
			return 0, &SizeError{Input: s, Reason: "not a whole number of bytes"}
		}
		// "16.11GiB", as sizes are printed: the nearest whole byte.
		half := new(big.Rat).Add(r, big.NewRat(1, 2))
		r.SetInt(new(big.Int).Quo(half.Num(), half.Denom()))
	}
	n := r.Num()
	if !n.IsInt64() {
		return 0, &SizeError{Input: s, Reason: "larger than an int64 byte count"}
	}
	return n.Int64(), nil
}

// splitShape recognises "AxBx...[xdtype]": dimensions of digits separated
// by 'x', optionally followed by a dtype name.
func splitShape(s string) (dims []string, dtype string, ok bool) {
	if !strings.Contains(s, "x") {
		return nil, "", false
	}
	rest := s
	for {
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j == 0 {
			if len(dims) == 0 {
				return nil, "", false
			}
			return dims, rest, true
		}
		dims = append(dims, rest[:j])
		rest = rest[j:]
		if rest == "" {
			return dims, "", len(dims) > 1
		}
		if rest[0] != 'x' {
			if len(dims) == 1 {
				return nil, "", false // "4MiB"-like, not a shape
			}
			return dims, rest, true
		}
		rest = rest[1:]
		if rest == "" {
			return nil, "", false // trailing 'x': not a shape
		}
	}
}

func parseShape(input string, dims []string, dtype string) (int64, error) {
	elem := int64(4)
	if dtype != "" {
		var ok bool
		if elem, ok = DtypeSize(dtype); !ok {
			return 0, &SizeError{Input: input, Reason: "unknown dtype " + quote(dtype) + "; use " + dtypesAllowed}
		}
	}
	total := uint64(elem)
	for _, d := range dims {
		var v uint64
		for _, c := range d {
			hi, lo := bits.Mul64(v, 10)
			if hi != 0 || lo+uint64(c-'0') < lo {
				return 0, &SizeError{Input: input, Reason: "dimension " + d + " is too large"}
			}
			v = lo + uint64(c-'0')
		}
		hi, lo := bits.Mul64(total, v)
		if hi != 0 || lo > math.MaxInt64 {
			return 0, &SizeError{Input: input, Reason: "larger than an int64 byte count"}
		}
		total = lo
	}
	return int64(total), nil
}

func quote(s string) string { return "\"" + s + "\"" }
