package allocator

// treap is an ordered set of blocks, balanced by random priorities. The
// nodes are the blocks themselves (their left, right, parent, prio and key
// fields), so inserting and removing allocates nothing, and removing a
// known block needs no key comparisons. A block sits in at most one treap
// at a time, and its size and address must not change while it is in one.
//
// Two orders are used, as in PyTorch's BlockPool: free blocks by (stream,
// size, address) for best fit, unmapped expandable ranges by (stream,
// address). Both compare (stream, key, addr), with key the size or 0.
type treap struct {
	root   *block
	byAddr bool   // order by (stream, addr): key is 0
	tag    uint8  // stored in block.in while the block is a member
	seed   uint64 // xorshift state for priorities
	n      int
}

func newTreap(byAddr bool, tag uint8, seed uint64) treap {
	return treap{byAddr: byAddr, tag: tag, seed: seed | 1}
}

func (t *treap) nextPrio() uint32 {
	x := t.seed
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	t.seed = x
	return uint32(x >> 32)
}

// before reports whether block a is ordered before the key (stream, key, addr).
func before(a *block, stream Stream, key, addr int64) bool {
	if a.stream != stream {
		return a.stream < stream
	}
	if a.key != key {
		return a.key < key
	}
	return a.addr < addr
}

// less orders two members (or a member and a block about to be inserted).
func less(a, b *block) bool { return before(a, b.stream, b.key, b.addr) }

func (t *treap) insert(b *block) {
	if b.in != 0 {
		panic("allocator: block inserted twice")
	}
	b.left, b.right, b.parent = nil, nil, nil
	b.prio = t.nextPrio()
	b.in = t.tag
	b.key = b.size
	if t.byAddr {
		b.key = 0
	}
	t.n++
	n := t.root
	if n == nil {
		t.root = b
		return
	}
	for {
		if less(b, n) {
			if n.left == nil {
				n.left = b
				break
			}
			n = n.left
		} else {
			if n.right == nil {
				n.right = b
				break
			}
			n = n.right
		}
	}
	b.parent = n
	for b.parent != nil && b.prio > b.parent.prio {
		t.rotateUp(b)
	}
}

// rotateUp moves x above its parent, keeping the order.
func (t *treap) rotateUp(x *block) {
	p := x.parent
	g := p.parent
	if p.left == x {
		p.left = x.right
		if x.right != nil {
			x.right.parent = p
		}
		x.right = p
	} else {
		p.right = x.left
		if x.left != nil {
			x.left.parent = p
		}
		x.left = p
	}
	p.parent = x
	x.parent = g
	switch {
	case g == nil:
		t.root = x
	case g.left == p:
		g.left = x
	default:
		g.right = x
	}
}

func (t *treap) remove(b *block) {
	if b.in != t.tag {
		panic("allocator: removing a block that is not in this set")
	}
	for b.left != nil || b.right != nil {
		c := b.right
		if c == nil || (b.left != nil && b.left.prio > c.prio) {
			c = b.left
		}
		t.rotateUp(c)
	}
	switch p := b.parent; {
	case p == nil:
		t.root = nil
	case p.left == b:
		p.left = nil
	default:
		p.right = nil
	}
	b.parent, b.in = nil, 0
	t.n--
}

// keyOf is the tree key of a block of the given size in this set.
func (t *treap) keyOf(size int64) int64 {
	if t.byAddr {
		return 0
	}
	return size
}

// lowerBound returns the first member not ordered before (stream, size,
// addr), or nil; size is ignored in an address-ordered set.
func (t *treap) lowerBound(stream Stream, size, addr int64) *block {
	key := t.keyOf(size)
	var best *block
	for n := t.root; n != nil; {
		if !before(n, stream, key, addr) {
			best, n = n, n.left
		} else {
			n = n.right
		}
	}
	return best
}

// predecessor returns the last member ordered before (stream, size, addr),
// or nil.
func (t *treap) predecessor(stream Stream, size, addr int64) *block {
	key := t.keyOf(size)
	var best *block
	for n := t.root; n != nil; {
		if before(n, stream, key, addr) {
			best, n = n, n.right
		} else {
			n = n.left
		}
	}
	return best
}

// successor returns the member after b, or nil.
func (t *treap) successor(b *block) *block {
	if n := b.right; n != nil {
		for n.left != nil {
			n = n.left
		}
		return n
	}
	for b.parent != nil && b.parent.right == b {
		b = b.parent
	}
	return b.parent
}

// appendAll appends the members in order.
func (t *treap) appendAll(dst []*block) []*block {
	n := t.root
	if n == nil {
		return dst
	}
	for n.left != nil {
		n = n.left
	}
	for ; n != nil; n = t.successor(n) {
		dst = append(dst, n)
	}
	return dst
}
