// Package historyapi computes the Spark History Server REST API
// (/api/v1/...) from replayed applications, field for field as Spark writes
// it, for `sparkdx api` and `sparkdx serve`.
package historyapi

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/redact"
)

// API answers REST requests over a set of loaded applications. The
// applications are read-only once given; SetApps swaps in a new set (for a
// server that reloads logs) while requests are served.
type API struct {
	mu   sync.RWMutex
	apps []*model.App
	// Now is the current time in epoch ms, used for running apps and tasks.
	Now func() int64
	// Files reads the raw logs that .../logs zips; local files when nil.
	Files LogFiles
	// Redaction hides the values of environment properties whose key or
	// value it matches, as the History Server's spark.redaction.regex
	// does; New sets Spark 4's default (DefaultRedaction).
	Redaction *regexp.Regexp
	// metrics is the table of Spark's task metrics the task and stage
	// documents are written from.
	metrics *model.MetricGroup
}

// SparkVersion is the Spark version whose History Server API sparkdx
// follows, which /version answers.
const SparkVersion = "4.3.0"

// ServerHeader is the Server header of sparkdx's answers, which names it
// beside the Spark version /version gives: "sparkdx/" and the module's
// version ("devel" in a build from a work tree).
func ServerHeader() string {
	v := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	return "sparkdx/" + v
}

// DefaultRedaction is Spark 4's default spark.redaction.regex (Spark 3.5's
// lacks "credential"), as the History Server applies it to the environment.
const DefaultRedaction = redact.SparkDefault

// New returns an API over apps (as replay.GroupApps orders them).
func New(apps []*model.App) *API {
	return &API{apps: apps, Redaction: regexp.MustCompile(DefaultRedaction), metrics: model.TaskMetricFields()}
}

// SetApps replaces the applications served.
func (api *API) SetApps(apps []*model.App) {
	api.mu.Lock()
	api.apps = apps
	api.mu.Unlock()
}

// appSet returns the current applications.
func (api *API) appSet() []*model.App {
	api.mu.RLock()
	defer api.mu.RUnlock()
	return api.apps
}

// Error is a REST error with its HTTP status.
type Error struct {
	Status int
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

func notFound(format string, a ...any) error {
	return &Error{Status: http.StatusNotFound, Msg: fmt.Sprintf(format, a...)}
}

// threadDump answers executors/{id}/threads as the History Server does: it
// has no running application to ask.
func threadDump(execID string) error {
	if execID != "driver" && strings.Trim(execID, "0123456789") != "" {
		return badRequest("Invalid executorId: neither 'driver' nor number.")
	}
	return &Error{Status: http.StatusServiceUnavailable, Msg: "Thread dumps not available through the history server."}
}

func badRequest(format string, a ...any) error {
	return &Error{Status: http.StatusBadRequest, Msg: fmt.Sprintf(format, a...)}
}

// StatusOf returns the HTTP status for an error from Get.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return http.StatusInternalServerError
}

// Get answers one path such as "/api/v1/applications/app-1/stages?status=complete"
// (the "/api/v1/" prefix is optional) with a JSON value for Marshal.
func (api *API) Get(rawPath string) (any, error) {
	u, err := url.Parse(rawPath)
	if err != nil {
		return nil, badRequest("bad path: %v", err)
	}
	return api.get(u.EscapedPath(), u.Query())
}

// Segments splits an escaped request path (the "/api/v1/" prefix is
// optional) into its unescaped segments: an application id holding "/"
// is reachable as %2F (applications/a%2Fb/jobs).
func Segments(escaped string) []string {
	p := strings.Trim(strings.TrimPrefix(strings.TrimPrefix(escaped, "/"), "api/v1/"), "/")
	seg := strings.Split(p, "/")
	for i, s := range seg {
		if u, err := url.PathUnescape(s); err == nil {
			seg[i] = u
		}
	}
	return seg
}

// get answers an escaped path (see Segments).
func (api *API) get(escaped string, q url.Values) (any, error) {
	seg := Segments(escaped)
	path := strings.Join(seg, "/")
	switch {
	case seg[0] == "applications" && len(seg) == 1:
		return api.appList(q)
	case seg[0] == "applications":
	case seg[0] == "version" && len(seg) == 1:
		// Clients parse this as Spark's version; sparkdx names itself in
		// the Server header (ServerHeader) and `sparkdx version`.
		return obj().Set("spark", SparkVersion), nil
	default:
		return nil, notFound("unknown resource: %s", path)
	}
	app := api.app(seg[1])
	if len(seg) == 2 {
		if app == nil {
			return nil, notFound("unknown app: %s", seg[1])
		}
		return appInfo(app), nil
	}
	// Below an application the History Server loads one attempt's UI: the
	// attempt named in the path, or else the attempt without an id.
	rest := seg[2:]
	attemptID := ""
	if !isResource(rest[0]) {
		attemptID, rest = rest[0], rest[1:]
		if len(rest) == 0 { // applications/{app}/{attempt}: the attempt's info
			if app != nil {
				for _, a := range app.Attempts {
					if a.AttemptID == attemptID {
						return attemptInfo(a), nil
					}
				}
			}
			return nil, notFound("unknown app %s, attempt %s", seg[1], attemptID)
		}
	}
	var at *model.Attempt
	if app != nil {
		for _, a := range app.Attempts {
			if a.AttemptID == attemptID {
				at = a
			}
		}
	}
	if at == nil {
		key := seg[1]
		if attemptID != "" {
			key += "/" + attemptID
		}
		return nil, notFound("no such app: %s", key)
	}
	if len(rest) == 0 {
		return nil, notFound("unknown resource: %s", path)
	}
	return api.attemptResource(at, rest, q, path)
}

func isResource(s string) bool {
	switch s {
	case "jobs", "executors", "allexecutors", "stages", "storage", "environment",
		"allmiscellaneousprocess", "logs", "sql", "streaming":
		return true
	}
	return false
}

func (api *API) app(id string) *model.App {
	for _, a := range api.appSet() {
		if a.ID == id {
			return a
		}
	}
	return nil
}

func (api *API) attemptResource(a *model.Attempt, rest []string, q url.Values, path string) (any, error) {
	switch rest[0] {
	case "jobs":
		if len(rest) == 1 {
			return jobList(a, q)
		}
		if len(rest) == 2 {
			id, err := strconv.Atoi(rest[1])
			if err != nil {
				return nil, notFound("unknown job: %s", rest[1])
			}
			j, err := JobByID(a, id)
			if err != nil {
				return nil, err
			}
			return j.obj(), nil
		}
	case "executors":
		if len(rest) == 1 {
			return executorList(a, true, api.nowMs()), nil
		}
		if len(rest) == 3 && rest[2] == "threads" {
			return nil, threadDump(rest[1])
		}
	case "allexecutors":
		if len(rest) == 1 {
			return executorList(a, false, api.nowMs()), nil
		}
	case "stages":
		return api.stages(a, rest[1:], q, path)
	case "storage":
		if len(rest) >= 2 && rest[1] == "rdd" {
			if len(rest) == 2 {
				return rddList(a), nil
			}
			if len(rest) == 3 {
				id, err := strconv.Atoi(rest[2])
				if err == nil {
					if r := a.RDD(id); r != nil {
						return rddInfo(a, r, true), nil
					}
				}
				return nil, notFound("no rdd found w/ id %s", rest[2])
			}
		}
	case "environment":
		if len(rest) == 1 {
			return api.Environment(a).obj(), nil
		}
	case "allmiscellaneousprocess":
		if len(rest) == 1 {
			return miscList(a), nil
		}
	case "sql":
		return api.sql(a, rest, q)
	}
	return nil, notFound("unknown resource: %s", path)
}

// boolParam reads a Jersey boolean query parameter with a default.
func boolParam(q url.Values, name string, def bool) bool {
	v := q.Get(name)
	if v == "" {
		return def
	}
	return strings.EqualFold(v, "true")
}

// MaxLength bounds a page sparkdx builds (?length= of the task and SQL
// lists): a page is built whole in memory before it is written. The
// History Server has no bound, and its clients ask for more than they
// expect (spark-history-cli: /sql?length=100000), so a length is refused
// only when the page it asks for would hold more than MaxLength items;
// ?offset= pages through longer lists.
const MaxLength = 10_000

// lengthParam is intParam for ?length=.
func lengthParam(q url.Values, def int) (int, error) {
	return intParam(q, "length", def)
}

// checkPage refuses a page of length items from offset on over a list of
// n that would hold more than MaxLength of them.
func checkPage(length, offset, n int) error {
	if length <= MaxLength {
		return nil
	}
	if left := n - max(offset, 0); left > MaxLength {
		return badRequest("bad value for parameter \"length\": %d, the page would hold %d items, at most %d (page with offset)",
			length, left, MaxLength)
	}
	return nil
}

func intParam(q url.Values, name string, def int) (int, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, notFound("bad value for parameter %q: %q", name, v)
	}
	return n, nil
}
