package allocator

import (
	"math"
	"math/bits"
	"slices"
)

// The cached blocks of a pool are kept in ordered sets, one per stream, as
// PyTorch's BlockPool keeps them: free blocks by (size, address) for best
// fit, unmapped expandable ranges by address (their key is 0).
//
// A training step frees and reuses many blocks of few sizes (a Llama-405B
// step keeps hundreds of free blocks in about twenty sizes), so a set keeps
// its distinct keys in a sorted array, each with a bucket that lists the
// blocks of that key by address, highest first. Best fit is a search among
// the keys and the last entry of one bucket; taking it shortens the bucket.
// Past indexFrom keys, a hash index finds a key's bucket without a search,
// and a block in a set remembers its bucket, so removing it searches only
// that bucket. A bucket that empties keeps its key, so the sizes a step
// keeps reusing are not removed and added again: a new key takes the place
// of a neighbouring key whose bucket is empty, and the keys of empty
// buckets go only when those outnumber the others by more than two.
//
// Entries name blocks by index, so the sets hold no pointers but their
// slices' own: the garbage collector does not scan them, and moving entries
// needs no write barriers.

// entry is a member of a bucket: a block's address and index.
type entry struct {
	addr int64
	id   int32
}

// bucket lists the blocks of one key by address, highest first.
type bucket struct {
	key int64
	e   []entry
}

// search returns the index of the first entry whose address is below addr
// (the place to insert addr), or len(b.e).
func (b *bucket) search(addr int64) int {
	e := b.e
	if len(e) <= shortList {
		n := 0
		for i := range e {
			if e[i].addr >= addr {
				n++
			}
		}
		return n
	}
	base, n := 0, len(e)
	for n > 1 {
		half := n >> 1
		base += half &^ lessMask(e[base+half-1].addr, addr)
		n -= half
	}
	if n == 1 && e[base].addr >= addr {
		base++
	}
	return base
}

// shortList is the length up to which a search counts the entries before
// the key rather than halving the range: the comparisons then wait on none
// before them.
const shortList = 12

// lessMask returns -1 (all ones) when x < y and 0 otherwise, without a
// branch: binary searches over unpredictable data run faster on masks than
// on mispredicted jumps.
func lessMask(x, y int64) int {
	_, borrow := bits.Sub64(uint64(x)^(1<<63), uint64(y)^(1<<63), 0)
	return -int(borrow)
}

// setKey is a key of a blockSet and the index of its bucket.
type setKey struct {
	key int64
	b   int32
}

// cursor is a position in a blockSet: entry i of bucket b, whose key is
// keys[k]; k is -1 when not looked up yet, and len(keys) at the end.
type cursor struct {
	k int
	b int32
	i int
}

// blockSet is the ordered set of one stream's blocks in a pool.
type blockSet struct {
	stream  Stream
	keys    []setKey // ascending, each with a bucket (possibly empty)
	buckets []bucket // by index
	unused  []int32  // indices of buckets no key has
	empty   int      // keys whose bucket is empty
	n       int

	// index finds a key's bucket without a search once there are more
	// than indexFrom keys: open addressing, linear probing, b < 0 in
	// unused slots; rebuilt when keys are dropped, and gone when fewer than
	// indexUntil are left.
	index []setKey
	shift uint // 64 - log2(len(index))
}

const (
	indexFrom  = 16
	indexUntil = 8
)

func (s *blockSet) home(key int64) int { return int((uint64(key) * 0x9e3779b97f4a7c15) >> s.shift) }

// lookup returns the bucket index of key, or -1, from the index.
func (s *blockSet) lookup(key int64) int32 {
	mask := len(s.index) - 1
	for h := s.home(key); ; h = (h + 1) & mask {
		if x := s.index[h]; x.b < 0 || x.key == key {
			return x.b
		}
	}
}

func (s *blockSet) indexAdd(k setKey) {
	mask := len(s.index) - 1
	h := s.home(k.key)
	for s.index[h].b >= 0 {
		h = (h + 1) & mask
	}
	s.index[h] = k
}

// indexDel removes key (which must be there) from the index, moving back
// the entries probed past it.
func (s *blockSet) indexDel(key int64) {
	mask := len(s.index) - 1
	h := s.home(key)
	for s.index[h].key != key || s.index[h].b < 0 {
		h = (h + 1) & mask
	}
	for j := (h + 1) & mask; s.index[j].b >= 0; j = (j + 1) & mask {
		// the entry at j may move to the hole at h unless its home lies
		// cyclically in (h, j]
		if home := s.home(s.index[j].key); (j-home)&mask >= (j-h)&mask {
			s.index[h] = s.index[j]
			h = j
		}
	}
	s.index[h] = setKey{b: -1}
}

// reindex rebuilds the index for the keys, at most half full; it never
// shrinks.
func (s *blockSet) reindex() {
	size, shift := 16, uint(60)
	for size < 2*len(s.keys) || size < len(s.index) {
		size, shift = size*2, shift-1
	}
	if len(s.index) != size {
		s.index = make([]setKey, size)
	}
	s.shift = shift
	for i := range s.index {
		s.index[i] = setKey{b: -1}
	}
	for _, k := range s.keys {
		s.indexAdd(k)
	}
}

// searchKeys returns the index of the first key at least key, or len(keys).
func (s *blockSet) searchKeys(key int64) int {
	keys := s.keys
	if len(keys) <= shortList {
		n := 0
		for i := range keys {
			if keys[i].key < key {
				n++
			}
		}
		return n
	}
	base, n := 0, len(keys)
	for n > 1 {
		half := n >> 1
		base += half & lessMask(keys[base+half-1].key, key)
		n -= half
	}
	if n == 1 && keys[base].key < key {
		base++
	}
	return base
}

// firstFrom returns the cursor of the lowest-addressed entry of the first
// non-empty bucket at k or after.
func (s *blockSet) firstFrom(k int) cursor {
	for ; k < len(s.keys); k++ {
		b := s.keys[k].b
		if n := len(s.buckets[b].e); n > 0 {
			return cursor{k, b, n - 1}
		}
	}
	return cursor{len(s.keys), -1, 0}
}

// bucketOf returns the bucket index of key, or -1, and the place of the
// key in keys (or where it would go) when it was searched for, -1 when the
// index answered.
func (s *blockSet) bucketOf(key int64) (bi int32, k int) {
	if s.index != nil {
		return s.lookup(key), -1
	}
	k = s.searchKeys(key)
	if k < len(s.keys) && s.keys[k].key == key {
		return s.keys[k].b, k
	}
	return -1, k
}

// lowerBound returns the cursor of the first member not before (key, addr).
func (s *blockSet) lowerBound(key, addr int64) cursor {
	bi, k := s.bucketOf(key)
	if bi >= 0 {
		// the lowest address at least addr is just before the first below it
		b := &s.buckets[bi]
		i := len(b.e)
		if addr != math.MinInt64 {
			i = b.search(addr)
		}
		if i > 0 {
			return cursor{k, bi, i - 1}
		}
		if k < 0 {
			k = s.searchKeys(key)
		}
		return s.firstFrom(k + 1)
	}
	if k < 0 {
		k = s.searchKeys(key)
	}
	return s.firstFrom(k)
}

func (s *blockSet) valid(c cursor) bool { return c.b >= 0 }

// id returns the block index at c.
func (s *blockSet) id(c cursor) int32 { return s.buckets[c.b].e[c.i].id }

// keyIndex returns c.k, looked up if need be.
func (s *blockSet) keyIndex(c cursor) int {
	if c.k >= 0 {
		return c.k
	}
	return s.searchKeys(s.buckets[c.b].key)
}

// next returns the cursor after c (c must be valid).
func (s *blockSet) next(c cursor) cursor {
	if c.i > 0 {
		c.i--
		return c
	}
	return s.firstFrom(s.keyIndex(c) + 1)
}

// prev returns the cursor before c (which may be the end), and false when
// c is the first.
func (s *blockSet) prev(c cursor) (cursor, bool) {
	if c.b >= 0 && c.i+1 < len(s.buckets[c.b].e) {
		c.i++
		return c, true
	}
	k := len(s.keys)
	if c.b >= 0 {
		k = s.keyIndex(c)
	}
	for k--; k >= 0; k-- {
		if b := s.keys[k].b; len(s.buckets[b].e) > 0 {
			return cursor{k, b, 0}, true
		}
	}
	return c, false
}

// find returns the cursor of the member (key, addr).
func (s *blockSet) find(key, addr int64) cursor {
	if bi, k := s.bucketOf(key); bi >= 0 {
		b := &s.buckets[bi]
		if i := b.search(addr); i > 0 && b.e[i-1].addr == addr {
			return cursor{k, bi, i - 1}
		}
	}
	panic("allocator: removing a block that is not in its set")
}

// insert adds a member, which must not be one already, and returns the
// index of its bucket.
func (s *blockSet) insert(key, addr int64, id int32) int32 {
	s.n++
	bi, k := s.bucketOf(key)
	if bi < 0 {
		if k < 0 {
			k = s.searchKeys(key)
		}
		bi = s.addKey(key, k)
	}
	b := &s.buckets[bi]
	if len(b.e) == 0 {
		s.empty--
	}
	i := len(b.e)
	if i > 0 && b.e[i-1].addr < addr { // not the lowest: find its place
		i = b.search(addr)
	}
	b.e = append(b.e, entry{})
	copy(b.e[i+1:], b.e[i:])
	b.e[i] = entry{addr, id}
	return bi
}

// addKey adds a key, which would go at k in keys, with an empty bucket and
// returns the bucket's index. A neighbouring key whose bucket is empty
// gives up its place.
func (s *blockSet) addKey(key int64, k int) int32 {
	for _, j := range [2]int{k - 1, k} {
		if j >= 0 && j < len(s.keys) {
			if old := s.keys[j]; len(s.buckets[old.b].e) == 0 {
				s.keys[j].key = key
				s.buckets[old.b].key = key
				if s.index != nil {
					s.indexDel(old.key)
					s.indexAdd(s.keys[j])
				}
				return old.b
			}
		}
	}
	if s.empty > len(s.keys)-s.empty+2 { // see the top of the file
		s.dropEmpty()
		k = s.searchKeys(key)
	}
	var bi int32
	if n := len(s.unused); n > 0 {
		bi = s.unused[n-1]
		s.unused = s.unused[:n-1]
	} else {
		bi = int32(len(s.buckets))
		s.buckets = append(s.buckets, bucket{})
	}
	s.buckets[bi].key = key
	s.keys = append(s.keys, setKey{})
	copy(s.keys[k+1:], s.keys[k:])
	s.keys[k] = setKey{key, bi}
	s.empty++
	switch {
	case s.index == nil && len(s.keys) <= indexFrom:
	case 2*len(s.keys) > len(s.index):
		s.reindex()
	default:
		s.indexAdd(setKey{key, bi})
	}
	return bi
}

// removeAt removes the member at c.
func (s *blockSet) removeAt(c cursor) {
	s.n--
	b := &s.buckets[c.b]
	if c.i == len(b.e)-1 {
		b.e = b.e[:c.i]
	} else {
		b.e = append(b.e[:c.i], b.e[c.i+1:]...)
	}
	if len(b.e) == 0 {
		s.empty++
	}
}

// dropEmpty removes the keys whose buckets are empty.
func (s *blockSet) dropEmpty() {
	j := 0
	for _, k := range s.keys {
		if len(s.buckets[k.b].e) > 0 {
			s.keys[j] = k
			j++
		} else {
			s.unused = append(s.unused, k.b)
		}
	}
	s.keys = s.keys[:j]
	s.empty = 0
	if len(s.keys) < indexUntil {
		s.index = nil
	} else if s.index != nil {
		s.reindex()
	}
}

// poolSet is one of a pool's two orders: a blockSet per stream.
type poolSet struct {
	last   *blockSet   // the set found last
	sets   []*blockSet // by stream, ascending
	a      *Allocator  // whose blocks the indices name
	n      int         // members in all streams
	byAddr bool        // order by address alone (the key is 0)
	tag    uint8       // stored in block.in while the block is a member
}

// set returns the stream's set, or nil when the stream has none.
func (ps *poolSet) set(stream Stream) *blockSet {
	if s := ps.last; s != nil && s.stream == stream {
		return s
	}
	for _, s := range ps.sets {
		if s.stream == stream {
			ps.last = s
			return s
		}
	}
	return nil
}

func (ps *poolSet) key(b *block) int64 {
	if ps.byAddr {
		return 0
	}
	return b.size
}

func (ps *poolSet) insert(b *block) {
	if b.in != 0 {
		panic("allocator: block inserted twice")
	}
	s := ps.set(b.stream)
	if s == nil {
		s = &blockSet{stream: b.stream}
		i := 0
		for i < len(ps.sets) && ps.sets[i].stream < b.stream {
			i++
		}
		ps.sets = slices.Insert(ps.sets, i, s)
	}
	b.bucket = s.insert(ps.key(b), b.addr, b.self)
	b.in = ps.tag
	ps.n++
}

// removeAt removes b, found at c in s.
func (ps *poolSet) removeAt(s *blockSet, c cursor, b *block) {
	s.removeAt(c)
	b.in = 0
	ps.n--
}

func (ps *poolSet) remove(b *block) {
	if b.in != ps.tag {
		panic("allocator: removing a block that is not in this set")
	}
	s := ps.set(b.stream)
	bk := &s.buckets[b.bucket]
	i := bk.search(b.addr) - 1
	if i < 0 || bk.e[i].id != b.self || bk.key != ps.key(b) {
		panic("allocator: removing a block that is not in its set")
	}
	ps.removeAt(s, cursor{-1, b.bucket, i}, b)
}

// appendAll appends the members in order: by stream, then by key and
// address.
func (ps *poolSet) appendAll(dst []*block) []*block {
	for _, s := range ps.sets {
		for _, k := range s.keys {
			e := s.buckets[k.b].e
			for i := len(e) - 1; i >= 0; i-- {
				dst = append(dst, ps.a.blk(e[i].id))
			}
		}
	}
	return dst
}

// appendIDs appends the members' block indices in order.
func (ps *poolSet) appendIDs(dst []int32) []int32 {
	for _, s := range ps.sets {
		for _, k := range s.keys {
			e := s.buckets[k.b].e
			for i := len(e) - 1; i >= 0; i-- {
				dst = append(dst, e[i].id)
			}
		}
	}
	return dst
}
