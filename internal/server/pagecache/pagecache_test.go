package pagecache

import (
	"bytes"
	"testing"
)

// TestPageCacheBounded: the cache holds at most its pages and bytes,
// dropping the least recently used; a body larger than the cache is not
// kept.
func TestPageCacheBounded(t *testing.T) {
	c := New(3, 1000)
	body := func(n int) []byte { return bytes.Repeat([]byte{'x'}, n) }
	c.Put("a", 0, body(400), "")
	c.Put("b", 0, body(400), "")
	c.Get("a", 0, 0) // a used last: b goes first
	c.Put("c", 0, body(400), "")
	if _, _, ok := c.Get("b", 0, 0); ok {
		t.Error("b kept past the byte bound, though least recently used")
	}
	for _, k := range []string{"a", "c"} {
		if _, _, ok := c.Get(k, 0, 0); !ok {
			t.Errorf("%s dropped", k)
		}
	}
	c.Put("huge", 0, body(2000), "")
	if _, _, ok := c.Get("huge", 0, 0); ok {
		t.Error("a body larger than the cache was kept")
	}
	for i := range 10 {
		c.Put(string(rune('d'+i)), 0, body(10), "")
	}
	if n, b := c.Size(); n > 3 || b > 1000 {
		t.Errorf("holds %d pages, %d bytes; want at most 3 and 1000", n, b)
	}
}
