package spec

import (
	"encoding/json"
	"os"
	"testing"
)

// The embedding backward's cub temp storage as measured on the H200
// (probe/measure_cub_scratch.py → testdata/cub): for each (n, m), the
// backward's requests, in order — the radix sort's scratch is the fourth,
// unique_by_key's the ninth, the exclusive sum's the twelfth (the order of
// sortedEmbeddingBackwardTemps, the gradient fifth).
func TestCubScratchAsMeasured(t *testing.T) {
	data, err := os.ReadFile("../testdata/cub/h200-embedding-backward-scratch.json")
	if err != nil {
		t.Fatal(err)
	}
	var measured struct {
		Cases []struct {
			N, M     int64
			Requests []int64
		}
	}
	if err := json.Unmarshal(data, &measured); err != nil {
		t.Fatal(err)
	}
	if len(measured.Cases) < 30 {
		t.Fatalf("%d cases", len(measured.Cases))
	}
	for _, c := range measured.Cases {
		if len(c.Requests) < 12 {
			t.Fatalf("n %d, m %d: %d requests", c.N, c.M, len(c.Requests))
		}
		for _, x := range []struct {
			what      string
			got, want int64
		}{
			{"radix sort", radixSortScratch(c.N), c.Requests[3]},
			{"unique_by_key", uniqueScratch(c.N), c.Requests[8]},
			{"exclusive sum", scanScratch(c.M), c.Requests[11]},
		} {
			if x.got != x.want {
				t.Errorf("n %d, m %d: %s scratch %d bytes, measured %d", c.N, c.M, x.what, x.got, x.want)
			}
		}
	}
}
