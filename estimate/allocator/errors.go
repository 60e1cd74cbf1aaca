package allocator

import "fmt"

// OOMError reports a request the allocator could not satisfy within its
// capacity, after releasing every cached block it was allowed to release.
// It mirrors the fields of PyTorch's "CUDA out of memory" message.
type OOMError struct {
	Requested int64  // bytes asked for
	AllocSize int64  // bytes of the segment the allocator tried to obtain
	Reserved  int64  // bytes reserved by the allocator when it gave up
	Allocated int64  // bytes handed out to live blocks when it gave up
	Capacity  int64  // the configured capacity (0: unlimited)
	Stream    Stream // the stream of the request
}

// Error reports the request and the allocator's state, like PyTorch's
// OutOfMemoryError message.
func (e *OOMError) Error() string {
	capacity := "unlimited"
	switch {
	case e.Capacity > 0:
		capacity = formatSize(e.Capacity)
	case e.Requested >= MaxRequest:
		return fmt.Sprintf("PyTorch refuses a single allocation of 2^60 bytes or more (request of %d bytes on stream %d)", e.Requested, e.Stream)
	case e.Reserved+e.AllocSize > MaxReserved:
		return fmt.Sprintf("the step would reserve more than 2^62 bytes, beyond any device (request of %d bytes on stream %d with %s reserved)", e.Requested, e.Stream, formatSize(e.Reserved))
	}
	return fmt.Sprintf("out of memory: tried to allocate %s (request of %d bytes on stream %d); "+
		"capacity %s, of which %s is allocated and %s is reserved but unallocated",
		formatSize(e.AllocSize), e.Requested, e.Stream, capacity,
		formatSize(e.Allocated), formatSize(e.Reserved-e.Allocated))
}

// BlockError reports a Free of a block id that is not live.
type BlockError struct {
	ID BlockID
	// DoubleFree is true when the id was handed out and already freed,
	// false when it was never handed out by this allocator.
	DoubleFree bool
}

// Error says whether the block was freed before or never existed.
func (e *BlockError) Error() string {
	if e.DoubleFree {
		return fmt.Sprintf("block %d was already freed", e.ID)
	}
	return fmt.Sprintf("block %d was never allocated", e.ID)
}

// SizeError reports a size that cannot be used: negative, malformed, or
// too large for an int64 byte count.
type SizeError struct {
	Input  string // the text or number that was rejected
	Reason string // why, naming what is allowed
}

// Error names the rejected input and the reason.
func (e *SizeError) Error() string {
	return fmt.Sprintf("invalid size %q: %s", e.Input, e.Reason)
}

// ConfigError reports a Config field PyTorch would reject.
type ConfigError struct {
	Field  string
	Reason string
}

// Error names the field and the reason.
func (e *ConfigError) Error() string {
	return fmt.Sprintf("allocator config %s: %s", e.Field, e.Reason)
}

// formatSize prints bytes the way PyTorch's format_size does.
func formatSize(n int64) string {
	switch {
	case n <= 1024:
		return fmt.Sprintf("%d bytes", n)
	case n <= 1<<20:
		return fmt.Sprintf("%.2f KiB", float64(n)/(1<<10))
	case n <= 1<<30:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	}
}
