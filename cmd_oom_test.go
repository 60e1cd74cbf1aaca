package main

import (
	"strings"
	"testing"
)

// TestOOMCommandRealMessages runs `memplan oom` on the messages PyTorch 2.11
// printed on an H200 (oom/testdata/make_ooms.py made them).
func TestOOMCommandRealMessages(t *testing.T) {
	for file, verdict := range map[string]string{
		"oom/testdata/live.txt":            "live tensors",
		"oom/testdata/fragmentation.txt":   "cached reserve and fragmentation",
		"oom/testdata/outside-cupy.txt":    "memory outside the allocator",
		"oom/testdata/outside-process.txt": "memory outside the allocator",
	} {
		code, out, stderr := runCLI("oom", file)
		if code != exitOK {
			t.Errorf("%s: exit %d: %s", file, code, stderr)
			continue
		}
		if !strings.HasPrefix(out, "verdict: "+verdict+"\n") {
			t.Errorf("%s: got\n%s\nwant the verdict %q", file, out, verdict)
		}
	}
	if code, _, stderr := runCLI("oom", "README.md"); code != exitFailed || !strings.Contains(stderr, "Tried to allocate") {
		t.Errorf("a file without an OOM message: exit %d, %q", code, stderr)
	}
}
