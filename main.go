// Command memplan predicts, before a run, how much GPU memory one PyTorch
// training (or inference) step takes — phase by phase, the way the CUDA
// caching allocator (allocated, reserved, peak) and nvidia-smi report it.
//
// Usage:
//
//	memplan estimate FILE [--format text|json] [--gpu NAME|FILE] [-o report.html|.xlsx|.json|.txt]
//	memplan shapes FILE [--format text|json]
//	memplan alloc [--expandable] SIZE...
//	memplan calibrate [-o FILE] [--device N] [--convs MODEL.yaml]...
//	memplan fit FILE [--gpu NAME|FILE] [--headroom 5%]
//	memplan check FILE --budget 80GiB
//	memplan oom [FILE|-]
//	memplan reconcile FILE.yaml measured.json [--format text|html|json] [-o FILE]
//	memplan version
//
// Exit codes: 0 ok, 1 invalid input or failed estimate, 2 usage, 3 (check) does not fit.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"
)

// version is memplan's version, written into every result.
const version = "0.1.0"

// Exit codes.
const (
	exitOK      = 0
	exitFailed  = 1
	exitUsage   = 2
	exitNoFit   = 3
	usageHeader = `memplan predicts the GPU memory of one PyTorch training or inference step.

usage: memplan <command> [arguments]

commands:
`
)

// command is one subcommand.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

func commands() map[string]command {
	return map[string]command{
		"estimate":  {"estimate a model description: phase peaks, terms, nvidia-smi", runEstimate},
		"report":    {"write an HTML or XLSX report of an estimate (-o out.html|out.xlsx)", runReport},
		"shapes":    {"list every tensor of the expansion, layer by layer", runShapes},
		"alloc":     {"replay allocation sizes through the caching-allocator model", runAlloc},
		"calibrate": {"measure this machine's GPU and write a profile (needs a GPU)", runCalibrate},
		"version":   {"print the version", runVersion},
		"fit":       {"largest batch (and seq_len) that fits a GPU, and the options that change memory", runFit},
		"check":     {"CI budget check: exit 0 when the step fits, 3 when it does not", runCheck},
		"oom":       {"explain a PyTorch CUDA out-of-memory message: live tensors, fragmentation or outside memory", runOOM},
		"reconcile": {"compare an estimate with a measured run (probe/memplan_probe.py JSON) and explain each gap", runReconcile},
	}
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// reportBug, deferred, turns a panic into one line and exit 1: a panic is
// a bug in memplan, not the user's input, and a Go crash would exit 2, the
// usage code. MEMPLAN_TRACEBACK=1 lets the panic through.
func reportBug(stderr io.Writer, code *int) {
	r := recover()
	if r == nil {
		return
	}
	if os.Getenv("MEMPLAN_TRACEBACK") == "1" {
		panic(r)
	}
	fmt.Fprintf(stderr, "memplan: internal error: %v (a bug in memplan: please report it with the description; MEMPLAN_TRACEBACK=1 shows where)\n", r)
	*code = exitFailed
}

// run is the whole CLI, callable from tests.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer reportBug(stderr, &code)
	cmds := commands()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		w := stdout
		code := exitOK
		if len(args) == 0 {
			w, code = stderr, exitUsage
		}
		printUsage(w, cmds)
		return code
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "memplan: unknown command %q\n", args[0])
		printUsage(stderr, cmds)
		return exitUsage
	}
	defer batchGC()()
	return c.run(args[1:], stdout, stderr)
}

// batchGC raises the garbage collector's target while a command runs, and
// returns what restores it. A command is a short batch job whose heap is
// mostly its expanded graphs and simulations: each estimate leaves about
// 10 MB of short-lived garbage, and at the default target (collect at 2×
// the live heap) one 405B estimate from a fresh process collects three
// times while it builds. Collecting at 5× made the 1,000-point 405B sweep
// 18% faster (20.5 → 16.8 s) for a largest resident size of 147 MB instead
// of 67 MB, and `memplan estimate` of the 405B 35–40 → 28–35 ms (session
// 17, notes/speed.md). A GOGC the user set is left alone.
func batchGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(400)
	return func() { debug.SetGCPercent(old) }
}

func printUsage(w io.Writer, cmds map[string]command) {
	fmt.Fprint(w, usageHeader)
	var names []string
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].summary)
	}
	fmt.Fprint(w, "\nRun `memplan <command> --help` for a command's flags.\n")
}

// newFlags makes a FlagSet whose usage goes to stderr with the command's synopsis.
func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: memplan %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// listFlag is a repeatable string flag (estimate's --set, calibrate's
// --convs): each occurrence adds one value.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// parseArgs parses flags that may come before or after positional arguments.
// It returns the positionals, and an exit code >= 0 when the caller must stop.
func parseArgs(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, int) {
	var pos []string
	usage := fs.Usage
	for {
		// The flag package prints the usage itself on -help and on a bad
		// flag; it is printed once here instead: to stdout when asked for.
		fs.Usage = func() {}
		err := fs.Parse(args)
		fs.Usage = usage
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fs.Usage()
			return nil, exitOK
		}
		if err != nil {
			fs.Usage()
			return nil, exitUsage
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, -1
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// parseFile is parseArgs for commands that take exactly one file argument.
func parseFile(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, int) {
	pos, code := parseArgs(fs, args, stdout)
	if code < 0 && len(pos) != 1 {
		fmt.Fprintf(fs.Output(), "memplan %s: want one description file, got %d arguments%s\n", fs.Name(), len(pos), listed(pos))
		fs.Usage()
		return nil, exitUsage
	}
	return pos, code
}

// listed returns ": a b" for arguments a and b, or "" for none.
func listed(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return ": " + strings.Join(args, " ")
}

// fail prints a one-line error and returns exit code 1.
func fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "memplan: %s\n", strings.TrimSpace(err.Error()))
	return exitFailed
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("version", "", stderr)
	pos, code := parseArgs(fs, args, stdout)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "memplan version: takes no arguments, got %d%s\n", len(pos), listed(pos))
		fs.Usage()
		return exitUsage
	}
	fmt.Fprintf(stdout, "memplan %s (models PyTorch 2.11 CUDA caching allocator, transformers 5.x, torchvision 0.26)\n", version)
	return exitOK
}
