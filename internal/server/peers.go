package server

// This file is the server's side of several serve instances sharing one
// event-log directory (serve --shard I/N --peers URL,...): each instance
// ingests only its shard of the logs, lists the whole fleet by merging
// what its peers list, and sends a request about an application another
// instance owns there (307).

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/shard"
)

// Peers is where this instance stands among several serve instances.
type Peers struct {
	Shard shard.Spec
	// URLs are every instance's base URL in shard order, this one's
	// included (it is not asked): the same list for every instance.
	URLs []string
	// Timeout bounds one fleet listing's wait for the peers; a peer that
	// does not answer in time is named as down (default 2s).
	Timeout time.Duration
	// Client asks the peers (default a client without redirects).
	Client *http.Client
	// Proxy answers a request about another instance's application by
	// forwarding it there instead of redirecting the client (307): for
	// clients that cannot reach the peers' URLs (a Kubernetes Service in
	// front of a StatefulSet's pods).
	Proxy bool
}

// Validate checks that the peers match the shard count.
func (p Peers) Validate() error {
	if err := p.Shard.Validate(); err != nil {
		return err
	}
	if len(p.URLs) != 0 && len(p.URLs) != p.Shard.Count {
		return fmt.Errorf("peers: %d URLs for %d shards: list every instance, this one included, in shard order", len(p.URLs), p.Shard.Count)
	}
	for _, raw := range p.URLs {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			return fmt.Errorf("peers: %q: want an http:// or https:// URL", raw)
		}
	}
	return nil
}

// ShardList is what GET /api/sparkdx/v1/shard answers: this instance's
// own application attempts, as summaries (the fleet views) and as index
// records (the History Server list).
type ShardList struct {
	Shard string       `json:"shard"`
	Apps  []AppSummary `json:"apps"`
	// Keys are the apps' index keys (their log paths), in order: they
	// break ties in the merged lists' orders as on one instance.
	Keys    []string          `json:"keys"`
	Records []store.LogRecord `json:"records"`
}

// PeerDown is a peer whose list is missing from a fleet view.
type PeerDown struct {
	URL   string `json:"url"`
	Error string `json:"error"`
}

// peerTTL is how long the peers' lists are reused: the fleet views are
// cached as long (fleetTTL).
const peerTTL = time.Second

// peerSet asks the peers for their lists, at most once per peerTTL.
type peerSet struct {
	cfg     Peers
	token   string
	proxies []*httputil.ReverseProxy // by shard, with Peers.Proxy

	mu   sync.Mutex // held through a fetch: concurrent requests share it
	last peerView

	mergeMu  sync.Mutex
	merged   fleet       // the last merge
	mergedOf summaryList // of this local list
}

// peerView is what the peers listed at one time.
type peerView struct {
	at      time.Time
	gen     uint64 // counts fetches, for cache keys
	apps    []AppSummary
	records []store.LogRecord
	owner   map[string]int // application id → shard that lists it
	down    []PeerDown
}

func newPeerSet(cfg Peers, token string) *peerSet {
	if len(cfg.URLs) == 0 || !cfg.Shard.Enabled() {
		return nil
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Second
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	p := &peerSet{cfg: cfg, token: token}
	if cfg.Proxy {
		p.proxies = make([]*httputil.ReverseProxy, len(cfg.URLs))
		for i, raw := range cfg.URLs {
			u, err := url.Parse(raw)
			if err != nil {
				continue // Validate refuses it; requests are redirected
			}
			p.proxies[i] = &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
				pr.SetURL(u)
				pr.SetXForwarded()
				pr.Out.Header.Set(proxiedHeader, "1")
			}}
		}
	}
	return p
}

// view returns the peers' lists, asking them again when older than
// peerTTL. A peer that fails is named in down.
func (p *peerSet) view(ctx context.Context) peerView {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.last.at.IsZero() && time.Since(p.last.at) < peerTTL {
		return p.last
	}
	// The answers serve every request of the next second: one request
	// going away must not cut them short.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.cfg.Timeout)
	defer cancel()
	lists := make([]ShardList, len(p.cfg.URLs))
	errs := make([]error, len(p.cfg.URLs))
	var wg sync.WaitGroup
	for i, u := range p.cfg.URLs {
		if i == p.cfg.Shard.Index {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			lists[i], errs[i] = p.fetch(ctx, u)
		}()
	}
	wg.Wait()
	v := peerView{at: time.Now(), gen: p.last.gen + 1, owner: map[string]int{}}
	for i, l := range lists {
		if i == p.cfg.Shard.Index {
			continue
		}
		if errs[i] != nil {
			v.down = append(v.down, PeerDown{URL: p.cfg.URLs[i], Error: errs[i].Error()})
			continue
		}
		want := shard.Spec{Index: i, Count: p.cfg.Shard.Count}.String()
		switch {
		case l.Shard != want:
			// --peers out of shard order, or a peer given another N:
			// its applications would be looked for in the wrong place.
			errs[i] = fmt.Errorf("answers as shard %q, want %s (--peers in shard order, the same N everywhere?)", l.Shard, want)
		case len(l.Keys) != len(l.Apps):
			errs[i] = fmt.Errorf("%d keys for %d apps", len(l.Keys), len(l.Apps))
		}
		if errs[i] != nil {
			v.down = append(v.down, PeerDown{URL: p.cfg.URLs[i], Error: errs[i].Error()})
			continue
		}
		for j, a := range l.Apps {
			a.key = l.Keys[j]
			a.search = strings.ToLower(a.Name + "\x00" + a.ID)
			v.apps = append(v.apps, a)
			v.owner[a.ID] = i
		}
		v.records = append(v.records, l.Records...)
	}
	p.last = v
	return v
}

// fetch asks one peer for its own list.
func (p *peerSet) fetch(ctx context.Context, base string) (ShardList, error) {
	var l ShardList
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/api/sparkdx/v1/shard", nil)
	if err != nil {
		return l, err
	}
	if p.token != "" {
		req.Header.Set("Authorization", "Bearer "+p.token)
	}
	resp, err := p.cfg.Client.Do(req)
	if err != nil {
		return l, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return l, fmt.Errorf("GET %s: status %d: %s", req.URL, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	if err := json.NewDecoder(resp.Body).Decode(&l); err != nil {
		return l, fmt.Errorf("GET %s: %w", req.URL, err)
	}
	return l, nil
}

// apiShard answers a peer: this instance's own applications.
func (s *Server) apiShard(w http.ResponseWriter, r *http.Request) {
	l := ShardList{Shard: s.cfg.Peers.Shard.String(), Apps: s.summaries(), Keys: []string{}, Records: []store.LogRecord{}}
	if l.Apps == nil {
		l.Apps = []AppSummary{}
	}
	for _, a := range l.Apps {
		l.Keys = append(l.Keys, a.key)
	}
	for _, rec := range s.cfg.Ingest.Records() {
		if rec.AppID != "" {
			l.Records = append(l.Records, rec)
		}
	}
	writeJSON(w, http.StatusOK, l)
}

// fleet is the application attempts of the whole fleet, newest start
// first: this instance's and its peers'. Gen changes when the peers' part
// may have (zero without peers); down names the peers missing from it.
type fleet struct {
	apps    []AppSummary
	records []store.LogRecord
	gen     uint64
	down    []PeerDown
}

// fleetApps returns the fleet's application attempts; without peers,
// this instance's. The list is shared until this instance's summaries or
// the peers' lists change (callers must not change it).
func (s *Server) fleetApps(ctx context.Context) fleet {
	local := s.summaryList()
	if s.peers == nil {
		return fleet{apps: local.apps}
	}
	v := s.peers.view(ctx)
	return s.peers.merge(local, v)
}

// merge is the local list and the peers', newest start first as on one
// instance; the last one is kept for the next request.
func (p *peerSet) merge(local summaryList, v peerView) fleet {
	p.mergeMu.Lock()
	defer p.mergeMu.Unlock()
	if p.merged.apps != nil && p.mergedOf.version == local.version && p.mergedOf.built.Equal(local.built) && p.merged.gen == v.gen {
		return p.merged
	}
	apps := make([]AppSummary, 0, len(local.apps)+len(v.apps))
	apps = append(append(apps, local.apps...), v.apps...)
	slices.SortStableFunc(apps, func(a, b AppSummary) int {
		if c := cmp.Compare(b.StartTime, a.StartTime); c != 0 {
			return c
		}
		return strings.Compare(b.key, a.key)
	})
	p.merged = fleet{apps: apps, records: v.records, gen: v.gen, down: v.down}
	p.mergedOf = local
	return p.merged
}

// markDown names the peers missing from a fleet view in the
// X-Sparkdx-Peers-Down header (space-separated URLs).
func markDown(w http.ResponseWriter, down []PeerDown) {
	if len(down) == 0 {
		return
	}
	urls := make([]string, len(down))
	for i, d := range down {
		urls[i] = d.URL
	}
	w.Header().Set("X-Sparkdx-Peers-Down", strings.Join(urls, " "))
}

// proxiedHeader marks a request one instance forwarded to another: it is
// answered where it lands, never sent on again.
const proxiedHeader = "X-Sparkdx-Proxied"

// redirectToOwner sends a request about one application that this
// instance does not know to the instance that owns it (307, so that the
// method and body stay; or forwarded, with Peers.Proxy): the one whose
// list has it, or else the one its id hashes to. It reports whether it
// answered.
func (s *Server) redirectToOwner(w http.ResponseWriter, r *http.Request) bool {
	id := appIDOfPath(r.URL.EscapedPath())
	if id == "" || r.Header.Get(proxiedHeader) != "" || s.knows(id) {
		return false
	}
	owner, ok := s.peers.view(r.Context()).owner[id]
	if !ok {
		owner = s.cfg.Peers.Shard.OwnerOfApp(id)
	}
	if owner == s.cfg.Peers.Shard.Index {
		return false
	}
	w.Header().Set("X-Sparkdx-Shard", fmt.Sprintf("%d/%d", owner, s.cfg.Peers.Shard.Count))
	if s.cfg.Peers.Proxy && s.peers.proxies[owner] != nil {
		s.peers.proxies[owner].ServeHTTP(w, r)
		return true
	}
	http.Redirect(w, r, strings.TrimSuffix(s.cfg.Peers.URLs[owner], "/")+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	return true
}

// knows says whether this instance's index has an application.
func (s *Server) knows(appID string) bool {
	for _, a := range s.summaries() {
		if a.ID == appID {
			return true
		}
	}
	return false
}

// appPrefixes are the paths whose next segment is an application id.
var appPrefixes = []string{"/apps/", "/api/v1/applications/", "/api/sparkdx/v1/apps/"}

// appIDOfPath is the application id an escaped path is about, or "".
func appIDOfPath(p string) string {
	for _, pre := range appPrefixes {
		if rest, ok := strings.CutPrefix(p, pre); ok {
			id, _, _ := strings.Cut(rest, "/")
			if u, err := url.PathUnescape(id); err == nil {
				return u
			}
			return id
		}
	}
	return ""
}
