package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/model"
)

// Log replays one opened log.
func Log(ctx context.Context, l *eventlog.Log, opts Options) (*model.Attempt, *Stats, error) {
	r, err := l.NewReader(ctx)
	if err != nil {
		return nil, nil, err // names the log already
	}
	defer r.Close()
	if opts.Name == "" {
		opts.Name = l.Name
	}
	opts.InProgress = opts.InProgress || l.InProgress
	if opts.SizeHint == 0 {
		opts.SizeHint = l.Size
	}
	var in io.Reader = r
	if opts.Wrap != nil {
		in = opts.Wrap(r)
	}
	// Outside the wrap, so a progress bar does not lift the limit.
	in = r.LimitRatio(in, opts.MaxRatio)
	a, stats, err := Read(ctx, in, opts)
	if err != nil {
		return nil, stats, err
	}
	stats.Truncated = stats.Truncated || r.Truncated()
	a.LogPath, a.LogName = l.Path, l.Name
	if !l.ModTime.IsZero() {
		a.LastUpdated = l.ModTime.UnixMilli()
	}
	return a, stats, nil
}

// LoadApps replays every log at path (a file, a rolling dir or a dir of
// logs) and groups the attempts into applications, newest first as the
// History Server lists them. Logs without an application id are skipped.
// Like the History Server, a log that cannot be read is left out: its
// error is joined into the returned error while the other applications
// are still returned.
func LoadApps(ctx context.Context, path string, opts Options) ([]*model.App, error) {
	logs, err := eventlog.Open(ctx, path, eventlog.OpenOptions{})
	if err != nil {
		return nil, fmt.Errorf("eventlog: %w", err)
	}
	var attempts []*model.Attempt
	var errs []error
	for _, l := range logs {
		a, _, err := Log(ctx, l, opts)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			errs = append(errs, err)
			continue
		}
		if a.AppID == "" {
			continue
		}
		attempts = append(attempts, a)
	}
	return GroupApps(attempts), errors.Join(errs...)
}

// GroupApps groups attempts by application id: attempts newest start first,
// applications by the end time of their newest attempt, latest first.
func GroupApps(attempts []*model.Attempt) []*model.App {
	byID := map[string]*model.App{}
	var apps []*model.App
	for _, a := range attempts {
		app := byID[a.AppID]
		if app == nil {
			app = &model.App{ID: a.AppID}
			byID[a.AppID] = app
			apps = append(apps, app)
		}
		// Two logs of the same attempt (say, a copy in another codec): the
		// History Server keeps one; keep the most recently updated.
		dup := false
		for i, b := range app.Attempts {
			if b.AttemptID == a.AttemptID {
				dup = true
				if a.LastUpdated >= b.LastUpdated {
					app.Attempts[i] = a
				}
			}
		}
		if !dup {
			app.Attempts = append(app.Attempts, a)
		}
	}
	for _, app := range apps {
		sort.SliceStable(app.Attempts, func(i, j int) bool { return app.Attempts[i].StartTime > app.Attempts[j].StartTime })
		app.Name = app.Attempts[0].AppName
	}
	sort.SliceStable(apps, func(i, j int) bool {
		ei, ej := apps[i].Attempts[0].EndTime, apps[j].Attempts[0].EndTime
		if ei != ej {
			return ei > ej
		}
		return apps[i].ID > apps[j].ID
	})
	return apps
}
