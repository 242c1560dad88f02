// Package access decides which requests sparkdx's HTTP servers (serve and
// agent) answer: the Host a request names, against DNS rebinding (a web
// page the operator opens, whose name an attacker then points at
// 127.0.0.1, reads a loopback server as its own origin), and the bearer
// token it carries. docs/security.md states the threat model.
package access

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
)

// Hosts is a Host allowlist. A request naming an IP address is always
// allowed: rebinding needs a name the attacker's DNS answers for, and
// probes, scrapes and peers reach pods by address. Names are allowed
// when they are loopback names (localhost, *.localhost), the listen
// address's host, the machine's host name, or given (--allowed-hosts); a
// given "*" allows any.
type Hosts struct {
	names map[string]bool
	any   bool
}

// NewHosts returns the allowlist of a server listening on listen
// (host:port), with the names extra adds; an entry may carry a port
// (dropped) or start with "." to allow a domain's every name.
func NewHosts(listen string, extra []string) (*Hosts, error) {
	h := &Hosts{names: map[string]bool{"localhost": true}}
	if name, err := os.Hostname(); err == nil && name != "" {
		h.names[normal(name)] = true
	}
	if host, _, err := net.SplitHostPort(listen); err == nil && host != "" {
		h.names[normal(host)] = true
	}
	for _, e := range extra {
		e = strings.TrimSpace(e)
		switch {
		case e == "":
		case e == "*":
			h.any = true
		case strings.ContainsAny(e, "/ \t@?#"):
			return nil, fmt.Errorf("allowed host %q: want a host name, [IPv6] or .domain, with an optional :port", e)
		default:
			h.names[normal(e)] = true
		}
	}
	return h, nil
}

// normal is a Host header's or entry's host, lower-case, without its
// port, brackets or a trailing dot.
func normal(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	return strings.ToLower(host)
}

// Allowed says whether a request naming host (its Host header) is allowed.
func (h *Hosts) Allowed(host string) bool {
	if h == nil || h.any {
		return true
	}
	name := normal(host)
	if name == "" {
		return true // an HTTP/1.0 client without Host: browsers always send one
	}
	if _, err := netip.ParseAddr(name); err == nil {
		return true
	}
	if h.names[name] || strings.HasSuffix(name, ".localhost") {
		return true
	}
	for i := 1; i < len(name); i++ {
		if name[i] == '.' && h.names[name[i:]] {
			return true // under an allowed .domain
		}
	}
	return false
}

// Check answers 403 to a request whose Host is not allowed, saying how to
// allow it, and reports whether it did.
func (h *Hosts) Check(w http.ResponseWriter, r *http.Request) (refused bool) {
	if h.Allowed(r.Host) {
		return false
	}
	http.Error(w, fmt.Sprintf("Host %q is not allowed (DNS rebinding guard): add it with --allowed-hosts", r.Host), http.StatusForbidden)
	return true
}

// Bearer says whether r carries token: in "Authorization: Bearer <token>"
// (the scheme in any case, RFC 9110 §11.1) or, when cookie is not empty,
// in that cookie (browsers, after a login). An empty token allows all.
func Bearer(r *http.Request, token, cookie string) bool {
	if token == "" {
		return true
	}
	scheme, tok, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	tok = strings.TrimSpace(tok)
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		if cookie == "" {
			return false
		}
		c, err := r.Cookie(cookie)
		if err != nil {
			return false
		}
		tok = c.Value
	}
	return Equal(tok, token)
}

// Equal compares a presented token with the right one in constant time.
func Equal(presented, token string) bool {
	return subtle.ConstantTimeCompare([]byte(presented), []byte(token)) == 1
}

// ReadToken reads a bearer token from a file (--auth-token-file): its
// content without surrounding white space, which must not be empty.
func ReadToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("auth token file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("auth token file %s: empty", path)
	}
	return tok, nil
}
