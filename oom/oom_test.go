package oom

import (
	"strings"
	"testing"
)

func TestParseKinds(t *testing.T) {
	cases := []struct {
		name, msg string
		kind      Kind
	}{
		{"issue example", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.11 GiB of which 1.19 GiB is free. Including non-PyTorch memory, this process has 77.90 GiB memory in use. Of the allocated memory 70.02 GiB is allocated by PyTorch, and 6.98 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.", Fragmentation},
		{"live", "CUDA out of memory. Tried to allocate 8.00 GiB. GPU 0 has a total capacity of 139.80 GiB of which 3.12 GiB is free. Including non-PyTorch memory, this process has 136.66 GiB memory in use. Of the allocated memory 135.20 GiB is allocated by PyTorch, and 700.00 MiB is reserved by PyTorch but unallocated.", LiveTensors},
		{"other process", "CUDA out of memory. Tried to allocate 20.00 GiB. GPU 0 has a total capacity of 139.80 GiB of which 10.00 GiB is free. Process 4242 has 100.00 GiB memory in use. Including non-PyTorch memory, this process has 29.80 GiB memory in use. Of the allocated memory 28.00 GiB is allocated by PyTorch, and 1.00 GiB is reserved by PyTorch but unallocated.", OutsideAllocator},
		{"self under another PID", "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.15 GiB of which 6.75 MiB is free. Process 1234 has 79.14 GiB memory in use. Of the allocated memory 76.84 GiB is allocated by PyTorch, and 1.69 GiB is reserved by PyTorch but unallocated.", Fragmentation},
		{"full device, tiny cache", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 KiB. GPU 0 has a total capacity of 79.19 GiB of which 0 bytes is free. Including non-PyTorch memory, this process has 79.18 GiB memory in use. Of the allocated memory 78.20 GiB is allocated by PyTorch, and 1.50 MiB is reserved by PyTorch but unallocated.", LiveTensors},
		{"old format", "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; 14.56 GiB already allocated; 3.75 MiB free; 14.75 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.", Fragmentation},
	}
	for _, c := range cases {
		r, err := Parse(c.msg)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if r.Kind != c.kind {
			t.Errorf("%s: kind %v, want %v (%+v)", c.name, r.Kind, c.kind, r)
		}
		if !strings.Contains(r.Explain(), "verdict: "+c.kind.String()) {
			t.Errorf("%s: explanation lacks the verdict", c.name)
		}
	}
}

// The one listed process, holding this process's reserve, with no line for
// this process, is this process seen under another PID.
func TestSelfListedUnderAnotherPID(t *testing.T) {
	r, err := Parse("CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.15 GiB of which 6.75 MiB is free. Process 1234 has 79.14 GiB memory in use. Of the allocated memory 76.84 GiB is allocated by PyTorch, and 1.69 GiB is reserved by PyTorch but unallocated.")
	if err != nil {
		t.Fatal(err)
	}
	if !r.SelfListed || r.OtherProcesses != 0 || r.ProcessInUse <= 0 || !strings.Contains(r.Explain(), "seen under another PID") {
		t.Errorf("%+v", r)
	}
	// Of two listed processes, the smallest holding the reserve is this one.
	r, _ = Parse("CUDA out of memory. Tried to allocate 20.00 GiB. GPU 0 has a total capacity of 139.80 GiB of which 10.00 GiB is free. Process 4242 has 100.00 GiB memory in use. Process 77 has 29.80 GiB memory in use. Of the allocated memory 28.00 GiB is allocated by PyTorch, and 1.00 GiB is reserved by PyTorch but unallocated.")
	if !r.SelfListed || r.ProcessInUse != size("29.80", "GiB") || r.OtherProcesses != 100<<30 || r.Kind != OutsideAllocator {
		t.Errorf("two listed processes: %+v", r)
	}
}

// Sizes below a GiB are written in the unit that shows them.
func TestExplainSmallSizes(t *testing.T) {
	r, err := Parse("CUDA out of memory. Tried to allocate 512.00 KiB. GPU 0 has a total capacity of 79.19 GiB of which 0 bytes is free. Including non-PyTorch memory, this process has 79.18 GiB memory in use. Of the allocated memory 78.20 GiB is allocated by PyTorch, and 1.50 MiB is reserved by PyTorch but unallocated.")
	if err != nil {
		t.Fatal(err)
	}
	text := r.Explain()
	for _, want := range []string{"512.00 KiB", "1.50 MiB", "78.20 GiB", "0 bytes", "too little next to the live tensors"} {
		if !strings.Contains(text, want) {
			t.Errorf("explanation lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "0.00 GiB") {
		t.Errorf("a small size written as 0.00 GiB:\n%s", text)
	}
}

func TestParseRefusesOtherText(t *testing.T) {
	for _, msg := range []string{"", "segmentation fault", "CUDA out of memory. Tried to allocate 2.00 GiB."} {
		if _, err := Parse(msg); err == nil {
			t.Errorf("%q: want an error", msg)
		}
	}
}
