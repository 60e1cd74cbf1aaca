package report

import "fmt"

// MiB formats bytes as mebibytes (2^20), labeled.
func MiB(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// GiB formats bytes as gibibytes (2^30), labeled.
func GiB(b int64) string { return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30)) }

// Size picks MiB below 10 GiB and GiB above, always labeled.
func Size(b int64) string {
	if b >= 10<<30 || b <= -(10<<30) {
		return GiB(b)
	}
	return MiB(b)
}

// Times writes how often something happened: "once", "3 times".
func Times(n int64) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}
