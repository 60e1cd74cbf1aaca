package allocator

import "testing"

func TestFingerprint(t *testing.T) {
	steps := func(a *Allocator) {
		x, _ := a.Malloc(4<<20, 0)
		y, _ := a.Malloc(30<<20, 0)
		a.Free(x)
		z, _ := a.Malloc(1000, 0)
		a.Free(y)
		a.Free(z)
	}
	a, b := New(Config{}), New(Config{})
	steps(a)
	steps(b)
	if a.Fingerprint() != b.Fingerprint() {
		t.Fatal("the same steps must give the same fingerprint")
	}
	before := a.Fingerprint()
	steps(a) // a second identical step over a settled cache changes nothing
	if a.Fingerprint() != before {
		t.Error("a repeated step over the cached segments changed the state")
	}
	id, _ := a.Malloc(64<<20, 0)
	if a.Fingerprint() == before {
		t.Error("a new segment must change the fingerprint")
	}
	a.Free(id)
	if a.Fingerprint() == before {
		t.Error("a cached 64 MiB segment must still show")
	}
}
