package ingest

import (
	"container/list"
	"slices"
	"sync"

	"github.com/sparkdx/sparkdx/internal/model"
)

// cache keeps the most recently used finished models.
type cache struct {
	mu    sync.Mutex
	max   int
	order *list.List // front: most recent; values are *cacheItem
	items map[string]*list.Element
}

type cacheItem struct {
	key string
	a   *model.Attempt
}

func newCache(max int) *cache {
	return &cache{max: max, order: list.New(), items: map[string]*list.Element{}}
}

func (c *cache) get(key string) *model.Attempt {
	c.mu.Lock()
	defer c.mu.Unlock()
	el := c.items[key]
	if el == nil {
		return nil
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheItem).a
}

func (c *cache) put(key string, a *model.Attempt) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.items[key]; el != nil {
		el.Value.(*cacheItem).a = a
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&cacheItem{key, a})
	for c.order.Len() > c.max {
		el := c.order.Back()
		c.order.Remove(el)
		delete(c.items, el.Value.(*cacheItem).key)
	}
}

func (c *cache) remove(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.items[key]; el != nil {
		c.order.Remove(el)
		delete(c.items, key)
	}
}

// unpackedSet bounds how many running logs keep their unpacked model for
// readers (logEntry.unpacked). One is every finished task unpacked, 6.6 MB
// for the big test log's 13k: a /metrics scrape, which analyses every
// running log, left each holding one until its next event.
type unpackedSet struct {
	mu    sync.Mutex
	max   int
	order []*logEntry // most recently unpacked last
}

// add notes that e has just kept an unpacked model and drops the oldest
// others' past max. The caller holds e.mu shared, so e itself is never
// dropped here; another entry is dropped only when its lock is free at
// once (a reader or an apply holds it: it is tried again next time), so
// that add never waits on a lock while the caller holds one.
func (s *unpackedSet) add(e *logEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.order = slices.DeleteFunc(s.order, func(x *logEntry) bool { return x == e })
	s.order = append(s.order, e)
	for i := 0; i < len(s.order)-1 && len(s.order) > s.max; {
		x := s.order[i]
		if !x.mu.TryLock() {
			i++
			continue
		}
		x.unpacked = unpackedModel{} // exclusive: no reader holds it
		x.mu.Unlock()
		s.order = slices.Delete(s.order, i, i+1)
	}
}
