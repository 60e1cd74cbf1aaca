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
// spared, about 40% of an estimate's time on one core (a single estimate
// walks on a second core beside the replay, and gains nothing).
// TestRecordedWalksAreRuns holds the bundled examples, parallel layouts and
// two hold-out sets at other batch sizes, lengths and image sizes, under
// six option sets sharing one Walks, to the results of walking their
// graphs; TestWalksShared does so on four goroutines sharing one.

// Walks keeps, for the runs of a command, the kinds of run it has seen —
// training options, profile and a graph of their structure — and for a
// kind run more than once the timeline recorded by its second run, which
// its later runs at other sizes replay (Options.Walks). What it keeps, the
// graphs included, stays under a number of bytes: the kinds used least
// recently make way. It is safe for concurrent use.
type Walks struct {
	mu    sync.Mutex
	max   int64       // bytes kept, at most (kind.bytes)
	held  int64       // bytes kept
	kinds []*walkKind // used least recently first
	// replayed and recorded count the runs that replayed a walk and those
	// that recorded one.
	replayed, recorded atomic.Int64
}

// walkKind is a kind of run a Walks has seen; it is not changed once kept
// (a longer walk replaces it).
type walkKind struct {
	key  string // the training options but the sizes (walkKey)
	p    *calibrate.Profile
	g    *spec.Graph // a graph of the kind's structure
	sent int         // requests its first run sent
	w    *walk       // its recorded walk; nil until its second run
	// refused: its walk cannot be kept (larger than the store, or a request
	// the compact form cannot hold), so its runs walk, unrecorded.
	refused bool
	bytes   int64
}

// walk is one recorded timeline: every request the run sent, in order.
type walk struct {
	reqs  []recorded
	steps int // steps walked
	// The strings the requests do not find in the graph, in request
	// order: names and suffixes, and the op running where it changes.
	names, suffixes, ops []string
}

// bytes is about what k holds: its requests and strings (the strings
// themselves are the graph's or constants).
func (k *walk) bytes() int64 {
	return int64(len(k.reqs))*int64(unsafe.Sizeof(recorded{})) +
		int64(len(k.names)+len(k.suffixes)+len(k.ops))*int64(unsafe.Sizeof(""))
}

// recorded is a request as a walk keeps it, a quarter of its size: a
// Llama-405B step's 125,000 requests take 4 MB. Its name is the graph
// tensor's it makes or is sized by, or the next of the walk's names; its op
// the one before's or the next of the walk's ops (op and suffix). Its
// block is the one the allocator hands out in turn, as when it was walked.
type recorded struct {
	bytes   int64 // as walked (an alloc's is read again unless no graph tensor's); a step's number
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
	expected     int // requests the run is expected to send
	op, opSuffix string
	bad          bool // a request the compact form cannot hold
}

// newRecorder records a run of g expected to send n requests: its list
// starts short — a run stopped at a limit while the model loads sends few
// — and grows to n at once when it fills.
func newRecorder(g *spec.Graph, n int) *recorder {
	return &recorder{g: g, expected: n, w: walk{reqs: make([]recorded, 0, min(n, 4096))}}
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
	if t := q.sizeTensor(); t != spec.NoTensor {
		own = rc.g.Tensors[t].Name
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
	if len(rc.w.reqs) == cap(rc.w.reqs) {
		rc.w.reqs = slices.Grow(rc.w.reqs, max(rc.expected, 2*len(rc.w.reqs))-len(rc.w.reqs))
	}
	rc.w.reqs = append(rc.w.reqs, r)
}

// walk returns the recorded walk of steps steps, its lists trimmed to
// their length.
func (rc *recorder) walk(steps int) *walk {
	return &walk{steps: steps, reqs: slices.Clone(rc.w.reqs), names: slices.Clone(rc.w.names),
		suffixes: slices.Clone(rc.w.suffixes), ops: slices.Clone(rc.w.ops)}
}

// NewWalks returns an empty store that keeps up to maxBytes (a
// Llama-405B step's walk and graph are about 10 MB); a kind larger than
// that is not kept.
func NewWalks(maxBytes int64) *Walks { return &Walks{max: maxBytes} }

// Replayed is how many runs replayed a walk.
func (w *Walks) Replayed() int64 { return w.replayed.Load() }

// Recorded is how many runs recorded a walk.
func (w *Walks) Recorded() int64 { return w.recorded.Load() }

// walkKey is what, besides the graph's structure and the profile, decides a
// timeline: the training options less the sizes a structure varies in.
func walkKey(m *spec.Model) string {
	t := m.Training
	t.BatchSize, t.SeqLen, t.ImageSize = 0, 0, 0
	t.ConvWorkspaces, t.Pos = nil, nil // sizes, held in the graph's tensors
	return fmt.Sprintf("%+v", t)
}

// find returns the kind of a run of g on p with options key, or nil when
// none is kept; the graphs are compared outside the lock.
func (w *Walks) find(key string, g *spec.Graph, p *calibrate.Profile) *walkKind {
	w.mu.Lock()
	kinds := slices.Clone(w.kinds)
	w.mu.Unlock()
	for i := len(kinds) - 1; i >= 0; i-- {
		if k := kinds[i]; k.key == key && k.p == p && spec.SameStructure(k.g, g) {
			w.mu.Lock()
			if j := slices.Index(w.kinds, k); j >= 0 { // used last
				w.kinds = append(slices.Delete(w.kinds, j, j+1), k)
			}
			w.mu.Unlock()
			return k
		}
	}
	return nil
}

// put keeps k in place of old, or when old is nil as a kind not kept yet
// (unless another worker has kept it meanwhile). A walk too large for the
// store is refused: k is kept without it, so that later runs do not record
// it again; a graph too large is not kept at all.
func (w *Walks) put(old, k *walkKind) {
	gb := k.g.SizeBytes()
	k.bytes = gb
	if k.w != nil {
		k.bytes += k.w.bytes()
	}
	if k.bytes > w.max && k.w != nil {
		k.w, k.refused, k.bytes = nil, true, gb
	}
	if k.bytes > w.max {
		w.forget(old)
		return
	}
	if old == nil && w.find(k.key, k.g, k.p) != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if j := slices.Index(w.kinds, old); old != nil && j >= 0 {
		w.held -= old.bytes
		w.kinds = slices.Delete(w.kinds, j, j+1)
	}
	for len(w.kinds) > 0 && w.held+k.bytes > w.max {
		w.held -= w.kinds[0].bytes
		w.kinds = slices.Delete(w.kinds, 0, 1)
	}
	w.kinds = append(w.kinds, k)
	w.held += k.bytes
}

// forget drops kind k when it is kept.
func (w *Walks) forget(k *walkKind) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if j := slices.Index(w.kinds, k); k != nil && j >= 0 {
		w.held -= k.bytes
		w.kinds = slices.Delete(w.kinds, j, j+1)
	}
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
			if t := q.sizeTensor(); t != spec.NoTensor {
				q.bytes = sizes[t]
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
