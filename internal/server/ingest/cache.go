package ingest

import (
	"container/list"
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
