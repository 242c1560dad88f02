// Package peers is serve's side of several serve instances sharing one
// event-log directory (serve --shard I/N --peers URL,...): each instance
// ingests only its shard of the logs, lists the whole fleet by merging
// what its peers list, and sends a request about an application another
// instance owns there (307, or forwarded). It owns the peers'
// configuration, asking them for their lists (GET /api/sparkdx/v1/shard,
// whose answer the server writes), the merged fleet view and the
// redirects; the server owns this instance's own list.
package peers

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

	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/shard"
)

// Config is where this instance stands among several serve instances.
type Config struct {
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
func (p Config) Validate() error {
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
	Shard string             `json:"shard"`
	Apps  []fleet.AppSummary `json:"apps"`
	// Keys are the apps' index keys (their log paths), in order: they
	// break ties in the merged lists' orders as on one instance.
	Keys    []string          `json:"keys"`
	Records []store.LogRecord `json:"records"`
}

// TTL is how long the peers' lists are reused: the fleet views are
// cached as long (pagecache.FleetTTL).
const TTL = time.Second

// Set asks the peers for their lists, at most once per TTL.
type Set struct {
	cfg     Config
	token   string
	proxies []*httputil.ReverseProxy // by shard, with Peers.Proxy

	mu   sync.Mutex // held through a fetch: concurrent requests share it
	last peerView

	mergeMu  sync.Mutex
	merged   fleet.View // the last merge
	mergedOf Local      // of this local list
}

// peerView is what the peers listed at one time.
type peerView struct {
	at      time.Time
	gen     uint64 // counts fetches, for cache keys
	apps    []fleet.AppSummary
	records []store.LogRecord
	owner   map[string]int // application id → shard that lists it
	down    []fleet.PeerDown
}

// New returns the peers of cfg, asked with the bearer token (none when
// ""); nil when cfg names none: this instance is the whole fleet.
func New(cfg Config, token string) *Set {
	if len(cfg.URLs) == 0 || !cfg.Shard.Enabled() {
		return nil
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Second
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	p := &Set{cfg: cfg, token: token}
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
// TTL. A peer that fails is named in down.
func (p *Set) view(ctx context.Context) peerView {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.last.at.IsZero() && time.Since(p.last.at) < TTL {
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
			v.down = append(v.down, fleet.PeerDown{URL: p.cfg.URLs[i], Error: errs[i].Error()})
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
			v.down = append(v.down, fleet.PeerDown{URL: p.cfg.URLs[i], Error: errs[i].Error()})
			continue
		}
		for j, a := range l.Apps {
			a.SetIndex(l.Keys[j], 0)
			v.apps = append(v.apps, a)
			v.owner[a.ID] = i
		}
		v.records = append(v.records, l.Records...)
	}
	p.last = v
	return v
}

// fetch asks one peer for its own list.
func (p *Set) fetch(ctx context.Context, base string) (ShardList, error) {
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

// Local is this instance's own list, with the ingest version and the
// time it was built for: what says a merge can be reused.
type Local struct {
	Apps    []fleet.AppSummary
	Version uint64
	Built   time.Time
}

// Expire makes the next view ask the peers again, as when their lists
// are older than TTL.
func (p *Set) Expire() {
	p.mu.Lock()
	p.last.at = time.Time{}
	p.mu.Unlock()
}

// Fleet is local and the peers' lists merged: the whole fleet.
func (p *Set) Fleet(ctx context.Context, local Local) fleet.View {
	return p.merge(local, p.view(ctx))
}

// merge is the local list and the peers', newest start first as on one
// instance; the last one is kept for the next request.
func (p *Set) merge(local Local, v peerView) fleet.View {
	p.mergeMu.Lock()
	defer p.mergeMu.Unlock()
	if p.merged.Apps != nil && p.mergedOf.Version == local.Version && p.mergedOf.Built.Equal(local.Built) && p.merged.Gen == v.gen {
		return p.merged
	}
	apps := make([]fleet.AppSummary, 0, len(local.Apps)+len(v.apps))
	apps = append(append(apps, local.Apps...), v.apps...)
	slices.SortStableFunc(apps, func(a, b fleet.AppSummary) int {
		if c := cmp.Compare(b.StartTime, a.StartTime); c != 0 {
			return c
		}
		return strings.Compare(b.Key(), a.Key())
	})
	p.merged = fleet.View{Apps: apps, Records: v.records, Gen: v.gen, Down: v.down}
	p.mergedOf = local
	return p.merged
}

// proxiedHeader marks a request one instance forwarded to another: it is
// answered where it lands, never sent on again.
const proxiedHeader = "X-Sparkdx-Proxied"

// Redirect sends a request about one application that this
// instance does not know to the instance that owns it (307, so that the
// method and body stay; or forwarded, with Config.Proxy): the one whose
// list has it, or else the one its id hashes to — unless knows says this
// instance's index has it. It reports whether it answered.
func (p *Set) Redirect(w http.ResponseWriter, r *http.Request, knows func(appID string) bool) bool {
	id := appIDOfPath(r.URL.EscapedPath())
	if id == "" || r.Header.Get(proxiedHeader) != "" || knows(id) {
		return false
	}
	owner, ok := p.view(r.Context()).owner[id]
	if !ok {
		owner = p.cfg.Shard.OwnerOfApp(id)
	}
	if owner == p.cfg.Shard.Index {
		return false
	}
	w.Header().Set("X-Sparkdx-Shard", fmt.Sprintf("%d/%d", owner, p.cfg.Shard.Count))
	if p.cfg.Proxy && p.proxies[owner] != nil {
		p.proxies[owner].ServeHTTP(w, r)
		return true
	}
	http.Redirect(w, r, strings.TrimSuffix(p.cfg.URLs[owner], "/")+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	return true
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
