package jfr

import (
	"strconv"
)

// class is a type the metadata declares: an event, a constant pool's
// entry, a struct inside either, or a primitive.
type class struct {
	id     int64
	name   string
	fields []field
}

type field struct {
	name  string
	typ   int64
	pool  bool // the value is a constant pool key
	array bool
}

// element is a node of the metadata's tree.
type element struct {
	name     string
	attrs    map[string]string
	children []*element
}

// maxDepth bounds recursion in the metadata tree and in nested values.
const maxDepth = 32

// parseMetadata reads the metadata event's body after its type id: start,
// duration, id, the string table and the element tree; it returns the
// classes by id.
func parseMetadata(r *reader) map[int64]*class {
	r.long() // start
	r.long() // duration
	r.long() // metadata id
	n := r.count(1)
	strs := make([]string, n)
	for i := range strs {
		switch s := r.str().(type) {
		case string:
			strs[i] = s
		case nil:
		default:
			r.fail("metadata string %d refers to a constant pool", i)
		}
	}
	root := parseElement(r, strs, 0)
	if r.err != nil {
		return nil
	}
	classes := map[int64]*class{}
	for _, top := range root.children {
		if top.name != "metadata" {
			continue
		}
		for _, c := range top.children {
			if c.name != "class" {
				continue
			}
			id, err := strconv.ParseInt(c.attrs["id"], 10, 64)
			if err != nil {
				r.fail("class %q has id %q", c.attrs["name"], c.attrs["id"])
				return nil
			}
			cl := &class{id: id, name: c.attrs["name"]}
			for _, f := range c.children {
				if f.name != "field" {
					continue
				}
				typ, err := strconv.ParseInt(f.attrs["class"], 10, 64)
				if err != nil {
					r.fail("field %s.%s has class %q", cl.name, f.attrs["name"], f.attrs["class"])
					return nil
				}
				cl.fields = append(cl.fields, field{name: f.attrs["name"], typ: typ,
					pool: f.attrs["constantPool"] == "true", array: f.attrs["dimension"] == "1"})
			}
			classes[id] = cl
		}
	}
	return classes
}

func parseElement(r *reader, strs []string, depth int) *element {
	if depth > maxDepth {
		r.fail("metadata nested deeper than %d", maxDepth)
		return &element{}
	}
	at := func() string {
		i := r.int()
		if i < 0 || i >= int64(len(strs)) {
			r.fail("metadata string index %d of %d", i, len(strs))
			return ""
		}
		return strs[i]
	}
	e := &element{name: at()}
	n := r.count(2)
	if n > 0 {
		e.attrs = make(map[string]string, n)
	}
	for range n {
		k := at()
		e.attrs[k] = at()
	}
	n = r.count(3)
	for range n {
		if r.err != nil {
			break
		}
		e.children = append(e.children, parseElement(r, strs, depth+1))
	}
	return e
}
