package historyapi

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

// ServeHTTP serves /api/v1/... as the History Server does: JSON bodies,
// errors as plain text with their status, and .../logs as a zip.
func (api *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Server", ServerHeader())
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if appID, attemptID, ok := logsPath(r.URL.Path); ok {
		atts, err := api.logAttempts(appID, attemptID)
		if err != nil {
			writeError(w, err.Error(), StatusOf(err))
			return
		}
		name := appID
		if attemptID != "" {
			name += "_" + attemptID
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%s_eventLogs.zip", name))
		if err := WriteLogsZip(r.Context(), w, atts, api.Files); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
		return
	}
	v, err := api.get(r.URL.Path, r.URL.Query())
	if err != nil {
		writeError(w, err.Error(), StatusOf(err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(Marshal(v))
}

// writeError answers an error as the History Server does: its message as
// plain text, without the newline http.Error adds (clients print the body).
func writeError(w http.ResponseWriter, msg string, status int) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	io.WriteString(w, msg)
}

// logsPath matches applications/{app}/logs and applications/{app}/{attempt}/logs.
func logsPath(p string) (app, attempt string, ok bool) {
	p = strings.Trim(strings.TrimPrefix(strings.TrimPrefix(p, "/"), "api/v1/"), "/")
	seg := strings.Split(p, "/")
	switch {
	case len(seg) == 3 && seg[0] == "applications" && seg[2] == "logs":
		return seg[1], "", true
	case len(seg) == 4 && seg[0] == "applications" && seg[3] == "logs":
		return seg[1], seg[2], true
	}
	return "", "", false
}

// Logs writes the zip of event logs that .../logs returns for a path such
// as "applications/local-1430917381535/1/logs"; ok is false for other paths.
func (api *API) Logs(ctx context.Context, w io.Writer, path string) (ok bool, err error) {
	appID, attemptID, ok := logsPath(path)
	if !ok {
		return false, nil
	}
	atts, err := api.logAttempts(appID, attemptID)
	if err != nil {
		return true, err
	}
	return true, WriteLogsZip(ctx, w, atts, api.Files)
}

func (api *API) logAttempts(appID, attemptID string) ([]*model.Attempt, error) {
	app := api.app(appID)
	if app == nil {
		return nil, notFound("unknown app: %s", appID)
	}
	if attemptID == "" {
		return app.Attempts, nil
	}
	for _, a := range app.Attempts {
		if a.AttemptID == attemptID {
			return []*model.Attempt{a}, nil
		}
	}
	return nil, notFound("unknown app: %s/%s", appID, attemptID)
}

// LogFiles calls fn with each stored file of the event log at path (the
// file itself, or every file of a log directory) and its name relative to
// the log's parent directory; eventlog.WalkFiles is one, for local and S3
// logs.
type LogFiles func(ctx context.Context, path string, fn func(name string, r io.Reader) error) error

// WriteLogsZip writes each attempt's log (a file, or a rolling directory
// with its files) into a zip, named as in the log directory. files reads
// them; local files when nil.
func WriteLogsZip(ctx context.Context, w io.Writer, atts []*model.Attempt, files LogFiles) error {
	if files == nil {
		files = localLogFiles
	}
	zw := zip.NewWriter(w)
	for _, a := range atts {
		if a.LogPath == "" {
			continue
		}
		dirs := map[string]bool{}
		err := files(ctx, a.LogPath, func(name string, r io.Reader) error {
			// As Spark zips a rolling log: its directory's entry first,
			// then its files, without Hadoop's hidden .crc checksums.
			dir, base := path.Split(name)
			if strings.HasPrefix(base, ".") && strings.HasSuffix(base, ".crc") {
				return nil
			}
			if dir != "" && !dirs[dir] {
				dirs[dir] = true
				if _, err := zw.Create(dir); err != nil {
					return err
				}
			}
			out, err := zw.Create(name)
			if err != nil {
				return err
			}
			_, err = io.Copy(out, r)
			return err
		})
		if err != nil {
			return fmt.Errorf("historyapi: logs: %w", err)
		}
	}
	return zw.Close()
}

// localLogFiles is LogFiles over the local filesystem.
func localLogFiles(_ context.Context, path string, fn func(name string, r io.Reader) error) error {
	base := filepath.Dir(path)
	return filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(base, p)
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return fn(filepath.ToSlash(rel), f)
	})
}
