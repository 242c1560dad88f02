package hstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// member is one key of an object, in the order the answer lists it.
type member struct {
	key string
	val any
}

// decodeOrdered decodes JSON keeping each object's keys in order: an
// object is a []member, an array a []any.
func decodeOrdered(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var value func() (any, error)
	value = func() (any, error) {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		switch tok {
		case json.Delim('{'):
			var obj []member
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				v, err := value()
				if err != nil {
					return nil, err
				}
				obj = append(obj, member{fmt.Sprint(k), v})
			}
			_, err := d.Token()
			return obj, err
		case json.Delim('['):
			arr := []any{}
			for d.More() {
				v, err := value()
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := d.Token()
			return arr, err
		}
		return tok, nil
	}
	return value()
}

// KeyOrder lists where an object of got lists the keys it shares with the
// same object of want in another order (Spark's Jackson writes a class's
// fields in declaration order and a Scala map in its iteration order,
// which clients that print the JSON show): "$.path: keys [...], want [...]".
// Arrays are compared element by element, as Diff does.
func KeyOrder(got, want []byte) ([]string, error) {
	g, err := decodeOrdered(got)
	if err != nil {
		return nil, err
	}
	w, err := decodeOrdered(want)
	if err != nil {
		return nil, err
	}
	var out []string
	var walk func(path string, g, w any)
	walk = func(path string, g, w any) {
		switch wv := w.(type) {
		case []member:
			gv, ok := g.([]member)
			if !ok {
				return
			}
			in := func(ms []member) map[string]any {
				m := map[string]any{}
				for _, x := range ms {
					m[x.key] = x.val
				}
				return m
			}
			gm, wm := in(gv), in(wv)
			var gk, wk []string
			for _, x := range gv {
				if _, ok := wm[x.key]; ok {
					gk = append(gk, x.key)
				}
			}
			for _, x := range wv {
				if _, ok := gm[x.key]; ok {
					wk = append(wk, x.key)
				}
			}
			if !slices.Equal(gk, wk) {
				out = append(out, fmt.Sprintf("%s: keys %v, want %v", path, short(gk), short(wk)))
			}
			for _, x := range wv {
				if gx, ok := gm[x.key]; ok {
					walk(path+"."+x.key, gx, x.val)
				}
			}
		case []any:
			if gv, ok := g.([]any); ok {
				for i := 0; i < len(gv) && i < len(wv); i++ {
					walk(fmt.Sprintf("%s[%d]", path, i), gv[i], wv[i])
				}
			}
		}
	}
	walk("$", g, w)
	return out, nil
}
