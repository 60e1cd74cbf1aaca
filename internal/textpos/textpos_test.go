package textpos

import "testing"

func TestLineCol(t *testing.T) {
	data := []byte("ab\nçd\n")
	for _, c := range []struct {
		off       int64
		line, col int
	}{{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {5, 2, 2}, {6, 2, 3}, {99, 3, 1}, {-4, 1, 1}} {
		if l, col := LineCol(data, c.off); l != c.line || col != c.col {
			t.Errorf("offset %d: %d:%d, want %d:%d", c.off, l, col, c.line, c.col)
		}
	}
}
