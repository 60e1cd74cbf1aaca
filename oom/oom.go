// Package oom reads PyTorch's CUDA out-of-memory message and says what kind
// of shortage it is: live tensors, cached reserve and fragmentation, or
// memory outside the caching allocator — with the numbers it used.
package oom

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Kind is the cause an OOM message points to.
type Kind int

// The kinds of shortage.
const (
	LiveTensors Kind = iota
	Fragmentation
	OutsideAllocator
)

// String names the kind for people.
func (k Kind) String() string {
	return [...]string{"live tensors", "cached reserve and fragmentation", "memory outside the allocator"}[k]
}

// Report is what an OOM message says, in bytes (-1 where the message lacks a figure).
type Report struct {
	Tried, Total, Free              int64
	ProcessInUse                    int64 // this process, as the driver sees it (PyTorch ≥ 2.1)
	Allocated, ReservedUnallocated  int64
	OtherProcesses                  int64
	Device                          int
	Kind                            Kind
	NonPyTorch, Shortfall, Reserved int64
	// SelfListed: the message has no "this process" line, so this process is
	// among the listed ones under another PID (a container's PID namespace):
	// the smallest that holds its reserve is taken as it.
	SelfListed bool
}

var (
	sizeRe   = `([0-9.]+) (B|bytes|KiB|MiB|GiB|TiB)`
	triedRe  = regexp.MustCompile(`Tried to allocate ` + sizeRe)
	newRe    = regexp.MustCompile(`GPU (\d+) has a total capacity of ` + sizeRe + ` of which ` + sizeRe + ` is free`)
	procRe   = regexp.MustCompile(`this process has ` + sizeRe + ` memory in use`)
	otherRe  = regexp.MustCompile(`Process \d+ has ` + sizeRe + ` memory in use`)
	allocRe  = regexp.MustCompile(`Of the allocated memory ` + sizeRe + ` is allocated by PyTorch, (?:with [0-9.]+ \w+ allocated in private pools \(e\.g\., CUDA Graphs\), )?and ` + sizeRe + ` is reserved by PyTorch but unallocated`)
	oldRe    = regexp.MustCompile(`\(GPU (\d+); ` + sizeRe + ` total capacity; ` + sizeRe + ` already allocated; ` + sizeRe + ` free; ` + sizeRe + ` reserved in total by PyTorch\)`)
	unitSize = map[string]float64{"B": 1, "bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
)

func size(num, unit string) int64 {
	f, _ := strconv.ParseFloat(num, 64)
	return int64(f * unitSize[unit])
}

// Parse reads the message (the exception text; surrounding traceback is ignored).
func Parse(msg string) (*Report, error) {
	msg = strings.Join(strings.Fields(msg), " ")
	r := &Report{Tried: -1, Total: -1, Free: -1, ProcessInUse: -1, Allocated: -1, ReservedUnallocated: -1}
	m := triedRe.FindStringSubmatch(msg)
	if m == nil {
		return nil, fmt.Errorf("reading the OOM message: no \"Tried to allocate N GiB\" (allowed: the text of a torch.OutOfMemoryError / CUDA out of memory error)")
	}
	r.Tried = size(m[1], m[2])
	if m := newRe.FindStringSubmatch(msg); m != nil {
		r.Device, _ = strconv.Atoi(m[1])
		r.Total, r.Free = size(m[2], m[3]), size(m[4], m[5])
		if p := procRe.FindStringSubmatch(msg); p != nil {
			r.ProcessInUse = size(p[1], p[2])
		}
		others := otherRe.FindAllStringSubmatch(msg, -1)
		for _, o := range others {
			r.OtherProcesses += size(o[1], o[2])
		}
		a := allocRe.FindStringSubmatch(msg)
		if a == nil {
			return nil, fmt.Errorf("reading the OOM message: no \"Of the allocated memory … reserved by PyTorch but unallocated\" part (allowed: PyTorch ≥ 2.1 or the older \"(GPU 0; … reserved in total by PyTorch)\" form)")
		}
		r.Allocated, r.ReservedUnallocated = size(a[1], a[2]), size(a[3], a[4])
		if r.ProcessInUse < 0 {
			// No line for this process, which NVML must list since it holds
			// memory: PyTorch did not recognise its own PID (a container), so
			// this process is the smallest listed one that holds its reserve.
			self := int64(-1)
			for _, o := range others {
				if n := size(o[1], o[2]); n >= r.Allocated+r.ReservedUnallocated && (self < 0 || n < self) {
					self = n
				}
			}
			if self >= 0 {
				r.ProcessInUse, r.OtherProcesses, r.SelfListed = self, r.OtherProcesses-self, true
			}
		}
	} else if m := oldRe.FindStringSubmatch(msg); m != nil {
		r.Device, _ = strconv.Atoi(m[1])
		r.Total, r.Allocated, r.Free = size(m[2], m[3]), size(m[4], m[5]), size(m[6], m[7])
		reserved := size(m[8], m[9])
		r.ReservedUnallocated = max(0, reserved-r.Allocated)
	} else {
		return nil, fmt.Errorf("reading the OOM message: no GPU capacity figures (allowed: \"GPU N has a total capacity of …\" or \"(GPU N; … total capacity; …)\")")
	}
	r.classify()
	return r, nil
}

// classify picks the kind: cached-but-unusable reserve that alone could hold
// the request means fragmentation; memory the allocator does not own (this
// process's context and libraries, other processes) that alone covers the
// shortfall means outside; otherwise the live tensors are too many.
func (r *Report) classify() {
	r.Reserved = r.Allocated + r.ReservedUnallocated
	r.Shortfall = max(0, r.Tried-r.Free)
	if r.ProcessInUse >= 0 {
		r.NonPyTorch = max(0, r.ProcessInUse-r.Reserved)
	} else if r.Total >= 0 {
		// No figure for this process (the old format, or a message whose
		// listed processes are all others): everything used that PyTorch
		// did not reserve and no other process holds is this process's own.
		r.NonPyTorch = max(0, r.Total-r.Free-r.Reserved-r.OtherProcesses)
	}
	outside := r.NonPyTorch + r.OtherProcesses
	switch {
	case r.ReservedUnallocated >= r.Tried && r.ReservedUnallocated*100 >= r.Allocated:
		// Enough cached bytes, no block to hold them: fragmentation — when
		// the cache is worth defragmenting (1% of the live tensors or
		// more); 1.5 MiB cached next to 78 GiB live is a full device.
		r.Kind = Fragmentation
	case r.OtherProcesses > 0 && r.OtherProcesses >= r.Shortfall, r.Total > 0 && outside > r.Total/4 && outside >= r.Shortfall:
		r.Kind = OutsideAllocator
	default:
		r.Kind = LiveTensors
	}
}

// gib writes a size in GiB, or in MiB, KiB or bytes when it is smaller
// than one of the larger unit (a 512 KiB request is not "0.00 GiB").
func gib(b int64) string {
	switch {
	case b >= 1<<30 || b <= -1<<30:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	case b >= 1<<20 || b <= -1<<20:
		return fmt.Sprintf("%.2f MiB", float64(b)/(1<<20))
	case b >= 1<<10 || b <= -1<<10:
		return fmt.Sprintf("%.2f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", b)
}

// Explain writes the verdict, the numbers and the fixes that apply.
func (r *Report) Explain() string {
	var b strings.Builder
	fmt.Fprintf(&b, "verdict: %s\n\n", r.Kind)
	fmt.Fprintf(&b, "numbers (GPU %d):\n", r.Device)
	fmt.Fprintf(&b, "  requested                       %s\n", gib(r.Tried))
	fmt.Fprintf(&b, "  free on the device              %s (short by %s)\n", gib(r.Free), gib(r.Shortfall))
	fmt.Fprintf(&b, "  total capacity                  %s\n", gib(r.Total))
	fmt.Fprintf(&b, "  live tensors (allocated)        %s\n", gib(r.Allocated))
	fmt.Fprintf(&b, "  cached, unallocated reserve     %s\n", gib(r.ReservedUnallocated))
	fmt.Fprintf(&b, "  this process outside PyTorch    %s (CUDA context, library kernels, NCCL, other allocators)\n", gib(r.NonPyTorch))
	if r.OtherProcesses > 0 {
		fmt.Fprintf(&b, "  other processes                 %s\n", gib(r.OtherProcesses))
	}
	if r.SelfListed {
		b.WriteString("  (no line for this process: the smallest listed process that holds its reserve is taken as it, seen under another PID, as in a container)\n")
	}
	b.WriteString("\nwhat applies:\n")
	switch r.Kind {
	case Fragmentation:
		fmt.Fprintf(&b, "  - The allocator holds %s of free cached memory, more than the %s asked for, but no single free block is large enough: the reserve is fragmented.\n", gib(r.ReservedUnallocated), gib(r.Tried))
		b.WriteString("  - Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (segments grow in place, so free space merges), or max_split_size_mb to stop large blocks from being split.\n")
		b.WriteString("  - torch.cuda.empty_cache() only returns whole free segments to the driver; it moves no tensor, so it cannot make a block bigger than the largest free one.\n")
	case OutsideAllocator:
		fmt.Fprintf(&b, "  - %s is held outside PyTorch's allocator (this process outside PyTorch %s, other processes %s); PyTorch's own tensors hold %s, so shrinking them cannot free what the others hold.\n", gib(r.NonPyTorch+r.OtherProcesses), gib(r.NonPyTorch), gib(r.OtherProcesses), gib(r.Allocated))
		if r.OtherProcesses >= r.NonPyTorch {
			b.WriteString("  - Other processes hold most of it: stop them or move them to another GPU (nvidia-smi lists them); with several ranks per GPU, check that each process uses its own device.\n")
		} else {
			fmt.Fprintf(&b, "  - This process holds %s beyond its tensors, more than a CUDA context and lazily loaded kernels take (about 0.5 to 1.5 GiB): look for another allocator in the same process (CuPy, JAX, TensorFlow, NCCL buffers, cudaMalloc in an extension).\n", gib(r.NonPyTorch))
		}
		b.WriteString("  - Then: NCCL buffer settings (NCCL_BUFFSIZE, fewer communicators), or route the other library through PyTorch's allocator (CuPy: cupy.cuda.set_allocator over torch.cuda.caching_allocator_alloc).\n")
	default:
		if r.ReservedUnallocated >= r.Tried {
			fmt.Fprintf(&b, "  - Live tensors hold %s; the cached reserve (%s) is more than the %s asked for but no block of it fits, and it is too little next to the live tensors for defragmenting (expandable_segments) or empty_cache() to help.\n", gib(r.Allocated), gib(r.ReservedUnallocated), gib(r.Tried))
		} else {
			fmt.Fprintf(&b, "  - Live tensors hold %s; the cached reserve (%s) could not hold the request, and empty_cache() would not change that.\n", gib(r.Allocated), gib(r.ReservedUnallocated))
		}
		b.WriteString("  - Make the step need less: a smaller batch or sequence, activation checkpointing, bf16 or autocast, a fused optimizer; `memplan fit` shows what each buys.\n")
	}
	return b.String()
}
