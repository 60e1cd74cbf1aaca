package spec

import (
	"fmt"
	"strings"
)

// DType is the element type of a tensor.
type DType int

// The element types memplan knows. The zero value is invalid.
const (
	DTypeInvalid DType = iota
	FP32
	BF16
	FP16
	FP64
	Int64
	Int32
	Int8
	UInt8
	Bool
)

var dtypeNames = [...]string{"invalid", "fp32", "bf16", "fp16", "fp64", "int64", "int32", "int8", "uint8", "bool"}
var dtypeSizes = [...]int64{0, 4, 2, 2, 8, 8, 4, 1, 1, 1}

// String returns the short name used in YAML and reports ("fp32", "bf16", …).
func (d DType) String() string {
	if d < 0 || int(d) >= len(dtypeNames) {
		return fmt.Sprintf("DType(%d)", int(d))
	}
	return dtypeNames[d]
}

// Size is the number of bytes of one element.
func (d DType) Size() int64 {
	if d < 0 || int(d) >= len(dtypeSizes) {
		return 0
	}
	return dtypeSizes[d]
}

// IsFloat reports whether d is a floating-point type.
func (d DType) IsFloat() bool { return d == FP32 || d == BF16 || d == FP16 || d == FP64 }

// DTypeNames lists the names ParseDType accepts, for error messages.
func DTypeNames() []string { return append([]string(nil), dtypeNames[1:]...) }

// ParseDType reads a dtype name; PyTorch spellings (float32, bfloat16, half, long …) are accepted too.
func ParseDType(s string) (DType, error) {
	switch strings.ToLower(strings.TrimPrefix(s, "torch.")) {
	case "fp32", "float32", "float":
		return FP32, nil
	case "bf16", "bfloat16":
		return BF16, nil
	case "fp16", "float16", "half":
		return FP16, nil
	case "fp64", "float64", "double":
		return FP64, nil
	case "int64", "long":
		return Int64, nil
	case "int32", "int":
		return Int32, nil
	case "int8":
		return Int8, nil
	case "uint8":
		return UInt8, nil
	case "bool":
		return Bool, nil
	}
	return DTypeInvalid, fmt.Errorf("unknown dtype %q (allowed: %s)", s, strings.Join(DTypeNames(), ", "))
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
