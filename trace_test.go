package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memplan/memplan/estimate"
)

// poolRequest is one allocator request: an allocation or a free of a
// block, its size as asked for rounded up to 512 bytes.
type poolRequest struct {
	alloc bool
	bytes int64
}

func (q poolRequest) String() string {
	if q.alloc {
		return fmt.Sprintf("alloc %d", q.bytes)
	}
	return fmt.Sprintf("free %d", q.bytes)
}

// poolRequests keeps one pool's requests — the large pool's above 1 MiB,
// or the small pool's — the way the caching allocator splits its pools,
// with every run of frees sorted by size: their order changes nothing in
// the allocator.
func poolRequests(reqs []poolRequest, large bool) []poolRequest {
	var out []poolRequest
	run := 0
	for _, q := range reqs {
		q.bytes = max(512, (q.bytes+511)/512*512)
		if (q.bytes > 1<<20) != large {
			continue
		}
		if q.alloc {
			run = len(out) + 1
		}
		out = append(out, q)
		if !q.alloc {
			slices.SortFunc(out[run:], func(a, b poolRequest) int { return int(a.bytes - b.bytes) })
		}
	}
	return out
}

// traceRequests reads a `memplan_probe.py` allocator trace: the first step
// (marks named 0.<phase>_end) or, in older traces, one steady iteration.
// It returns the requests and the estimate's iteration to compare them
// with (1: the first step, 2: the steady state).
func traceRequests(t *testing.T, path string) ([]poolRequest, int) {
	t.Helper()
	reqs, iteration, ok := traceStepRequests(t, path, 0)
	if !ok {
		reqs, iteration, _ = traceStepRequests(t, path, -1)
	}
	return reqs, iteration
}

// traceStepRequests reads step `step` of a trace (marks named
// <step>.<phase>_end; its events start after the previous step's last
// mark), or with step -1 the whole of an older one-iteration trace. It
// returns the requests, the estimate's iteration to compare them with (1
// for the first step, 2 for any later one) and whether the trace has that
// step. Blocks allocated before the step are tracked so that their frees
// inside it count.
func traceStepRequests(t *testing.T, path string, step int) ([]poolRequest, int, bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var head struct {
		Marks map[string]int `json:"marks"`
	}
	if !sc.Scan() || json.Unmarshal(sc.Bytes(), &head) != nil {
		t.Fatalf("%s: no header line", path)
	}
	prefix, iteration := fmt.Sprintf("%d.", step), min(step+1, 2)
	if step < 0 {
		prefix, iteration = "", 2
	}
	begin, end := -1, -1
	for name, at := range head.Marks {
		if !strings.HasSuffix(name, "_end") {
			continue
		}
		if strings.HasPrefix(name, prefix) {
			end = max(end, at)
		}
		if step > 0 && strings.HasPrefix(name, fmt.Sprintf("%d.", step-1)) {
			begin = max(begin, at)
		}
	}
	if end < 0 {
		return nil, iteration, false
	}
	live := map[uint64]int64{}
	var reqs []poolRequest
	for sc.Scan() {
		var e struct {
			I      int    `json:"i"`
			Action string `json:"action"`
			Addr   uint64 `json:"addr"`
			Size   int64  `json:"size"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if e.I > end {
			break
		}
		switch e.Action {
		case "alloc":
			live[e.Addr] = e.Size
			if e.I > begin {
				reqs = append(reqs, poolRequest{true, e.Size})
			}
		case "free_requested":
			if size, ok := live[e.Addr]; ok {
				delete(live, e.Addr)
				if e.I > begin {
					reqs = append(reqs, poolRequest{false, size})
				}
			}
		}
	}
	return reqs, iteration, true
}

// TestRunTracesLineUpEveryStep holds every step of the whole-run traces
// (testdata/measured/h200/runs: three steps each, from the state before
// the first) to the estimate, both pools request for request: the first
// step to the estimate's first iteration, the later ones to its steady
// state.
func TestRunTracesLineUpEveryStep(t *testing.T) {
	paths, _ := filepath.Glob("testdata/measured/h200/runs/*.run.trace.jsonl.gz")
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".run.trace.jsonl.gz")
		examples, _ := filepath.Glob("examples/*/" + name + ".yaml")
		if len(examples) == 0 {
			t.Errorf("%s: no description", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			r, err := estimateFile(examples[0], "", true)
			if err != nil {
				t.Fatal(err)
			}
			steps := 0
			for step := 0; ; step++ {
				measured, iteration, ok := traceStepRequests(t, path, step)
				if !ok {
					break
				}
				steps++
				var est []poolRequest
				for _, e := range r.Timeline {
					if e.Iteration == iteration {
						est = append(est, poolRequest{e.Action == estimate.ActionAlloc, e.Requested})
					}
				}
				for _, large := range []bool{true, false} {
					pool := map[bool]string{true: "large", false: "small"}[large]
					comparePool(t, fmt.Sprintf("step %d, %s", step, pool), poolRequests(measured, large), poolRequests(est, large), true)
				}
			}
			if steps < 3 {
				t.Errorf("%d steps in the trace, want 3", steps)
			}
		})
	}
}

// TestTracesLineUp holds the estimate's allocator requests to the measured
// runs' allocator traces (testdata/measured/h200/*.trace.jsonl.gz, and the
// per-rank runs under parallel/): for the cases listed in tracesLiningUp,
// every large-pool allocation and free of the traced step, in order, with
// the size asked for; for those in smallPoolLiningUp, the small pool's too.
// Placement may still differ (addresses break ties); what PyTorch
// allocates and frees, and when, may not. The other traces are reported
// (-v) with how far they line up; probe/compare_trace.py shows where they
// part.
func TestTracesLineUp(t *testing.T) {
	traces, _ := filepath.Glob("testdata/measured/h200/*.trace.jsonl.gz")
	// Per-rank runs (a fake process group; rank 0, as the estimate).
	ranks, _ := filepath.Glob("testdata/measured/h200/parallel/*.trace.jsonl.gz")
	checked := map[string]bool{}
	for _, path := range append(traces, ranks...) {
		name := strings.TrimSuffix(filepath.Base(path), ".trace.jsonl.gz")
		pattern := "examples/*/" + name + ".yaml"
		if strings.Contains(path, "/parallel/") {
			pattern = "examples/*parallel/" + name + ".yaml"
		}
		examples, _ := filepath.Glob(pattern)
		if len(examples) == 0 && strings.Contains(path, "/parallel/") {
			examples, _ = filepath.Glob("examples/*/parallel/" + name + ".yaml")
		}
		if len(examples) == 0 {
			continue
		}
		checked[name] = true
		t.Run(name, func(t *testing.T) {
			measured, iteration := traceRequests(t, path)
			r, err := estimateFile(examples[0], "", true)
			if err != nil {
				t.Fatal(err)
			}
			var est []poolRequest
			for _, e := range r.Timeline {
				if e.Iteration == iteration {
					est = append(est, poolRequest{e.Action == estimate.ActionAlloc, e.Requested})
				}
			}
			comparePool(t, "large", poolRequests(measured, true), poolRequests(est, true), slices.Contains(tracesLiningUp, name))
			comparePool(t, "small", poolRequests(measured, false), poolRequests(est, false), slices.Contains(smallPoolLiningUp, name))
		})
	}
	for _, list := range [][]string{tracesLiningUp, smallPoolLiningUp} {
		for _, name := range list {
			if !checked[name] {
				t.Errorf("%s is listed as lining up but has no trace and description", name)
			}
		}
	}
}

// comparePool reports how far one pool's requests line up; listed, a
// difference fails the test.
func comparePool(t *testing.T, pool string, a, b []poolRequest, listed bool) {
	t.Helper()
	same := 0
	for same < min(len(a), len(b)) && a[same] == b[same] {
		same++
	}
	if same == len(a) && same == len(b) {
		if !listed {
			t.Logf("%s pool lines up (%d requests): add it to the list", pool, len(a))
		}
		return
	}
	msg := fmt.Sprintf("%d of %d measured %s-pool requests line up (estimate: %d); request %d: measured %v, estimated %v",
		same, len(a), pool, len(b), same, at(a, same), at(b, same))
	if listed {
		t.Error(msg)
	} else {
		t.Log(msg)
	}
}

func at(q []poolRequest, i int) string {
	if i < len(q) {
		return q[i].String()
	}
	return "(end)"
}

// tracesLiningUp are the traced runs whose large-pool requests the estimate
// issues one for one.
var tracesLiningUp = []string{
	"bert-amp-bf16-adamw-b12-s300",
	"bert-amp-bf16-adamw-b8",
	"bert-amp-bf16-sgd-b32-s256-expandable",
	"bert-amp-fp16-adamw-b16-s512",
	"bert-amp-fp16-adamw-ckpt-b32-s256",
	"bert-amp-fp16-sgd-b8-s512-maxsplit64",
	"bert-amp-fp16-sgd-mom-b20-s200",
	"bert-bf16-infer-b64-s512",
	"bert-bf16-sgd-b32-s128",
	"bert-fp32-adamw-b32-s128-maxsplit64",
	"bert-fp32-adamw-b64-s128",
	"bert-fp32-adamw-b8",
	"bert-fp32-adamw-ckpt-b16-s256",
	"bert-fp32-sgd-mom-b16-s512-maxsplit256",
	"bert-large-amp-bf16-adamw-b8-s256",
	"bert-tiny-fp32-adamw-b8-s128",
	"custom-convnet-amp-fp16-sgd-b128",
	"custom-convnet-fp32-sgd-b64",
	"custom-mlp-amp-bf16-adamw-b256",
	"custom-mlp-fp32-adam-mse-b1024",
	"custom-mlp-fp32-adamw-b4096",
	"custom-mlp-fp32-sgd-mom-b4096",
	"custom-mlp-tiny-fp32-adam-b16",
	"custom-transformer-amp-bf16-adamw-b16",
	"custom-transformer-bf16-adamw-b32",
	"custom-transformer-fp32-adamw-b8",
	"custom-transformer-fp32-adamw-ckpt-b8",
	"gpt2-amp-adamw-ckpt-b16-s512",
	"gpt2-amp-bf16-adamw-eager-b4",
	"gpt2-amp-bf16-adamw-fused-b16-expandable",
	"gpt2-amp-bf16-ddp-ckpt-w2",
	"gpt2-amp-bf16-ddp-w4",
	"gpt2-amp-fp16-adamw-b8-s512",
	"gpt2-amp-fp16-adamw-ckpt-b7-s640",
	"gpt2-amp-fp16-sgd-ckpt-b8",
	"gpt2-bf16-adamw-fused-eager-b4",
	"gpt2-bf16-sgd-b8",
	"gpt2-fp16-sgd-b4-s1024",
	"gpt2-fp32-adamw-b16-s512",
	"gpt2-fp32-adamw-b5-s777",
	"gpt2-fp32-adamw-b8",
	"gpt2-fp32-adamw-b8-expandable",
	"gpt2-fp32-adamw-b8-maxsplit128",
	"gpt2-fp32-adamw-b8-s512-roundup-list",
	"gpt2-fp32-adamw-ckpt-b16-expandable",
	"gpt2-fp32-adamw-ckpt-b8",
	"gpt2-fp32-adamw-fused-b4",
	"gpt2-fp32-ddp-ckpt-w2",
	"gpt2-fp32-ddp-mb2-w2",
	"gpt2-fp32-ddp-mb2-w4",
	"gpt2-fp32-ddp-w2",
	"gpt2-fp32-ddp-w4",
	"gpt2-fp32-ddp-w8",
	"gpt2-fp32-eager-adamw-b4",
	"gpt2-fp32-fsdp-ckpt-mb2-w8",
	"gpt2-fp32-fsdp-ckpt-w2",
	"gpt2-fp32-fsdp-ckpt-w4",
	"gpt2-fp32-fsdp-ckpt-w8",
	"gpt2-fp32-fsdp-mb2-w2",
	"gpt2-fp32-fsdp-mb2-w4",
	"gpt2-fp32-fsdp-w2",
	"gpt2-fp32-fsdp-w4",
	"gpt2-fp32-fsdp-w8",
	"gpt2-fp32-hsdp-w4-g2",
	"gpt2-fp32-hsdp-w8",
	"gpt2-fp32-infer-b32-s512",
	"gpt2-fp32-infer-b8",
	"gpt2-fp32-zero1-w2",
	"gpt2-fp32-zero1-w4",
	"gpt2-fp32-zero2-w2",
	"gpt2-fp32-zero2-w4",
	"gpt2-large-fp32-adamw-b2",
	"gpt2-medium-amp-bf16-adamw-ckpt-b4-s1024",
	"gpt2-medium-amp-bf16-adamw-fused-b8-expandable",
	"gpt2-medium-fp32-adamw-b4",
	"gpt2-tiny-bf16-sgd-ckpt-b2-s64",
	"gpt2-tiny-fp32-adamw-b4-s128",
	"llama-hd64-bias-amp-bf16-adamw-b4-s1024",
	"llama-small-amp-bf16-adamw-b4",
	"llama-small-amp-bf16-adamw-ckpt-b16-s2048",
	"llama-small-amp-fp16-adamw-b8",
	"llama-small-amp-fp16-adamw-ckpt-b4",
	"llama-small-bf16-adamw-b16-s512",
	"llama-small-bf16-adamw-b4",
	"llama-small-bf16-adamw-b4-roundup4",
	"llama-small-bf16-adamw-b8-s1024-roundup-list",
	"llama-small-bf16-adamw-b8-s2048-roundup2",
	"llama-small-bf16-adamw-ckpt-b4",
	"llama-small-bf16-adamw-fused-b8-s512-expandable",
	"llama-small-bf16-ddp-ckpt-w2",
	"llama-small-bf16-ddp-w2",
	"llama-small-bf16-ddp-w4",
	"llama-small-bf16-ddp-w8",
	"llama-small-bf16-fsdp-ckpt-w2",
	"llama-small-bf16-fsdp-ckpt-w4",
	"llama-small-bf16-fsdp-ckpt-w8",
	"llama-small-bf16-fsdp-w2",
	"llama-small-bf16-fsdp-w4",
	"llama-small-bf16-fsdp-w8",
	"llama-small-bf16-infer-b4",
	"llama-small-bf16-infer-cache-b8-s1024",
	"llama-small-bf16-zero1-w4",
	"llama-small-bf16-zero2-w2",
	"llama-small-bf16-zero2-w4",
	"llama-small-bf16-zero2-w8",
	"llama-small-eager-amp-bf16-adamw-b6-s700",
	"llama-small-eager-bf16-adamw-b4",
	"llama-small-eager-fp32-infer-b8-s1024",
	"llama-small-fp32-adamw-b2-s2048",
	"llama-small-fp32-fsdp-ckpt-w2",
	"llama-small-fp32-infer-cache-b4-s777",
	"llama-small-fp32-sgd-b4-s512",
	"llama-tied-bf16-adamw-b3-s1000",
	"llama-tiny-bf16-adamw-b2-s256",
	"mistral-small-amp-bf16-adamw-ckpt-b8",
	"mistral-small-amp-bf16-adamw-fused-b2-s2048",
	"mistral-small-bf16-adamw-b1-s4608",
	"mistral-small-bf16-adamw-b4",
	"mistral-small-bf16-infer-b16-s2048",
	"mistral-small-bf16-sgd-mom-ckpt-b16",
	"mistral-small-bf16-zero1-w2",
	"mistral-small-fp32-sgd-mom-b2-s2048",
	"mistral-small-swa256-amp-fp16-adamw-b3-s1111",
	"mistral-small-swa300-bf16-adamw-b2-s1000",
	"mistral-small-swa512-bf16-adamw-ckpt-b4-s1024",
	"mistral-tiny-fp32-infer-b1-s32",
	"mlp10m-fp32-adam",
	"mlp10m-fp32-adam-b1024",
	"mlp10m-fp32-adam-forloop-b64",
	"mlp10m-fp32-adamw-fused-b64",
	"mlp10m-fp32-sgd-b64",
	"qwen2-small-amp-bf16-adamw-ckpt-b4",
	"qwen2-small-amp-bf16-sgd-b8-s512-expandable",
	"qwen2-small-amp-fp16-adamw-b4-s1024",
	"qwen2-small-bf16-adam-b6-s640",
	"qwen2-small-bf16-adamw-b4",
	"qwen2-small-bf16-adamw-swa512-b4-s1024",
	"qwen2-small-bf16-fsdp-ckpt-mb2-w4",
	"qwen2-small-bf16-fsdp-w8",
	"qwen2-small-bf16-infer-cache-b32-s512",
	"qwen2-small-bf16-sgd-mom-ckpt-b8",
	"qwen2-small-fp32-adamw-ckpt-b2-s1024",
	"qwen2-small-fp32-infer-b16-s1024",
	"qwen2-small-fp32-infer-b2-s2048",
	"qwen2-small-fp32-sgd-b3-s1500",
	"qwen2-tiny-amp-fp16-adamw-b1-s64",
	"resnet101-amp-fp16-sgd-mom-b64",
	"resnet101-bf16-adamw-fused-b32",
	"resnet101-fp32-adam-b24",
	"resnet101-fp32-adamw-fused-b24",
	"resnet152-amp-bf16-adamw-b48",
	"resnet152-bf16-adamw-b32",
	"resnet152-fp16-adam-forloop-b8",
	"resnet152-fp32-sgd-b16",
	"resnet18-amp-fp16-adamw-b32",
	"resnet18-bf16-adamw-b256-expandable",
	"resnet18-bf16-adamw-b48",
	"resnet18-fp32-adamw-b32-img160",
	"resnet18-fp32-sgd-b64",
	"resnet18-fp32-sgd-mom-b2",
	"resnet34-amp-bf16-sgd-b192",
	"resnet34-fp16-sgd-b64",
	"resnet34-fp32-adam-forloop-b32",
	"resnet50-amp-bf16-adamw-b32",
	"resnet50-amp-bf16-sgd-mom-b40",
	"resnet50-amp-fp16-sgd-b128",
	"resnet50-bf16-infer-b1",
	"resnet50-bf16-sgd-b96",
	"resnet50-fp32-infer-b64",
	"resnet50-fp32-sgd-mom-b100",
	"resnet50-fp32-sgd-mom-b256",
	"resnext50-amp-bf16-sgd-mom-b32",
	"tinyllama-amp-bf16-adamw-b2-s2048",
	"tinyllama-amp-bf16-sgd-ckpt-b1-s4096",
	"tinyllama-amp-fp16-adamw-ckpt-b2-s2048",
	"tinyllama-bf16-adamw-b2-s1024",
	"tinyllama-bf16-adamw-ckpt-b4",
	"tinyllama-bf16-adamw-ckpt-b4-s1024-maxsplit256",
	"tinyllama-bf16-ddp-ckpt-w2",
	"tinyllama-bf16-ddp-mb2-w2",
	"tinyllama-bf16-eager-infer-b4-s2048",
	"tinyllama-bf16-fsdp-ckpt-w2",
	"tinyllama-bf16-fsdp-w2",
	"tinyllama-bf16-fsdp-w4",
	"tinyllama-bf16-infer-b32-s512",
	"tinyllama-bf16-infer-b5-s1500",
	"tinyllama-bf16-infer-b8-s1024",
	"tinyllama-bf16-sgd-ckpt-b8-s2048",
	"tinyllama-bf16-zero2-w2",
	"vit-amp-bf16-adamw-ckpt-b96",
	"vit-amp-bf16-sgd-b64",
	"vit-amp-fp16-adamw-ckpt-b64",
	"vit-amp-fp16-sgd-mom-b40",
	"vit-bf16-adamw-b16-img384",
	"vit-bf16-adamw-b32",
	"vit-bf16-adamw-b64-roundup8",
	"vit-bf16-adamw-fused-b128",
	"vit-bf16-ddp-w4",
	"vit-bf16-infer-b256",
	"vit-fp16-adam-b32",
	"vit-fp32-adamw-b32",
	"vit-fp32-adamw-b8",
	"vit-fp32-adamw-fused-ckpt-b16",
	"vit-fp32-infer-b100",
	"vit-fp32-infer-b512",
	"vit-fp32-infer-b64",
	"vit-fp32-sgd-ckpt-b32",
	"vit-large-bf16-sgd-b8",
	"vit-small-amp-bf16-adamw-b64",
	"vit-tiny-amp-bf16-adamw-b8",
	"wide-resnet50-fp32-adamw-b16",
}

// smallPoolLiningUp are the traced runs whose small-pool requests (1 MiB
// and below) the estimate also issues one for one.
var smallPoolLiningUp = []string{
	"bert-amp-bf16-adamw-b12-s300",
	"bert-amp-bf16-adamw-b8",
	"bert-amp-bf16-sgd-b32-s256-expandable",
	"bert-amp-fp16-adamw-b16-s512",
	"bert-amp-fp16-adamw-ckpt-b32-s256",
	"bert-amp-fp16-sgd-b8-s512-maxsplit64",
	"bert-amp-fp16-sgd-mom-b20-s200",
	"bert-bf16-infer-b64-s512",
	"bert-bf16-sgd-b32-s128",
	"bert-fp32-adamw-b32-s128-maxsplit64",
	"bert-fp32-adamw-b64-s128",
	"bert-fp32-adamw-b8",
	"bert-fp32-adamw-ckpt-b16-s256",
	"bert-fp32-sgd-mom-b16-s512-maxsplit256",
	"bert-large-amp-bf16-adamw-b8-s256",
	"bert-tiny-fp32-adamw-b8-s128",
	"custom-convnet-amp-fp16-sgd-b128",
	"custom-convnet-bf16-adamw-b64-img96",
	"custom-convnet-fp32-sgd-b64",
	"custom-mlp-amp-bf16-adamw-b256",
	"custom-mlp-fp32-adam-mse-b1024",
	"custom-mlp-fp32-adamw-b4096",
	"custom-mlp-fp32-sgd-mom-b4096",
	"custom-mlp-tiny-fp32-adam-b16",
	"custom-transformer-amp-bf16-adamw-b16",
	"custom-transformer-bf16-adamw-b32",
	"custom-transformer-fp32-adamw-b8",
	"custom-transformer-fp32-adamw-ckpt-b8",
	"gpt2-amp-adamw-ckpt-b16-s512",
	"gpt2-amp-bf16-adamw-eager-b4",
	"gpt2-amp-bf16-adamw-fused-b16-expandable",
	"gpt2-amp-bf16-ddp-ckpt-w2",
	"gpt2-amp-bf16-ddp-w4",
	"gpt2-amp-fp16-adamw-b8-s512",
	"gpt2-amp-fp16-adamw-ckpt-b7-s640",
	"gpt2-amp-fp16-sgd-ckpt-b8",
	"gpt2-bf16-adamw-fused-eager-b4",
	"gpt2-bf16-sgd-b8",
	"gpt2-fp16-sgd-b4-s1024",
	"gpt2-fp32-adamw-b16-s512",
	"gpt2-fp32-adamw-b5-s777",
	"gpt2-fp32-adamw-b8",
	"gpt2-fp32-adamw-b8-expandable",
	"gpt2-fp32-adamw-b8-maxsplit128",
	"gpt2-fp32-adamw-b8-s512-roundup-list",
	"gpt2-fp32-adamw-ckpt-b16-expandable",
	"gpt2-fp32-adamw-ckpt-b8",
	"gpt2-fp32-adamw-fused-b4",
	"gpt2-fp32-ddp-ckpt-w2",
	"gpt2-fp32-ddp-mb2-w2",
	"gpt2-fp32-ddp-mb2-w4",
	"gpt2-fp32-ddp-w2",
	"gpt2-fp32-ddp-w4",
	"gpt2-fp32-ddp-w8",
	"gpt2-fp32-eager-adamw-b4",
	"gpt2-fp32-fsdp-ckpt-mb2-w8",
	"gpt2-fp32-fsdp-ckpt-w2",
	"gpt2-fp32-fsdp-ckpt-w4",
	"gpt2-fp32-fsdp-ckpt-w8",
	"gpt2-fp32-fsdp-mb2-w2",
	"gpt2-fp32-fsdp-mb2-w4",
	"gpt2-fp32-fsdp-w2",
	"gpt2-fp32-fsdp-w4",
	"gpt2-fp32-fsdp-w8",
	"gpt2-fp32-hsdp-w4-g2",
	"gpt2-fp32-hsdp-w8",
	"gpt2-fp32-infer-b32-s512",
	"gpt2-fp32-infer-b8",
	"gpt2-fp32-zero1-w2",
	"gpt2-fp32-zero1-w4",
	"gpt2-fp32-zero2-w2",
	"gpt2-fp32-zero2-w4",
	"gpt2-large-fp32-adamw-b2",
	"gpt2-medium-amp-bf16-adamw-ckpt-b4-s1024",
	"gpt2-medium-amp-bf16-adamw-fused-b8-expandable",
	"gpt2-medium-fp32-adamw-b4",
	"gpt2-tiny-bf16-sgd-ckpt-b2-s64",
	"gpt2-tiny-fp32-adamw-b4-s128",
	"llama-hd64-bias-amp-bf16-adamw-b4-s1024",
	"llama-small-amp-bf16-adamw-b4",
	"llama-small-amp-bf16-adamw-ckpt-b16-s2048",
	"llama-small-amp-fp16-adamw-b8",
	"llama-small-amp-fp16-adamw-ckpt-b4",
	"llama-small-bf16-adamw-b16-s512",
	"llama-small-bf16-adamw-b4",
	"llama-small-bf16-adamw-b4-roundup4",
	"llama-small-bf16-adamw-b8-s1024-roundup-list",
	"llama-small-bf16-adamw-b8-s2048-roundup2",
	"llama-small-bf16-adamw-ckpt-b4",
	"llama-small-bf16-adamw-fused-b8-s512-expandable",
	"llama-small-bf16-ddp-ckpt-w2",
	"llama-small-bf16-ddp-w2",
	"llama-small-bf16-ddp-w4",
	"llama-small-bf16-ddp-w8",
	"llama-small-bf16-fsdp-ckpt-w2",
	"llama-small-bf16-fsdp-ckpt-w4",
	"llama-small-bf16-fsdp-ckpt-w8",
	"llama-small-bf16-fsdp-w2",
	"llama-small-bf16-fsdp-w4",
	"llama-small-bf16-fsdp-w8",
	"llama-small-bf16-infer-b4",
	"llama-small-bf16-infer-cache-b8-s1024",
	"llama-small-bf16-zero1-w4",
	"llama-small-bf16-zero2-w2",
	"llama-small-bf16-zero2-w4",
	"llama-small-bf16-zero2-w8",
	"llama-small-eager-amp-bf16-adamw-b6-s700",
	"llama-small-eager-bf16-adamw-b4",
	"llama-small-eager-fp32-infer-b8-s1024",
	"llama-small-fp32-adamw-b2-s2048",
	"llama-small-fp32-fsdp-ckpt-w2",
	"llama-small-fp32-infer-cache-b4-s777",
	"llama-small-fp32-sgd-b4-s512",
	"llama-tied-bf16-adamw-b3-s1000",
	"llama-tiny-bf16-adamw-b2-s256",
	"mistral-small-amp-bf16-adamw-ckpt-b8",
	"mistral-small-amp-bf16-adamw-fused-b2-s2048",
	"mistral-small-bf16-adamw-b1-s4608",
	"mistral-small-bf16-adamw-b4",
	"mistral-small-bf16-infer-b16-s2048",
	"mistral-small-bf16-sgd-mom-ckpt-b16",
	"mistral-small-bf16-zero1-w2",
	"mistral-small-fp32-sgd-mom-b2-s2048",
	"mistral-small-swa256-amp-fp16-adamw-b3-s1111",
	"mistral-small-swa300-bf16-adamw-b2-s1000",
	"mistral-small-swa512-bf16-adamw-ckpt-b4-s1024",
	"mistral-tiny-fp32-infer-b1-s32",
	"mlp10m-fp32-adam",
	"mlp10m-fp32-adam-b1024",
	"mlp10m-fp32-adam-forloop-b64",
	"mlp10m-fp32-adamw-fused-b64",
	"mlp10m-fp32-sgd-b64",
	"qwen2-small-amp-bf16-adamw-ckpt-b4",
	"qwen2-small-amp-bf16-sgd-b8-s512-expandable",
	"qwen2-small-amp-fp16-adamw-b4-s1024",
	"qwen2-small-bf16-adam-b6-s640",
	"qwen2-small-bf16-adamw-b4",
	"qwen2-small-bf16-adamw-swa512-b4-s1024",
	"qwen2-small-bf16-fsdp-ckpt-mb2-w4",
	"qwen2-small-bf16-fsdp-w8",
	"qwen2-small-bf16-infer-cache-b32-s512",
	"qwen2-small-bf16-sgd-mom-ckpt-b8",
	"qwen2-small-fp32-adamw-ckpt-b2-s1024",
	"qwen2-small-fp32-infer-b16-s1024",
	"qwen2-small-fp32-infer-b2-s2048",
	"qwen2-small-fp32-sgd-b3-s1500",
	"qwen2-tiny-amp-fp16-adamw-b1-s64",
	"resnet101-amp-fp16-sgd-mom-b64",
	"resnet101-bf16-adamw-fused-b32",
	"resnet101-fp32-adam-b24",
	"resnet101-fp32-adamw-fused-b24",
	"resnet152-amp-bf16-adamw-b48",
	"resnet152-bf16-adamw-b32",
	"resnet152-fp16-adam-forloop-b8",
	"resnet152-fp32-sgd-b16",
	"resnet18-amp-fp16-adamw-b32",
	"resnet18-bf16-adamw-b256-expandable",
	"resnet18-bf16-adamw-b48",
	"resnet18-fp32-adamw-b32-img160",
	"resnet18-fp32-sgd-b64",
	"resnet18-fp32-sgd-mom-b2",
	"resnet34-amp-bf16-sgd-b192",
	"resnet34-fp16-sgd-b64",
	"resnet34-fp32-adam-forloop-b32",
	"resnet50-amp-bf16-adamw-b32",
	"resnet50-amp-bf16-sgd-mom-b40",
	"resnet50-amp-fp16-sgd-b128",
	"resnet50-bf16-infer-b1",
	"resnet50-bf16-sgd-b96",
	"resnet50-fp32-infer-b64",
	"resnet50-fp32-sgd-mom-b100",
	"resnet50-fp32-sgd-mom-b256",
	"resnext50-amp-bf16-sgd-mom-b32",
	"tinyllama-amp-bf16-adamw-b2-s2048",
	"tinyllama-amp-bf16-sgd-ckpt-b1-s4096",
	"tinyllama-amp-fp16-adamw-ckpt-b2-s2048",
	"tinyllama-bf16-adamw-b2-s1024",
	"tinyllama-bf16-adamw-ckpt-b4",
	"tinyllama-bf16-adamw-ckpt-b4-s1024-maxsplit256",
	"tinyllama-bf16-ddp-ckpt-w2",
	"tinyllama-bf16-ddp-mb2-w2",
	"tinyllama-bf16-eager-infer-b4-s2048",
	"tinyllama-bf16-fsdp-ckpt-w2",
	"tinyllama-bf16-fsdp-w2",
	"tinyllama-bf16-fsdp-w4",
	"tinyllama-bf16-infer-b32-s512",
	"tinyllama-bf16-infer-b5-s1500",
	"tinyllama-bf16-infer-b8-s1024",
	"tinyllama-bf16-sgd-ckpt-b8-s2048",
	"tinyllama-bf16-zero2-w2",
	"vit-amp-bf16-adamw-ckpt-b96",
	"vit-amp-bf16-sgd-b64",
	"vit-amp-fp16-adamw-ckpt-b64",
	"vit-amp-fp16-sgd-mom-b40",
	"vit-bf16-adamw-b16-img384",
	"vit-bf16-adamw-b32",
	"vit-bf16-adamw-b64-roundup8",
	"vit-bf16-adamw-fused-b128",
	"vit-bf16-ddp-w4",
	"vit-bf16-infer-b256",
	"vit-fp16-adam-b32",
	"vit-fp32-adamw-b32",
	"vit-fp32-adamw-b8",
	"vit-fp32-adamw-fused-ckpt-b16",
	"vit-fp32-infer-b100",
	"vit-fp32-infer-b512",
	"vit-fp32-infer-b64",
	"vit-fp32-sgd-ckpt-b32",
	"vit-large-bf16-sgd-b8",
	"vit-small-amp-bf16-adamw-b64",
	"vit-small-fp32-infer-b200-img160",
	"vit-tiny-amp-bf16-adamw-b8",
	"wide-resnet50-fp32-adamw-b16",
}
