// Package allocator simulates PyTorch 2.11's CUDA caching allocator
// (c10/cuda/CUDACachingAllocator.cpp, DeviceCachingAllocator) closely
// enough to reproduce its counters byte for byte: allocated, reserved,
// requested, active, inactive split and segment counts, with their sticky
// peaks, num_alloc_retries and num_ooms.
//
// What is modelled:
//
//   - request rounding (512 B, or roundup_power2_divisions);
//   - a small pool (rounded requests up to 1 MiB, 2 MiB segments) and a
//     large pool (20 MiB segments for requests below 10 MiB, otherwise the
//     request rounded up to 2 MiB), each keyed by stream;
//   - best fit over free cached blocks ordered by (stream, size, address),
//     with the max_split_size rules for oversize blocks and the 20 MiB
//     max_non_split_rounding limit;
//   - splitting (small pool or expandable segments: remainder >= 512 B;
//     large pool: remainder > 1 MiB and request below max_split_size) and
//     merging of free neighbours inside a segment;
//   - the out-of-memory path against a capacity: free oversize cached
//     blocks (release_available_cached_blocks, with max_split_size set),
//     then every unsplit cached segment (release_cached_blocks, counted in
//     num_alloc_retries), then fail with an [OOMError];
//   - expandable segments: one growing virtual range per pool and stream,
//     mapped in 2 MiB (small) or 20 MiB (large) pages, extended at its end
//     and unmapped page-wise by EmptyCache; like PyTorch, they count in
//     reserved bytes but not in the segment counter or inactive split.
//
// Not modelled: CUDA graph private pools and mempools, cross-stream use
// (recordStream and its events), garbage_collection_threshold, and
// allocations made outside the caching allocator.
//
// PyTorch breaks ties between equally sized free blocks by address, so
// segment addresses matter. Segments get synthetic addresses from a model
// of the CUDA driver's address space as observed on an H200 (CUDA 13.0):
// new ranges are carved downward, and ranges returned by cudaFree are
// reused lowest first. Replays of recorded PyTorch 2.11 runs
// (testdata/torchprobe.py) agree step for step on every counter when given
// the driver's real addresses, and almost always with the synthetic ones.
//
// Malloc and Free cost O(log n) comparisons in the number of cached blocks
// (a search among the distinct sizes cached, or a hash lookup, and one
// among the cached blocks of one size), plus moving the entries of that
// size's list that sort below the block; EmptyCache is linear.
package allocator
