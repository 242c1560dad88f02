package fleet

import (
	"net/http"
	"strings"

	"github.com/sparkdx/sparkdx/internal/server/store"
)

// View is the application attempts of the whole fleet, newest start
// first: this instance's and its peers'. Gen changes when the peers' part
// may have (zero without peers); Down names the peers missing from it.
type View struct {
	Apps    []AppSummary
	Records []store.LogRecord // the peers' index records (the History Server list)
	Gen     uint64
	Down    []PeerDown
}

// PeerDown is a peer whose list is missing from a fleet view.
type PeerDown struct {
	URL   string `json:"url"`
	Error string `json:"error"`
}

// MarkDown names the peers missing from a fleet view in the
// X-Sparkdx-Peers-Down header (space-separated URLs).
func MarkDown(w http.ResponseWriter, down []PeerDown) {
	if len(down) == 0 {
		return
	}
	urls := make([]string, len(down))
	for i, d := range down {
		urls[i] = d.URL
	}
	w.Header().Set("X-Sparkdx-Peers-Down", strings.Join(urls, " "))
}
