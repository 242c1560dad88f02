package server

import (
	"context"
	"net/http"

	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/regress"
	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/server/peers"
)

// source is the server as the pages' web.Source.
type source struct{ s *Server }

func (x source) Summaries() []fleet.AppSummary { return x.s.summaries() }

func (x source) Fleet(ctx context.Context) fleet.View { return x.s.fleetApps(ctx) }

func (x source) App(ctx context.Context, appID string) (*model.App, func(), error) {
	return x.s.fullApp(ctx, appID)
}

func (x source) Diff(ctx context.Context, a, b string) ([]byte, int, error) {
	body, status, err := x.s.diffJSON(ctx, a, b)
	if err != nil && status == 0 {
		status = http.StatusInternalServerError
	}
	return body, status, err
}

func (x source) Jobs(ctx context.Context) []regress.Job { return x.s.jobList(ctx, x.s.regressConfig()) }

func (x source) Job(ctx context.Context, key string) (regress.Job, bool) { return x.s.job(ctx, key) }

// appIndex is the server's index as the OTLP receiver's otlpin.Apps.
type appIndex struct{ s *Server }

func (x appIndex) Version() uint64 { return x.s.cfg.Ingest.Version() }

func (x appIndex) IDs() []string {
	apps := x.s.summaries()
	ids := make([]string, len(apps))
	for i, a := range apps {
		ids[i] = a.ID
	}
	return ids
}

// fleetApps returns the fleet's application attempts; without peers,
// this instance's. The list is shared until this instance's summaries or
// the peers' lists change (callers must not change it).
func (s *Server) fleetApps(ctx context.Context) fleet.View {
	local := s.summaryList()
	if s.peers == nil {
		return fleet.View{Apps: local.apps}
	}
	return s.peers.Fleet(ctx, peers.Local{Apps: local.apps, Version: local.version, Built: local.built})
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

// IngestMetrics keeps the points of req that name a Spark application —
// an agent's OTLP push, or Spark's own sinks as package sinks maps them —
// as the OTLP receiver does (otlpin.Receiver.IngestMetrics).
func (s *Server) IngestMetrics(ctx context.Context, req *metricpb.MetricsData) error {
	return s.otlp.IngestMetrics(ctx, req)
}
