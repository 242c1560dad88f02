package server

import (
	"sync"
	"time"
)

// pageCache keeps rendered responses: fleet-wide ones until the index
// changes (and at most ttl, since running apps' durations grow), pages of
// finished apps until their log changes. It is bounded: when full it is
// emptied, which costs one render per page.
type pageCache struct {
	mu    sync.Mutex
	max   int
	pages map[string]cachedPage
}

type cachedPage struct {
	version uint64
	at      time.Time
	body    []byte
	total   string // a list's X-Total-Count; "" for a page
}

const fleetTTL = time.Second

func newPageCache(max int) *pageCache {
	return &pageCache{max: max, pages: map[string]cachedPage{}}
}

// get returns the body cached under key for version, if fresh, with the
// total count put with it.
func (c *pageCache) get(key string, version uint64, ttl time.Duration) (body []byte, total string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.pages[key]
	if !ok || p.version != version || ttl > 0 && time.Since(p.at) > ttl {
		return nil, "", false
	}
	return p.body, p.total, true
}

// put caches body (with a list's total count, or "") under key for version.
func (c *pageCache) put(key string, version uint64, body []byte, total string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pages) >= c.max {
		clear(c.pages)
	}
	c.pages[key] = cachedPage{version: version, at: time.Now(), body: body, total: total}
}
