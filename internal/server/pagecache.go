package server

import (
	"container/list"
	"net/url"
	"strings"
	"sync"
	"time"
)

// pageCache keeps rendered responses: fleet-wide ones until the index
// changes (and at most ttl, since running apps' durations grow), pages of
// finished apps until their log changes. It is bounded in pages and in
// bytes, the least recently used going first: keys come from requests,
// and 452 requests with a junk parameter once grew serve from 30 MB to
// 1.2 GB (issue 32) — keys are now made of the parameters a page reads
// (paramKey), and the bytes are bounded whatever the keys.
type pageCache struct {
	mu       sync.Mutex
	max      int   // pages
	maxBytes int64 // bytes of bodies and keys
	bytes    int64
	order    *list.List // of *cacheEntry, least recently used first
	pages    map[string]*list.Element
}

type cacheEntry struct {
	key  string
	page cachedPage
}

type cachedPage struct {
	version uint64
	at      time.Time
	body    []byte
	total   string // a list's X-Total-Count; "" for a page
}

const fleetTTL = time.Second

// Bounds of serve's page cache (docs/security.md).
const (
	cachePages = 512
	cacheBytes = 128 << 20
)

func newPageCache(max int, maxBytes int64) *pageCache {
	return &pageCache{max: max, maxBytes: maxBytes, order: list.New(), pages: map[string]*list.Element{}}
}

// get returns the body cached under key for version, if fresh, with the
// total count put with it.
func (c *pageCache) get(key string, version uint64, ttl time.Duration) (body []byte, total string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.pages[key]
	if !ok {
		return nil, "", false
	}
	p := el.Value.(*cacheEntry).page
	if p.version != version || ttl > 0 && time.Since(p.at) > ttl {
		return nil, "", false
	}
	c.order.MoveToBack(el)
	return p.body, p.total, true
}

// put caches body (with a list's total count, or "") under key for
// version, making room by dropping the least recently used pages; a body
// larger than the whole cache is not kept.
func (c *pageCache) put(key string, version uint64, body []byte, total string) {
	size := int64(len(key) + len(body) + len(total))
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.pages[key]; ok {
		c.drop(el)
	}
	if size > c.maxBytes {
		return
	}
	for c.order.Len() > 0 && (c.order.Len() >= c.max || c.bytes+size > c.maxBytes) {
		c.drop(c.order.Front())
	}
	c.pages[key] = c.order.PushBack(&cacheEntry{key: key, page: cachedPage{version: version, at: time.Now(), body: body, total: total}})
	c.bytes += size
}

func (c *pageCache) drop(el *list.Element) {
	e := c.order.Remove(el).(*cacheEntry)
	delete(c.pages, e.key)
	c.bytes -= int64(len(e.key) + len(e.page.body) + len(e.page.total))
}

// size is the pages and bytes held.
func (c *pageCache) size() (pages int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len(), c.bytes
}

// paramKey is the part of a cache key a request's query gives: the values
// of the parameters the page reads, in a fixed order, and nothing else —
// a junk parameter (?x=1, ?x=2, …) names the same page.
func paramKey(q url.Values, names ...string) string {
	var b strings.Builder
	for _, n := range names {
		for _, v := range q[n] {
			b.WriteString(n)
			b.WriteByte('=')
			b.WriteString(url.QueryEscape(v))
			b.WriteByte('&')
		}
	}
	return b.String()
}

// The parameters pages and lists read, for paramKey.
var (
	// appListParams: the fleet page and /api/sparkdx/v1/apps (appList).
	appListParams = []string{"sort", "offset", "length", "user", "status", "rule", "tag", "run", "q", "from", "to"}
	// historyListParams: the History Server's application list.
	historyListParams = []string{"status", "minDate", "maxDate", "minEndDate", "maxEndDate", "limit"}
	// appPageParams: an application's drill-down pages.
	appPageParams = []string{"attempt", "sort", "offset", "length"}
)

// onlyParams is q with the parameters names only: what a cached page may
// carry into its links.
func onlyParams(q url.Values, names ...string) url.Values {
	out := url.Values{}
	for _, n := range names {
		if v, ok := q[n]; ok {
			out[n] = v
		}
	}
	return out
}
