package jfr

// A decoded value is one of: nil, bool, int64, float64, string, ref,
// []any (an array field) or *object (a struct or a pool entry).

// ref is a constant pool key of a type, resolved once every pool is read.
type ref struct {
	typ, key int64
}

// stringPoolType marks a string that refers to the java.lang.String pool,
// whose type id only the metadata knows.
const stringPoolType = -1

type object struct {
	cls    *class
	fields []any
}

// get returns the value of the field called name, or nil.
func (o *object) get(name string) any {
	if o == nil {
		return nil
	}
	for i, f := range o.cls.fields {
		if f.name == name && i < len(o.fields) {
			return o.fields[i]
		}
	}
	return nil
}

// decoder reads values of the chunk's classes.
type decoder struct {
	classes map[int64]*class
}

// value reads one value of type typ: a pool key when pool is set, an
// array when array is set.
func (d *decoder) value(r *reader, f field, depth int) any {
	if f.array {
		n := r.count(1)
		out := make([]any, 0, n)
		for range n {
			if r.err != nil {
				break
			}
			out = append(out, d.value(r, field{typ: f.typ, pool: f.pool}, depth))
		}
		return out
	}
	if f.pool {
		return ref{typ: f.typ, key: r.long()}
	}
	cl, ok := d.classes[f.typ]
	if !ok {
		r.fail("field %s of unknown type %d", f.name, f.typ)
		return nil
	}
	switch cl.name {
	case "boolean":
		return r.u8() != 0
	case "byte":
		return int64(int8(r.u8()))
	case "char":
		return r.short() & 0xffff
	case "short":
		return r.short()
	case "int":
		return r.int()
	case "long":
		return r.long()
	case "float":
		return r.float()
	case "double":
		return r.double()
	case "java.lang.String":
		return r.str()
	}
	return d.object(r, cl, depth+1)
}

// object reads a struct's fields in their declared order.
func (d *decoder) object(r *reader, cl *class, depth int) *object {
	if depth > maxDepth {
		r.fail("values nested deeper than %d", maxDepth)
		return nil
	}
	o := &object{cls: cl, fields: make([]any, 0, len(cl.fields))}
	for _, f := range cl.fields {
		if r.err != nil {
			break
		}
		o.fields = append(o.fields, d.value(r, f, depth))
	}
	return o
}
