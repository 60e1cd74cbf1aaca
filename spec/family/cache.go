package family

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/memplan/memplan/spec"
)

// Cache expands descriptions and keeps the last few graphs, for commands
// that estimate many variants of one description (fit's tables, sweeps).
// Variants that differ only in settings the expansion does not read — the
// data-parallel layout but for tensor ranks, the optimizer, the
// allocator's settings, the GPU — share one graph: fit's data-parallel
// table estimates one graph at up to eleven layouts per sharding, and each
// of its options is estimated and then searched from the same batch.
// Graphs are read-only to the estimates that share them. A Cache is safe
// for concurrent use; concurrent expansions of one graph run once.
type Cache struct {
	mu       sync.Mutex
	size     int
	maxBytes int64
	held     int64         // SizeBytes of the finished entries
	entries  []*cacheEntry // least recently used first
}

type cacheEntry struct {
	key   [sha256.Size]byte
	done  chan struct{} // closed once g and err are set
	g     *spec.Graph
	err   error
	bytes int64 // g.SizeBytes(), once done
}

// NewCache returns a cache that keeps the size graphs used last, up to
// maxBytes of them (spec.Graph.SizeBytes): a 405B's graph is about 5 MB, a
// 10,000-layer GPT-2's some 300 MB, which a cache smaller than that does
// not keep at all.
func NewCache(size int, maxBytes int64) *Cache {
	return &Cache{size: max(size, 1), maxBytes: maxBytes}
}

// Expand is family.Expand, sharing the graph of an earlier call whose
// description differs only in settings the expansion does not read.
func (c *Cache) Expand(m *spec.Model) (*spec.Graph, error) {
	key := expansionKey(m)
	c.mu.Lock()
	for i, e := range c.entries {
		if e.key == key {
			copy(c.entries[i:], c.entries[i+1:])
			c.entries[len(c.entries)-1] = e
			c.mu.Unlock()
			<-e.done
			return e.g, e.err
		}
	}
	e := &cacheEntry{key: key, done: make(chan struct{})}
	if len(c.entries) == c.size {
		c.evict(0)
	}
	c.entries = append(c.entries, e)
	c.mu.Unlock()
	// An expansion that panics (a bug) still releases the calls waiting
	// for it, with an error, and panics on its own goroutine.
	e.err = errExpansionPanicked
	defer close(e.done)
	e.g, e.err = Expand(m)
	c.keep(e)
	return e.g, e.err
}

// keep counts a finished entry's graph and drops the graphs used least
// recently while the cache holds more than maxBytes — this one too, when
// it alone is more.
func (c *Cache) keep(e *cacheEntry) {
	var bytes int64
	if e.g != nil {
		bytes = e.g.SizeBytes() // a walk over the graph: outside the lock
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !slices.Contains(c.entries, e) {
		return // evicted while it expanded
	}
	e.bytes = bytes
	c.held += e.bytes
	for i := 0; c.held > c.maxBytes && i < len(c.entries); {
		if x := c.entries[i]; x.bytes > 0 || x == e {
			c.evict(i)
			continue
		}
		i++ // still expanding: its callers hold it
	}
}

// evict drops entry i (c.mu held).
func (c *Cache) evict(i int) {
	c.held -= c.entries[i].bytes
	c.entries = append(c.entries[:i], c.entries[i+1:]...)
}

// errExpansionPanicked is what waits on an expansion that panicked get.
var errExpansionPanicked = errors.New("family: the expansion of this description panicked (a bug in memplan)")

// expansionKey identifies what Expand reads of m: the description less the
// settings it does not (TestCacheKeyLeavesOutWhatExpandIgnores
// checks, for every bundled description, that changing those leaves the
// graph as it was).
func expansionKey(m *spec.Model) [sha256.Size]byte {
	k := *m
	k.GPU, k.GPUBase, k.Pos = "", "", nil
	t := &k.Training
	t.Pos = nil
	t.Allocator = spec.AllocatorOptions{}
	t.Optimizer, t.OptimizerImpl, t.Momentum = 0, 0, 0
	t.Parallel = spec.Parallel{Tensor: t.Parallel.Tensor}
	h := sha256.New()
	fmt.Fprintf(h, "%+v", k)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}
