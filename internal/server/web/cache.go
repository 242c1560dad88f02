package web

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/sparkdx/sparkdx/internal/server/pagecache"
)

// finishedPage serves a drill-down page of an application none of whose
// attempts runs from the page cache, keyed by the attempts' logs and
// their last change (and, with samples, the agent samples and profiles
// the page draws): such a page changes only with them. A big application's stage
// or environment page costs 10-15 ms of CPU to render from its model, and
// a person goes back and forth between the same few pages. Pages of
// running applications, and errors, are rendered every time.
func (s *Pages) finishedPage(h http.HandlerFunc, samples bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		atts := s.attemptsOf(id)
		if len(atts) == 0 {
			h(w, r)
			return
		}
		var key strings.Builder
		key.WriteString("page")
		for _, a := range atts {
			if !a.FinishedKey(&key) {
				h(w, r)
				return
			}
		}
		if samples {
			fmt.Fprintf(&key, "|%d|%s", len(s.memorySamples(id)), strings.Join(s.profileFiles(atts[0].ID), "/"))
		}
		key.WriteString("|" + r.URL.EscapedPath() + "?" + pagecache.ParamKey(r.URL.Query(), pagecache.AppPageParams...))
		if body, _, ok := s.cfg.Cache.Get(key.String(), 0, 0); ok {
			writeHTML(w, http.StatusOK, body)
			return
		}
		rec := &recordedPage{header: http.Header{}}
		h(rec, r)
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		w.WriteHeader(rec.status)
		w.Write(rec.body)
		if rec.status == http.StatusOK && strings.HasPrefix(rec.header.Get("Content-Type"), "text/html") {
			s.cfg.Cache.Put(key.String(), 0, rec.body, "")
		}
	}
}

// recordedPage is a page a handler wrote, kept to be cached.
type recordedPage struct {
	header http.Header
	status int
	body   []byte
}

func (p *recordedPage) Header() http.Header { return p.header }

func (p *recordedPage) WriteHeader(status int) {
	if p.status == 0 {
		p.status = status
	}
}

func (p *recordedPage) Write(b []byte) (int, error) {
	if p.status == 0 {
		p.status = http.StatusOK
	}
	p.body = append(p.body, b...)
	return len(b), nil
}
