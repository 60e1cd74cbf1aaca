package estimate

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/estimate/allocator"
	"github.com/memplan/memplan/spec"
)

// A sweep or a search estimates one description at many batch sizes and
// sequence lengths. Its graphs then have one structure (spec.SameStructure),
// and the timeline makes the same requests in the same order for each,
// only of other sizes: what it decides follows the graph's ops, tensors and
// roles and the training options, never a tensor's size, except where the
// size is a resident tensor's (a parameter's gradient, optimizer state,
// buckets and shards), which SameStructure holds equal, or zero (an empty
// gradient is not allocated), which it holds zero. So the timeline of one
// run, recorded, is the timeline of every other: an alloc asks for the
// bytes of the graph tensor it makes (request.tensor) or is sized by
// (request.sizedBy), read from the graph replayed on, and every other size
// (workspaces, library windows) is the profile's. The replay still runs
// every request through the allocator; only the walk of the graph is
// spared, which is about half of an estimate's time.
// TestRecordedWalksAreRuns holds every bundled description at other
// batch sizes and lengths to the same results as walking its graph.

// Walks keeps the timelines recorded by runs of a command, for its later
// runs of the same step at other sizes (Options.Walks), up to a number of
// bytes: the walks used least recently make way. It is safe for concurrent
// use.
type Walks struct {
	mu    sync.Mutex
	max   int64   // bytes kept, at most (walk.bytes)
	held  int64   // bytes kept
	walks []*walk // used least recently first
	seen  []sighting
	// replayed counts the runs that replayed a walk (tests).
	replayed atomic.Int64
}

// walk is one recorded timeline: every request the run sent, in order.
type walk struct {
	key   string // the training options but the sizes (walkKey)
	p     *calibrate.Profile
	g     *spec.Graph
	reqs  []recorded
	steps int // steps walked
	// The strings the requests do not find in the graph, in request
	// order: names and suffixes, and the op running where it changes.
	names, suffixes, ops []string
}

// bytes is about what k holds: its requests and strings, and the graph it
// keeps to compare others with (its tensors and ops; their names and id
// lists are left out).
func (k *walk) bytes() int64 {
	return int64(len(k.reqs))*int64(unsafe.Sizeof(recorded{})) +
		int64(len(k.names)+len(k.suffixes)+len(k.ops))*int64(unsafe.Sizeof("")) +
		int64(len(k.g.Tensors))*int64(unsafe.Sizeof(spec.Tensor{})) + int64(len(k.g.Ops))*int64(unsafe.Sizeof(spec.Op{}))
}

// recorded is a request as a walk keeps it, a quarter of its size: a
// Llama-405B step's 125,000 requests take 4 MB. Its name is the graph
// tensor's it makes or is sized by, or the next of the walk's names; its op
// the one before's or the next of the walk's ops (op and suffix). Its
// block is the one the allocator hands out in turn, as when it was walked.
type recorded struct {
	bytes   int64 // an alloc's that is no graph tensor's; a step's number
	block   int32
	tensor  spec.TensorID
	sizedBy spec.TensorID
	kind    requestKind
	role    uint8
	phase   uint8
	stream  uint8
	strings uint8 // where its strings are (the flags below)
}

const (
	nameListed   = 1 << iota // request.name is the next of walk.names (else its tensor's: replay.nameOf)
	suffixListed             // request.suffix is the next of walk.suffixes
	opListed                 // op and opSuffix are the next two of walk.ops
)

// recorder turns the requests a run sends into a walk.
type recorder struct {
	g            *spec.Graph
	w            walk
	op, opSuffix string
	bad          bool // a request the compact form cannot hold
}

// add records q.
func (rc *recorder) add(q *request) {
	r := recorded{bytes: q.bytes, block: int32(q.block), tensor: q.tensor, sizedBy: q.sizedBy, kind: q.kind,
		role: uint8(q.role), phase: uint8(q.phase), stream: uint8(q.stream)}
	if int64(r.block) != int64(q.block) || spec.Role(r.role) != q.role || Phase(r.phase) != q.phase || allocator.Stream(r.stream) != q.stream {
		rc.bad = true
	}
	// A name that is its tensor's is read from the graph replayed on; an
	// empty one where the tensor's would be read cannot be kept.
	var own string
	switch ts := rc.g.Tensors; {
	case q.kind != reqAlloc && q.kind != reqFree:
	case q.tensor != spec.NoTensor:
		own = ts[q.tensor].Name
	case q.sizedBy > 0:
		own = ts[q.sizedBy-1].Name
	}
	if q.name != own {
		r.strings |= nameListed
		rc.w.names = append(rc.w.names, q.name)
		rc.bad = rc.bad || q.name == ""
	}
	if q.suffix != "" {
		r.strings |= suffixListed
		rc.w.suffixes = append(rc.w.suffixes, q.suffix)
	}
	if q.op != rc.op || q.opSuffix != rc.opSuffix {
		r.strings |= opListed
		rc.w.ops = append(rc.w.ops, q.op, q.opSuffix)
		rc.op, rc.opSuffix = q.op, q.opSuffix
	}
	rc.w.reqs = append(rc.w.reqs, r)
}

// walk returns the recorded walk, its lists trimmed to their length.
func (rc *recorder) walk(key string, p *calibrate.Profile, steps int) *walk {
	k := rc.w
	k.key, k.p, k.g, k.steps = key, p, rc.g, steps
	k.reqs, k.names, k.suffixes, k.ops = slices.Clone(k.reqs), slices.Clone(k.names), slices.Clone(k.suffixes), slices.Clone(k.ops)
	return &k
}

// NewWalks returns an empty store that keeps up to maxBytes of walks (a
// Llama-405B step's is about 10 MB with its graph); a walk larger than
// that is not kept.
func NewWalks(maxBytes int64) *Walks { return &Walks{max: maxBytes} }

// walkKey is what, besides the graph's structure and the profile, decides a
// timeline: the training options less the sizes a structure varies in.
func walkKey(m *spec.Model) string {
	t := m.Training
	t.BatchSize, t.SeqLen, t.ImageSize = 0, 0, 0
	t.ConvWorkspaces, t.Pos = nil, nil // sizes, held in the graph's tensors
	return fmt.Sprintf("%+v", t)
}

// find returns a walk recorded on p for a graph of g's structure with the
// same options, or nil, and otherwise how many requests a run of that kind
// sent when one was seen (0 when none was): the second such run is
// recorded, so that a command that runs a kind once records none.
func (w *Walks) find(key string, g *spec.Graph, p *calibrate.Profile) (*walk, int) {
	w.mu.Lock()
	candidates, seen := slices.Clone(w.walks), slices.Clone(w.seen)
	w.mu.Unlock()
	for i := len(candidates) - 1; i >= 0; i-- {
		if k := candidates[i]; k.key == key && k.p == p && spec.SameStructure(k.g, g) {
			w.mu.Lock()
			if j := slices.Index(w.walks, k); j >= 0 {
				w.walks = append(slices.Delete(w.walks, j, j+1), k)
			}
			w.mu.Unlock()
			return k, 0
		}
	}
	for _, k := range seen {
		if k.key == key && k.p == p && spec.SameStructure(k.g, g) {
			return nil, k.sent
		}
	}
	return nil, 0
}

// saw notes a run of g that was not recorded and sent n requests; the
// last few are kept.
func (w *Walks) saw(key string, g *spec.Graph, p *calibrate.Profile, n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.seen) == walksSeen {
		w.seen = slices.Delete(w.seen, 0, 1)
	}
	w.seen = append(w.seen, sighting{key: key, p: p, g: g, sent: n})
}

// walksSeen is how many runs that were not recorded a Walks remembers.
const walksSeen = 4

// sighting is a run a Walks saw and did not record.
type sighting struct {
	key  string
	p    *calibrate.Profile
	g    *spec.Graph
	sent int
}

// add keeps k, unless a walk of its kind that has as many steps is kept:
// it then replaces one with fewer. The sightings of its kind are
// forgotten.
func (w *Walks) add(k *walk) {
	b := k.bytes()
	if b > w.max {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = slices.DeleteFunc(w.seen, func(o sighting) bool {
		return o.key == k.key && o.p == k.p && spec.SameStructure(o.g, k.g)
	})
	for i, o := range w.walks {
		if o.key == k.key && o.p == k.p && spec.SameStructure(o.g, k.g) {
			if o.steps >= k.steps {
				return
			}
			w.drop(i)
			break
		}
	}
	for w.held+b > w.max {
		w.drop(0)
	}
	w.walks = append(w.walks, k)
	w.held += b
}

// drop forgets walk i.
func (w *Walks) drop(i int) {
	w.held -= w.walks[i].bytes()
	w.walks = slices.Delete(w.walks, i, i+1)
}

// errWalkShort stops a replayed walk whose run goes on past the steps the
// recording walked (a limited device that has not settled yet); the run is
// then walked.
var errWalkShort = errors.New("estimate: the recorded timeline ends before the run does")

// replayWalk replays k's requests, each alloc sized from s's graph, and
// decides after each step whether the run goes on, as walk does. It runs
// the replay itself: there is no walk to run beside it.
func (s *sim) replayWalk(k *walk) error {
	r := &s.rp
	// The sizes, read in one pass: a read of each alloc's tensor in turn
	// would miss the cache at most of them.
	sizes := make([]int64, len(s.g.Tensors))
	for i := range s.g.Tensors {
		sizes[i] = s.g.Tensors[i].Bytes
	}
	var names, suffixes, ops int
	var q request
	for i := range k.reqs {
		w := &k.reqs[i]
		q.kind, q.role, q.phase, q.stream = w.kind, spec.Role(w.role), Phase(w.phase), allocator.Stream(w.stream)
		q.tensor, q.sizedBy, q.block, q.bytes = w.tensor, w.sizedBy, allocator.BlockID(w.block), w.bytes
		q.name, q.suffix = "", ""
		if w.strings != 0 {
			// A name that is its tensor's is left to replay.nameOf, which
			// reads it only when an event or an error needs it.
			if w.strings&nameListed != 0 {
				q.name = k.names[names]
				names++
			}
			if w.strings&suffixListed != 0 {
				q.suffix = k.suffixes[suffixes]
				suffixes++
			}
			if w.strings&opListed != 0 {
				q.op, q.opSuffix = k.ops[ops], k.ops[ops+1]
				ops += 2
			}
		}
		if q.kind == reqAlloc {
			if q.tensor != spec.NoTensor {
				q.bytes = sizes[q.tensor]
			} else if q.sizedBy > 0 {
				q.bytes = sizes[q.sizedBy-1]
			}
		}
		r.apply(&q)
		if r.err != nil {
			return r.err
		}
		if q.kind == reqEndIteration {
			if stop, err := s.stepEnds(int(q.bytes)); stop || err != nil {
				return err
			}
		}
	}
	return errWalkShort
}

// Replayed is how many runs replayed a walk w kept.
func (w *Walks) Replayed() int64 { return w.replayed.Load() }
