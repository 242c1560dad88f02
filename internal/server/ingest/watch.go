package ingest

import (
	"log/slog"
	"sync"

	"github.com/sparkdx/sparkdx/internal/s3"

	"github.com/fsnotify/fsnotify"
)

// watcher turns inotify events on local log directories into scans; the
// poll remains the ground truth (inotify can overflow, and S3 has none).
type watcher struct {
	w       *fsnotify.Watcher
	mu      sync.Mutex
	watched map[string]bool
	done    chan struct{}
}

func newWatcher(logger *slog.Logger, wake func()) *watcher {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		logger.Warn("inotify unavailable; polling only", "err", err)
		return nil
	}
	w := &watcher{w: fw, watched: map[string]bool{}, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			select {
			case _, ok := <-fw.Events:
				if !ok {
					return
				}
				wake()
			case _, ok := <-fw.Errors:
				if !ok {
					return
				}
				wake()
			}
		}
	}()
	return w
}

// add watches a local directory once.
func (w *watcher) add(dir string) {
	if w == nil || s3.IsURL(dir) {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watched[dir] {
		return
	}
	if err := w.w.Add(dir); err == nil {
		w.watched[dir] = true
	}
}

func (w *watcher) close() {
	if w == nil {
		return
	}
	w.w.Close()
	<-w.done
}
