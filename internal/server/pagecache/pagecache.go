// Package pagecache keeps serve's rendered answers — pages, and the JSON
// lists every dashboard polls — by key and version, bounded in entries and
// bytes. It owns the cache and the request parameters that make its keys;
// what is worth caching, and for how long, its callers decide.
package pagecache

import (
	"container/list"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Cache keeps rendered responses: fleet-wide ones until the index
// changes (and at most ttl, since running apps' durations grow), pages of
// finished apps until their log changes. It is bounded in pages and in
// bytes, the least recently used going first: keys come from requests,
// and 452 requests with a junk parameter once grew serve from 30 MB to
// 1.2 GB (issue 32) — keys are now made of the parameters a page reads
// (ParamKey), and the bytes are bounded whatever the keys.
type Cache struct {
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

// FleetTTL is how long a fleet-wide answer is kept at most: running
// applications' durations grow with the clock.
const FleetTTL = time.Second

// Bounds of serve's page cache (docs/security.md).
const (
	MaxPages = 512
	MaxBytes = 128 << 20
)

// New returns a cache of at most max entries and maxBytes bytes.
func New(max int, maxBytes int64) *Cache {
	return &Cache{max: max, maxBytes: maxBytes, order: list.New(), pages: map[string]*list.Element{}}
}

// Get returns the body cached under key for version, if fresh, with the
// total count put with it.
func (c *Cache) Get(key string, version uint64, ttl time.Duration) (body []byte, total string, ok bool) {
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

// Put caches body (with a list's total count, or "") under key for
// version, making room by dropping the least recently used pages; a body
// larger than the whole cache is not kept.
func (c *Cache) Put(key string, version uint64, body []byte, total string) {
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

func (c *Cache) drop(el *list.Element) {
	e := c.order.Remove(el).(*cacheEntry)
	delete(c.pages, e.key)
	c.bytes -= int64(len(e.key) + len(e.page.body) + len(e.page.total))
}

// Size is the pages and bytes held.
func (c *Cache) Size() (pages int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len(), c.bytes
}

// ParamKey is the part of a cache key a request's query gives: the values
// of the parameters the page reads, in a fixed order, and nothing else —
// a junk parameter (?x=1, ?x=2, …) names the same page.
func ParamKey(q url.Values, names ...string) string {
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

// The parameters pages and lists read, for ParamKey.
var (
	// AppListParams: the fleet page and /api/sparkdx/v1/apps (appList).
	AppListParams = []string{"sort", "offset", "length", "user", "status", "rule", "tag", "run", "q", "from", "to"}
	// HistoryListParams: the History Server's application list.
	HistoryListParams = []string{"status", "minDate", "maxDate", "minEndDate", "maxEndDate", "limit"}
	// AppPageParams: an application's drill-down pages.
	AppPageParams = []string{"attempt", "sort", "offset", "length"}
)

// OnlyParams is q with the parameters names only: what a cached page may
// carry into its links.
func OnlyParams(q url.Values, names ...string) url.Values {
	out := url.Values{}
	for _, n := range names {
		if v, ok := q[n]; ok {
			out[n] = v
		}
	}
	return out
}
