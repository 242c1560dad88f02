package sparktest

import (
	"bytes"
	"net/http"
	"testing"

	"google.golang.org/protobuf/proto"
)

// PostOTLPMetrics posts req (a metricpb.MetricsData) as OTLP/HTTP
// protobuf to url+"/v1/metrics", as a sparkdx agent pushes to serve, and
// fails the test unless it is accepted. (A proto.Message, so that
// sparktest needs no OTLP module: exporter/deltaexporter imports it too.)
func PostOTLPMetrics(t testing.TB, url string, req proto.Message) {
	t.Helper()
	body, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url+"/v1/metrics", "application/x-protobuf", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("OTLP push: got %d", resp.StatusCode)
	}
}
