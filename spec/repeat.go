package spec

import (
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// Repeat builds n copies of a layer, the way a model's forward runs a stack
// of blocks: fn(i, x) builds copy i from the carried tensor x (the hidden
// states) and returns the next x, which Repeat returns after the last copy.
// alike(i, j) reports whether copies i and j are built the same way (a
// per-layer setting such as a sliding window can make them differ), and
// prefix(i) is the name copy i's tensors and ops start with
// ("model.layers.7").
//
// Building a copy is shape inference and name joins for its hundred-odd
// tensors, and a 126-layer model spends most of its expansion there. So in
// a run of alike copies the first four are built by fn and recorded; when
// the fourth differs from the third exactly as the third from the second —
// every tensor and op the same but for its name's prefix, and every tensor
// id, op index and block number moved on by the same amount — the rest are
// written from the fourth, each moved on once more. That is the graph fn
// would build (the family tests compare the two for every bundled model).
// When the check fails, or the builder holds an error, fn builds every copy.
func (b *Builder) Repeat(n int, x TensorID, alike func(i, j int) bool, prefix func(i int) string, fn func(i int, x TensorID) TensorID) TensorID {
	for i := 0; i < n; {
		j := i + 1
		for j < n && alike(i, j) {
			j++
		}
		x = b.repeatRun(i, j, x, prefix, fn)
		i = j
	}
	return x
}

// built is how many copies of a run are built by fn before the rest can be
// written: the first may differ (it makes what later copies share, such as
// an autocast cast of a shared weight); the next three show the step.
const built = 4

// repeatRun builds copies [from, to) of one run of alike copies.
func (b *Builder) repeatRun(from, to int, x TensorID, prefix func(int) string, fn func(int, TensorID) TensorID) TensorID {
	if b.literal || to-from <= built {
		for i := from; i < to; i++ {
			x = fn(i, x)
		}
		return x
	}
	var prints [built]*copyPrint
	for k := range built {
		i := from + k
		rec := &copyPrint{t0: len(b.g.Tensors), o0: len(b.g.Ops), params: len(b.g.Params), resident: len(b.g.Resident), inputs: len(b.g.Inputs), prefix: prefix(i), before: prefix(i - 1)}
		b.rec = rec
		x = fn(i, x)
		b.rec = nil
		rec.finish(b, x)
		prints[k] = rec
	}
	p1, p2, p3 := prints[built-3], prints[built-2], prints[built-1]
	if b.err != nil || !p3.stepsLike(p2, p1) {
		for i := from + built; i < to; i++ {
			x = fn(i, x)
		}
		return x
	}
	w := p3.writer(p2)
	x = b.writeCopies(w, from+built, to, prefix)
	b.written += to - from - built
	b.layer = b.write(w.layer, prefix(to-1), prefix(to-2))
	return x
}

// copyPrint records what building one copy did to the graph and the builder.
type copyPrint struct {
	prefix, before           string // names of this copy and the one before start so
	t0, o0                   int    // first tensor and op of the copy
	params, resident, inputs int    // lengths of those lists before the copy
	tensors                  []Tensor
	ops                      []Op
	newParams, newResident   []TensorID
	newInputs                []TensorID
	blocks                   int // g.Blocks after the copy
	block                    int // the builder's block after the copy
	layer                    string
	// held lists HoldUntilLastOp's writes to tensors made before the copy;
	// memo the autocast casts it cached.
	held []idPair
	memo []idPair
	// reset is set when the copy cleared the autocast cache: such copies
	// are all built.
	reset bool
	x     TensorID
}

// idPair is a (tensor, value) write the copy made.
type idPair struct{ id, v int64 }

// noteHeld records a HeldUntil write to a tensor made before the copy.
func (c *copyPrint) noteHeld(id TensorID, last int) {
	if int(id) < c.t0 {
		c.held = append(c.held, idPair{int64(id), int64(last)})
	}
}

// WrittenCopies is how many copies Repeat wrote rather than built.
func (b *Builder) WrittenCopies() int { return b.written }

// BuildEveryCopy makes Repeat build every copy with its fn (tests compare
// that graph with the written one).
func (b *Builder) BuildEveryCopy() { b.literal = true }

func (c *copyPrint) finish(b *Builder, x TensorID) {
	g := b.g
	// Snapshots: later copies may write HeldUntil of this copy's tensors,
	// and those writes are recorded with the later copy.
	c.tensors = slices.Clone(g.Tensors[c.t0:])
	c.ops = slices.Clone(g.Ops[c.o0:])
	c.newParams = g.Params[c.params:len(g.Params):len(g.Params)]
	c.newResident = g.Resident[c.resident:len(g.Resident):len(g.Resident)]
	c.newInputs = g.Inputs[c.inputs:len(g.Inputs):len(g.Inputs)]
	c.blocks, c.block, c.layer, c.x = g.Blocks, b.block, b.layer, x
}

// A name made in a copy can name the copy ("model.layers.7.mlp") or the
// one before it ("grad(model.layers.6.add_mlp.out)"); its template is the
// name cut at those prefixes, each cut remembering which copy it named.

// namePart is a literal piece of a name and, after it, the prefix of the
// copy ref copies back (0: this copy, 1: the one before; -1: none).
type namePart struct {
	lit string
	ref int
}

// template cuts name at the prefixes of copy c and of the copy before it.
func (c *copyPrint) template(name string) []namePart {
	var parts []namePart
	for rest := name; ; {
		at, ref, n := -1, -1, 0
		for r, p := range [2]string{c.prefix, c.before} {
			if i := prefixAt(rest, p); i >= 0 && (at < 0 || i < at) {
				at, ref, n = i, r, len(p)
			}
		}
		if at < 0 {
			return append(parts, namePart{rest, -1})
		}
		parts = append(parts, namePart{rest[:at], ref})
		rest = rest[at+n:]
	}
}

// prefixAt returns where p first occurs in s as a whole path prefix (not
// followed by a digit, so "layers.1" is not found in "layers.12"), or -1.
func prefixAt(s, p string) int {
	for off := 0; ; {
		i := strings.Index(s[off:], p)
		if i < 0 || p == "" {
			return -1
		}
		end := off + i + len(p)
		if end == len(s) || s[end] < '0' || s[end] > '9' {
			return off + i
		}
		off += i + 1
	}
}

// sameName reports whether names a (of copy c) and b (of copy d) are the
// same but for the copies they name.
func sameName(c *copyPrint, a string, d *copyPrint, b string) bool {
	if a == b && !strings.Contains(a, c.prefix) && !strings.Contains(a, c.before) {
		return true
	}
	return slices.Equal(c.template(a), d.template(b))
}

// write builds a name from its template for the copy with the given
// prefixes (that copy's and the one before it).
func (b *Builder) write(t []namePart, prefix, before string) string {
	return writeName(&b.names, t, prefix, before)
}

// writeName is write carving from the given slab.
func writeName(slab *[]byte, t []namePart, prefix, before string) string {
	if len(t) == 1 && t[0].ref < 0 {
		return t[0].lit
	}
	n := 0
	for _, p := range t {
		n += len(p.lit)
		switch p.ref {
		case 0:
			n += len(prefix)
		case 1:
			n += len(before)
		}
	}
	buf := carve(slab, n)
	for _, p := range t {
		buf = append(buf, p.lit...)
		switch p.ref {
		case 0:
			buf = append(buf, prefix...)
		case 1:
			buf = append(buf, before...)
		}
	}
	return unsafe.String(unsafe.SliceData(buf), n)
}

// steps reports whether a3 - a2 == a2 - a1.
func steps(a3, a2, a1 int64) bool { return a3-a2 == a2-a1 }

func stepsIDs(l3, l2, l1 []TensorID) bool {
	if len(l3) != len(l2) || len(l2) != len(l1) {
		return false
	}
	for i := range l3 {
		if !steps(int64(l3[i]), int64(l2[i]), int64(l1[i])) {
			return false
		}
	}
	return true
}

func stepsPairs(l3, l2, l1 []idPair) bool {
	if len(l3) != len(l2) || len(l2) != len(l1) {
		return false
	}
	for i := range l3 {
		if !steps(l3[i].id, l2[i].id, l1[i].id) || !steps(l3[i].v, l2[i].v, l1[i].v) {
			return false
		}
	}
	return true
}

// stepsLike reports whether copy c (the third of three) differs from d
// exactly as d from e: equal in everything but names' prefixes, ids, op
// indices and block numbers, and those moved on by the same amounts.
func (c *copyPrint) stepsLike(d, e *copyPrint) bool {
	if c.reset || d.reset || e.reset ||
		len(c.tensors) != len(d.tensors) || len(d.tensors) != len(e.tensors) ||
		len(c.ops) != len(d.ops) || len(d.ops) != len(e.ops) ||
		!steps(int64(c.t0), int64(d.t0), int64(e.t0)) || !steps(int64(c.o0), int64(d.o0), int64(e.o0)) ||
		!steps(int64(c.blocks), int64(d.blocks), int64(e.blocks)) || !steps(int64(c.block), int64(d.block), int64(e.block)) ||
		!steps(int64(c.x), int64(d.x), int64(e.x)) ||
		!stepsIDs(c.newParams, d.newParams, e.newParams) || !stepsIDs(c.newResident, d.newResident, e.newResident) ||
		!stepsIDs(c.newInputs, d.newInputs, e.newInputs) ||
		!stepsPairs(c.held, d.held, e.held) || !stepsPairs(c.memo, d.memo, e.memo) ||
		!sameName(c, c.layer, d, d.layer) || !sameName(d, d.layer, e, e.layer) {
		return false
	}
	for i := range c.tensors {
		t3, t2, t1 := &c.tensors[i], &d.tensors[i], &e.tensors[i]
		if !sameTensor(t3, t2) || !sameTensor(t2, t1) ||
			!sameName(c, t3.Name, d, t2.Name) || !sameName(d, t2.Name, e, t1.Name) ||
			!steps(int64(t3.Op), int64(t2.Op), int64(t1.Op)) ||
			!steps(int64(t3.Alias), int64(t2.Alias), int64(t1.Alias)) ||
			!steps(int64(t3.HeldUntil), int64(t2.HeldUntil), int64(t1.HeldUntil)) {
			return false
		}
	}
	for i := range c.ops {
		o3, o2, o1 := &c.ops[i], &d.ops[i], &e.ops[i]
		if !sameOp(o3, o2) || !sameOp(o2, o1) ||
			!sameName(c, o3.Name, d, o2.Name) || !sameName(d, o2.Name, e, o1.Name) ||
			!sameName(c, o3.Layer, d, o2.Layer) || !sameName(d, o2.Layer, e, o1.Layer) ||
			!steps(int64(o3.Block), int64(o2.Block), int64(o1.Block)) {
			return false
		}
		for k, l := range opLists(o3) {
			if !stepsIDs(l, opLists(o2)[k], opLists(o1)[k]) {
				return false
			}
		}
	}
	return true
}

// sameTensor compares the fields of two tensors that a copy keeps as they
// are (names, ids and op indices are compared by stepsLike).
func sameTensor(a, b *Tensor) bool {
	return slices.Equal(a.Shape, b.Shape) && a.DType == b.DType && a.Bytes == b.Bytes && a.Role == b.Role &&
		a.RequiresGrad == b.RequiresGrad && a.Cached == b.Cached && (a.Shape == nil) == (b.Shape == nil)
}

// sameOp compares the fields of two ops that a copy keeps as they are.
func sameOp(a, b *Op) bool {
	return a.Kind == b.Kind && a.Matmul == b.Matmul && a.NoGrad == b.NoGrad && a.Flow == b.Flow && a.WeightGradFirst == b.WeightGradFirst
}

// opLists returns an op's tensor id lists, in a fixed order.
func opLists(o *Op) [8][]TensorID {
	return [8][]TensorID{o.Inputs, o.Params, o.Outputs, o.Extra, o.Saved, o.Temps, o.BackwardTemps, o.GradInputs}
}

// copyWriter writes copies from the last built one (c), its predecessor
// (d) and the templates of c's names.
type copyWriter struct {
	c, d                         *copyPrint
	tensorNames, opNames, layers [][]namePart
	layer                        []namePart
}

func (c *copyPrint) writer(d *copyPrint) *copyWriter {
	w := &copyWriter{c: c, d: d, layer: c.template(c.layer)}
	for i := range c.tensors {
		w.tensorNames = append(w.tensorNames, c.template(c.tensors[i].Name))
	}
	for i := range c.ops {
		w.opNames = append(w.opNames, c.template(c.ops[i].Name))
		w.layers = append(w.layers, c.template(c.ops[i].Layer))
	}
	return w
}

// writeCopies writes copies [first, to) of a run from w, each moved on
// from w.c once more than the one before. Every copy has its own place in
// the graph's lists (its tensors, ops, parameters and the rest follow the
// ones before, equally many each), so a long run is written in two halves
// at once, each with its own slabs; what one copy writes into the tensors
// of earlier ones (HoldUntilLastOp) and the autocast cache follow, copy by
// copy, once both halves are done. It returns the last copy's carried x.
func (b *Builder) writeCopies(w *copyWriter, first, to int, prefix func(int) string) TensorID {
	g, c, d := b.g, w.c, w.d
	n := to - first
	at := copyPlaces{tensors: len(g.Tensors), ops: len(g.Ops), params: len(g.Params), resident: len(g.Resident), inputs: len(g.Inputs)}
	// Room for the copies and for what a model builds after its stack (a
	// final norm, a head, the loss: less than two copies), so the lists are
	// allocated once at their size.
	g.Tensors = slices.Grow(g.Tensors, (n+2)*len(c.tensors)+tailRoom)[:at.tensors+n*len(c.tensors)]
	g.Ops = slices.Grow(g.Ops, (n+2)*len(c.ops)+tailRoom)[:at.ops+n*len(c.ops)]
	g.Params = slices.Grow(g.Params, n*len(c.newParams))[:at.params+n*len(c.newParams)]
	g.Resident = slices.Grow(g.Resident, n*len(c.newResident))[:at.resident+n*len(c.newResident)]
	g.Inputs = slices.Grow(g.Inputs, n*len(c.newInputs))[:at.inputs+n*len(c.newInputs)]
	prefixes := make([]string, n+1) // prefixes[k] is copy first+k-1's
	for k := range prefixes {
		prefixes[k] = prefix(first + k - 1)
	}
	write := func(lo, hi int, s *copySlabs) {
		for k := lo; k < hi; k++ {
			b.writeCopy(w, s, at, k, prefixes[k+1], prefixes[k])
		}
	}
	if half := n / 2; n >= parallelCopies && runtime.GOMAXPROCS(0) > 1 {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			write(half, n, &copySlabs{}) // slabs of its own; the strings keep them
		}()
		s := &copySlabs{ids: b.ids, names: b.names}
		write(0, half, s)
		wg.Wait()
		b.ids, b.names = s.ids, s.names
	} else {
		s := &copySlabs{ids: b.ids, names: b.names}
		write(0, n, s)
		b.ids, b.names = s.ids, s.names
	}
	for k := range n {
		step := int64(k + 1)
		on := func(v3, v2 int64) int64 { return v3 + step*(v3-v2) }
		for i, h := range c.held {
			id, last := on(h.id, d.held[i].id), int(on(h.v, d.held[i].v))
			g.Tensors[id].HeldUntil = max(g.Tensors[id].HeldUntil, last)
		}
		for i, m := range c.memo {
			b.castMemo[TensorID(on(m.id, d.memo[i].id))] = TensorID(on(m.v, d.memo[i].v))
		}
	}
	step := int64(n)
	on := func(v3, v2 int) int { return v3 + int(step)*(v3-v2) }
	g.Blocks, b.block = on(c.blocks, d.blocks), on(c.block, d.block)
	return TensorID(on(int(c.x), int(d.x)))
}

// tailRoom is room for tensors and ops past a written run, beyond two copies'.
const tailRoom = 64

// parallelCopies is the shortest run written in two halves at once.
const parallelCopies = 16

// copyPlaces is where the first written copy's entries go in the graph's lists.
type copyPlaces struct{ tensors, ops, params, resident, inputs int }

// copySlabs are the slabs a writer carves names and id lists from.
type copySlabs struct {
	ids   []TensorID
	names []byte
}

// writeCopy writes copy k of a run (the one k+1 copies after w.c) into its
// places, with names under prefix (and before, the prefix of the copy
// before it).
func (b *Builder) writeCopy(w *copyWriter, s *copySlabs, at copyPlaces, k int, prefix, before string) {
	g, c, d := b.g, w.c, w.d
	step := int64(k + 1)
	on := func(v3, v2 int64) int64 { return v3 + step*(v3-v2) }
	onID := func(v3, v2 TensorID) TensorID { return TensorID(on(int64(v3), int64(v2))) }
	onInt := func(v3, v2 int) int { return int(on(int64(v3), int64(v2))) }
	onIDs := func(l3, l2 []TensorID) []TensorID {
		out := carve(&s.ids, len(l3))
		for i := range l3 {
			out = append(out, onID(l3[i], l2[i]))
		}
		return out
	}
	t0 := at.tensors + k*len(c.tensors)
	for i := range c.tensors {
		t3, t2 := &c.tensors[i], &d.tensors[i]
		t := *t3
		t.ID = TensorID(t0 + i)
		t.Name = writeName(&s.names, w.tensorNames[i], prefix, before)
		t.Op = onInt(t3.Op, t2.Op)
		t.Alias = onID(t3.Alias, t2.Alias)
		t.HeldUntil = onInt(t3.HeldUntil, t2.HeldUntil)
		g.Tensors[t0+i] = t
	}
	o0 := at.ops + k*len(c.ops)
	for i := range c.ops {
		o3, o2 := &c.ops[i], &d.ops[i]
		o := *o3
		o.Name, o.Layer = writeName(&s.names, w.opNames[i], prefix, before), writeName(&s.names, w.layers[i], prefix, before)
		o.Block = onInt(o3.Block, o2.Block)
		o.Inputs, o.Params, o.Outputs = onIDs(o3.Inputs, o2.Inputs), onIDs(o3.Params, o2.Params), onIDs(o3.Outputs, o2.Outputs)
		o.Extra, o.Saved, o.Temps = onIDs(o3.Extra, o2.Extra), onIDs(o3.Saved, o2.Saved), onIDs(o3.Temps, o2.Temps)
		o.BackwardTemps, o.GradInputs = onIDs(o3.BackwardTemps, o2.BackwardTemps), onIDs(o3.GradInputs, o2.GradInputs)
		if o3.GradProducts != nil {
			o.GradProducts = onIDs(o3.GradProducts, o2.GradProducts)
		}
		g.Ops[o0+i] = o
	}
	for i := range c.newParams {
		g.Params[at.params+k*len(c.newParams)+i] = onID(c.newParams[i], d.newParams[i])
	}
	for i := range c.newResident {
		g.Resident[at.resident+k*len(c.newResident)+i] = onID(c.newResident[i], d.newResident[i])
	}
	for i := range c.newInputs {
		g.Inputs[at.inputs+k*len(c.newInputs)+i] = onID(c.newInputs[i], d.newInputs[i])
	}
}
