package historyapi

import (
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/model"
)

func appInfo(app *model.App) *Obj {
	atts := make([]any, 0, len(app.Attempts))
	for _, a := range app.Attempts {
		atts = append(atts, attemptInfo(a))
	}
	return obj().Set("id", app.ID).Set("name", app.Name).Set("attempts", atts)
}

func attemptInfo(a *model.Attempt) *Obj {
	o := obj()
	if a.AttemptID != "" {
		o.Set("attemptId", a.AttemptID)
	}
	end := a.EndTime
	if !a.Completed {
		end = -1
	}
	o.Set("startTime", date(a.StartTime)).Set("endTime", date(end)).Set("lastUpdated", date(a.LastUpdated)).
		Set("duration", a.Duration()).Set("sparkUser", a.SparkUser).Set("completed", a.Completed).
		Set("appSparkVersion", a.SparkVersion)
	if a.ExitCode != nil {
		// The application's exit code (SparkListenerApplicationEnd), as
		// Spark 4's History Server gives it.
		o.Set("exitCode", *a.ExitCode)
	}
	// Spark 4.3 answers the log directory's URI for both.
	src := LogSource(a)
	return o.Set("logSourceName", src).Set("logSourceFullPath", src).
		Set("startTimeEpoch", a.StartTime).Set("endTimeEpoch", end).Set("lastUpdatedEpoch", a.LastUpdated)
}

// parseDate reads the History Server's date parameters: either
// "2015-02-03T16:42:40.000GMT" or "2015-02-10" (midnight GMT).
func parseDate(name, s string) (int64, error) {
	for _, layout := range []string{"2006-01-02T15:04:05.000MST", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, badRequest("Couldn't parse date: %s", s)
}

func (api *API) appList(q url.Values) (any, error) {
	bounds := map[string]int64{}
	defaults := map[string]string{"minDate": "2010-01-01", "maxDate": "3000-01-01",
		"minEndDate": "2010-01-01", "maxEndDate": "3000-01-01"}
	for name, def := range defaults {
		v := q.Get(name)
		if v == "" {
			v = def
		}
		t, err := parseDate(name, v)
		if err != nil {
			return nil, err
		}
		bounds[name] = t
	}
	limit := -1
	if q.Get("limit") != "" {
		n, err := intParam(q, "limit", -1)
		if err != nil {
			return nil, err
		}
		limit = n
	}
	includeCompleted, includeRunning := true, true
	if st := q["status"]; len(st) > 0 {
		includeCompleted, includeRunning = false, false
		for _, s := range st {
			switch strings.ToLower(s) {
			case "completed":
				includeCompleted = true
			case "running":
				includeRunning = true
			default:
				return nil, notFound("unknown status: %s", s)
			}
		}
	}
	now := time.Now().UnixMilli()
	if api.Now != nil {
		now = api.Now()
	}
	out := []any{}
	for _, app := range api.appSet() {
		if limit >= 0 && len(out) >= limit {
			break
		}
		running := len(app.Attempts) == 0 || !app.Attempts[0].Completed
		if (running && !includeRunning) || (!running && !includeCompleted) {
			continue
		}
		inRange := false
		for _, a := range app.Attempts {
			startOK := a.StartTime >= bounds["minDate"] && a.StartTime <= bounds["maxDate"]
			endOK := (running && bounds["maxEndDate"] > now) ||
				(!running && a.EndTime >= bounds["minEndDate"] && a.EndTime <= bounds["maxEndDate"])
			inRange = inRange || (startOK && endOK)
		}
		if inRange {
			out = append(out, appInfo(app))
		}
	}
	return out, nil
}

// LogSource is an attempt's logSourceName and logSourceFullPath as Spark
// 4.3 answers both: the URI of the directory its log was read from, as
// Hadoop writes a path ("file:/dir" for a local one); "" when unknown.
func LogSource(a *model.Attempt) string {
	p := strings.TrimRight(a.LogPath, "/")
	if p == "" {
		return ""
	}
	if i := strings.Index(p, "://"); i > 0 {
		if j := strings.LastIndex(p, "/"); j > i+2 {
			return p[:j]
		}
		return p
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = p
	}
	return "file:" + filepath.ToSlash(filepath.Dir(abs))
}
