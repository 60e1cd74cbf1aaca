package main

import (
	"fmt"
	"io"
	"os"

	"github.com/memplan/memplan/internal/readlimit"
	"github.com/memplan/memplan/oom"
)

func runOOM(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("oom", "[FILE|-]  (a PyTorch CUDA out-of-memory message; - or none reads standard input)", stderr)
	pos, code := parseArgs(fs, args, stdout)
	if code >= 0 {
		return code
	}
	if len(pos) > 1 {
		fmt.Fprintf(stderr, "memplan oom: want at most one file (or - for standard input), got %d%s\n", len(pos), listed(pos))
		fs.Usage()
		return exitUsage
	}
	var data []byte
	var err error
	if len(pos) == 0 || pos[0] == "-" {
		data, err = io.ReadAll(io.LimitReader(os.Stdin, 1<<20))
	} else {
		data, err = readlimit.File(pos[0], 1<<20)
	}
	if err != nil {
		return fail(stderr, fmt.Errorf("reading the OOM message: %w", err))
	}
	r, err := oom.Parse(string(data))
	if err != nil {
		return fail(stderr, err)
	}
	fmt.Fprint(stdout, r.Explain())
	return exitOK
}
