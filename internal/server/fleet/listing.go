package fleet

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/historyapi"
	"github.com/sparkdx/sparkdx/internal/units"
)

// Listing is how a list endpoint (applications, runs) was asked to order
// and cut its items: ?sort=KEY or -KEY (descending), ?offset=, ?length=
// (0: all). Total is how many matched before the cut, for X-Total-Count
// and the pages' "N of M".
type Listing struct {
	Sort                  string
	Total, Offset, Length int
}

// ParseListing reads a listing from q against the sort keys a list knows
// (def when none is asked).
func ParseListing(q url.Values, keys []string, def string) (Listing, error) {
	l := Listing{Sort: q.Get("sort")}
	if l.Sort == "" {
		l.Sort = def
	}
	if !slices.Contains(keys, strings.TrimPrefix(l.Sort, "-")) {
		return l, errors.New("unknown sort: " + strconv.Quote(units.ShortName(l.Sort, 40)) + " (want " + strings.Join(keys, ", ") + "; - for descending)")
	}
	var err error
	if l.Offset, err = intParam(q, "offset"); err != nil {
		return l, err
	}
	if l.Length, err = intParam(q, "length"); err != nil {
		return l, err
	}
	if l.Length > historyapi.MaxLength {
		return l, fmt.Errorf("bad length: %d (at most %d; 0: all, ?offset= pages)", l.Length, historyapi.MaxLength)
	}
	return l, nil
}

// Page sorts items by l.Sort with orders (ties broken by key, so pages
// never overlap), records the total in l and returns the asked page. Items
// already in that order (the summaries come newest first) are not sorted.
func Page[T any](items []T, l *Listing, orders map[string]func(a, b T) int, key func(T) string) []T {
	by := orders[strings.TrimPrefix(l.Sort, "-")]
	desc := strings.HasPrefix(l.Sort, "-")
	cmp := func(a, b T) int {
		c := by(a, b)
		if c == 0 {
			c = strings.Compare(key(a), key(b))
		}
		if desc {
			return -c
		}
		return c
	}
	if !slices.IsSortedFunc(items, cmp) {
		slices.SortFunc(items, cmp)
	}
	l.Total = len(items)
	items = items[min(l.Offset, len(items)):]
	if l.Length > 0 && l.Length < len(items) {
		items = items[:l.Length]
	}
	return items
}

// PageLinks are the previous and next pages' URLs of a paged list at
// path, empty where there is none.
func PageLinks(path string, q url.Values, l Listing) (prev, next string) {
	if l.Length <= 0 {
		return "", ""
	}
	v := url.Values{}
	for k, x := range q {
		v[k] = x
	}
	if l.Offset > 0 {
		v.Set("offset", strconv.Itoa(max(l.Offset-l.Length, 0)))
		prev = path + "?" + v.Encode()
	}
	if l.Offset+l.Length < l.Total {
		v.Set("offset", strconv.Itoa(l.Offset+l.Length))
		next = path + "?" + v.Encode()
	}
	return prev, next
}

func intParam(q url.Values, k string) (int, error) {
	v := q.Get(k)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, errors.New("bad " + k + ": " + v + " (want a number ≥ 0)")
	}
	return n, nil
}
