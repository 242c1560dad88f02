package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// secQuerySizes (item 3): 5,000 quantiles (the red team's 30,000 answered
// 518 MB) and a page of 20,000 of serve's own listings are refused with
// 400 naming the limit, and serve's memory stays where it was.
func secQuerySizes(t *testing.T, bin string) {
	p := startServe(t, bin, sparktest.Path(t, "spark-events"), t.TempDir())
	waitServe(t, p, "")
	before := procStatusKB(t, p.cmd.Process.Pid, "VmRSS")
	qs := strings.TrimSuffix(strings.Repeat("0.5,", 5000), ",")
	for _, c := range []struct{ path, want string }{
		{"/api/v1/applications/app-20200706201101-0003/stages?withSummaries=true&quantiles=" + qs, "at most 100"},
		{"/api/v1/applications/app-20200706201101-0003/stages/2/0/taskSummary?quantiles=" + qs, "at most 100"},
		{"/api/sparkdx/v1/apps?length=20000", "at most 10000"},
	} {
		code, body, _ := request(t, "GET", p.url+c.path, nil, 1<<20)
		if code != 400 || !strings.Contains(string(body), c.want) {
			t.Errorf("GET %.90s…: got %d %.200s, want 400 saying %q", c.path, code, body, c.want)
		}
	}
	// A length past the bound is served when the page holds no more than
	// 10,000 items, as the History Server serves it (spark-history-cli asks
	// /sql?length=100000); a page that would hold more is refused
	// (historyapi TestCheckPage: no shared log has a stage that large).
	for _, path := range []string{
		"/api/v1/applications/local-1430917381534/stages/0/0/taskList?length=20000",
		"/api/v1/applications/local-1430917381534/sql?length=100000",
	} {
		if code, body, _ := request(t, "GET", p.url+path, nil, 1<<20); code != 200 {
			t.Errorf("GET %s: got %d %.200s, want 200 as the History Server answers", path, code, body)
		}
	}
	if grown := procStatusKB(t, p.cmd.Process.Pid, "VmRSS") - before; grown > 100<<10 {
		t.Errorf("serve's RSS grew by %d MiB answering these requests", grown>>10)
	}
}

// secStagePage (item 4): a task that ends before it starts is drawn, not
// a panic that resets the connection on every view of its stage.
func secStagePage(t *testing.T, bin string) {
	const app = "local-1430917381534"
	log := editTaskEnds(sharedLog(t, app), 0, func(line string, i int) string {
		if i == 0 { // launched ten seconds after it finished
			return strings.Replace(line, `"Launch Time":1430917386505`, `"Launch Time":1430917396505`, 1)
		}
		return line
	})
	p := startServe(t, bin, logDir(t, map[string][]byte{app: log}), t.TempDir())
	waitServe(t, p, "")
	for range 2 {
		code, body := get(t, p.url+"/apps/"+app+"/stages/0/0")
		if code != 200 || !bytes.Contains(body, []byte("Stage 0.0")) {
			t.Fatalf("stage page: %d %.200s", code, body)
		}
	}
	if strings.Contains(p.logs.String(), "panic") {
		t.Errorf("serve logged a panic:\n%.2000s", p.logs)
	}
}

// secPageCache (item 5): 200 views of a 1.5 MB page differing in a junk
// parameter hold one copy of it, not 200 (452 took serve from 30 MB to
// 1.2 GB).
func secPageCache(t *testing.T, bin string) {
	const app = "local-1430917381534"
	var props strings.Builder
	for i := range 10_000 {
		fmt.Fprintf(&props, `"spark.sdx.padding.%05d":"%s",`, i, strings.Repeat("v", 120))
	}
	log := bytes.Replace(sharedLog(t, app), []byte(`"Spark Properties":{`), []byte(`"Spark Properties":{`+props.String()), 1)
	p := startServe(t, bin, logDir(t, map[string][]byte{app: log}), t.TempDir())
	waitServe(t, p, "")
	code, page := get(t, p.url+"/apps/"+app+"/environment")
	if code != 200 || len(page) < 1<<20 {
		t.Fatalf("environment page: %d, %d bytes; want a page of more than 1 MiB", code, len(page))
	}
	before := procStatusKB(t, p.cmd.Process.Pid, "VmRSS")
	for i := range 200 {
		if code, _ := get(t, fmt.Sprintf("%s/apps/%s/environment?junk=%d", p.url, app, i)); code != 200 {
			t.Fatalf("view %d: %d", i, code)
		}
	}
	grown := procStatusKB(t, p.cmd.Process.Pid, "VmRSS") - before
	t.Logf("serve's RSS grew by %d MiB over 200 views of one %d KiB page", grown>>10, len(page)>>10)
	if grown > 64<<10 {
		t.Errorf("serve's RSS grew by %d MiB over 200 views of one %d KiB page", grown>>10, len(page)>>10)
	}
}

// secOTLP (item 6): points for thousands of made-up applications are not
// kept beyond a small pending set, and what is dropped is counted.
func secOTLP(t *testing.T, bin string) {
	data := t.TempDir()
	p := startServe(t, bin, sparktest.Path(t, "spark-events"), data)
	waitServe(t, p, "")
	db := filepath.Join(data, "sparkdx.db")
	size := func() int64 {
		fi, err := os.Stat(db)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	now := uint64(time.Now().UnixNano())
	for post := range 4 {
		var pts []*metricpb.NumberDataPoint
		for app := range 5000 {
			for s := range 20 {
				pts = append(pts, &metricpb.NumberDataPoint{TimeUnixNano: now + uint64(post), Value: &metricpb.NumberDataPoint_AsInt{AsInt: 1},
					Attributes: []*commonpb.KeyValue{str("spark.app.id", fmt.Sprintf("app-made-up-%05d", app)), str("spark.executor.id", fmt.Sprint(s))}})
			}
		}
		body, _ := proto.Marshal(&metricpb.MetricsData{ResourceMetrics: []*metricpb.ResourceMetrics{{ScopeMetrics: []*metricpb.ScopeMetrics{{
			Metrics: []*metricpb.Metric{{Name: "jvm.thread.count", Data: &metricpb.Metric_Gauge{Gauge: &metricpb.Gauge{DataPoints: pts}}}}}}}}})
		code, b, _ := request(t, "POST", p.url+"/v1/metrics", bytes.NewReader(body), 1<<20, "Content-Type", "application/x-protobuf")
		if code != 200 {
			t.Fatalf("post %d (%d bytes): %d %s", post, len(body), code, b)
		}
	}
	grown := size() - before
	t.Logf("the store grew by %d KiB from 400,000 points of 20,000 made-up applications", grown>>10)
	if grown > 8<<20 {
		t.Errorf("the store grew by %d MiB from 400,000 points of 20,000 made-up applications", grown>>20)
	}
	_, metrics := get(t, p.url+"/metrics")
	if m := regexp.MustCompile(`sparkdx_serve_otlp_points_dropped_total\{reason="unknown_app"\} (\d+)`).FindSubmatch(metrics); m == nil || string(m[1]) == "0" {
		t.Errorf("/metrics does not count the dropped points:\n%s", grepLines(metrics, "otlp"))
	}
}

// secLongLine (item 7): a 30 MB task end with accumulables, written with
// spaces and "Event" last (a 55 MB one took 1.3 GB), is read in a small
// multiple of itself (peak RSS at most 80 MiB + 8x the line).
func secLongLine(t *testing.T, bin string) {
	const app = "local-1430917381534"
	var line strings.Builder
	line.WriteString(`{"Stage ID": 0, "Stage Attempt ID": 0, "Task Type": "ResultTask", "Task End Reason": {"Reason": "Success"}, ` +
		`"Task Info": {"Task ID": 9999, "Index": 99, "Attempt": 0, "Launch Time": 1430917386505, "Executor ID": "driver", "Host": "localhost", ` +
		`"Locality": "PROCESS_LOCAL", "Speculative": false, "Getting Result Time": 0, "Finish Time": 1430917386919, "Failed": false, ` +
		`"Killed": false, "Accumulables": [`)
	for i := 0; line.Len() < 30<<20; i++ {
		if i > 0 {
			line.WriteString(", ")
		}
		fmt.Fprintf(&line, `{"ID": %d, "Name": "acc%d", "Update": "%d", "Value": "%d", "Internal": false, "Count Failed Values": true}`, 1000+i, i, i, i)
	}
	line.WriteString(`]}, "Event": "SparkListenerTaskEnd"}` + "\n")
	log := sharedLog(t, app)
	cut := bytes.Index(log, []byte(`{"Event":"SparkListenerStageCompleted"`))
	hostile := append(append(append([]byte(nil), log[:cut]...), line.String()...), log[cut:]...)
	p := startServe(t, bin, logDir(t, map[string][]byte{app: hostile}), t.TempDir())
	waitServe(t, p, "")
	hwm := procStatusKB(t, p.cmd.Process.Pid, "VmHWM") << 10
	t.Logf("serve peaked at %d MiB reading a %d MiB line", hwm>>20, line.Len()>>20)
	if bound := int64(80<<20) + 8*int64(line.Len()); hwm > bound { // 763 MiB before issue 32
		t.Errorf("serve peaked at %d MiB reading a %d MiB line, want at most %d MiB", hwm>>20, line.Len()>>20, bound>>20)
	}
	if code, _ := get(t, p.url+"/api/v1/applications/"+app+"/stages/0/0/taskList?length=100"); code != 200 {
		t.Errorf("task list: %d", code)
	}
}

// secImpossible (item 8): run times of 2^62 sum to the int64 maximum, not
// to 0; a task from -2^63 to 2^63 lasts the maximum, not a negative time;
// the log counts them as impossible values.
func secImpossible(t *testing.T, bin string) {
	const app = "local-1430917381534"
	log := editTaskEnds(sharedLog(t, app), 0, func(line string, i int) string {
		line = regexp.MustCompile(`"Executor Run Time":\d+`).ReplaceAllString(line, `"Executor Run Time":4611686018427387904`)
		if i == 0 {
			line = regexp.MustCompile(`"Launch Time":\d+`).ReplaceAllString(line, `"Launch Time":-9223372036854775807`)
			line = regexp.MustCompile(`"Finish Time":\d+`).ReplaceAllString(line, `"Finish Time":9223372036854775807`)
		}
		return line
	})
	p := startServe(t, bin, logDir(t, map[string][]byte{app: log}), t.TempDir())
	waitServe(t, p, "")
	var stage struct {
		ExecutorRunTime int64 `json:"executorRunTime"`
	}
	_, b := get(t, p.url+"/api/v1/applications/"+app+"/stages/0/0")
	if err := json.Unmarshal(b, &stage); err != nil || stage.ExecutorRunTime != math.MaxInt64 {
		t.Errorf("stage 0 executorRunTime: got %d (%v), want %d (held at the maximum)", stage.ExecutorRunTime, err, int64(math.MaxInt64))
	}
	var tasks []struct {
		TaskID   int64 `json:"taskId"`
		Duration int64 `json:"duration"`
	}
	_, b = get(t, p.url+"/api/v1/applications/"+app+"/stages/0/0/taskList?length=1000")
	if err := json.Unmarshal(b, &tasks); err != nil || len(tasks) == 0 {
		t.Fatalf("task list: %v %.200s", err, b)
	}
	for _, tk := range tasks {
		if tk.Duration < 0 {
			t.Errorf("task %d: duration %d", tk.TaskID, tk.Duration)
		}
	}
	_, b = get(t, p.url+"/api/sparkdx/v1/logs")
	if !regexp.MustCompile(`"impossibleValues":[1-9]`).Match(b) {
		t.Errorf("/api/sparkdx/v1/logs counts no impossible value: %.400s", b)
	}
	_, metrics := get(t, p.url+"/metrics")
	for _, l := range strings.Split(grepLines(metrics, app), "\n") {
		if f := strings.Fields(l); len(f) == 2 && strings.HasPrefix(f[1], "-") && strings.Contains(f[0], "seconds") {
			t.Errorf("/metrics: negative duration %s", l)
		}
	}
}

// grepLines is the lines of b holding s.
func grepLines(b []byte, s string) string {
	var out []string
	for l := range strings.Lines(string(b)) {
		if strings.Contains(l, s) && !strings.HasPrefix(l, "#") {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return strings.Join(out, "\n")
}

// secAppIDs (item 9): two logs of one application are one application
// in the REST API and in /metrics (the last changed), the other listed as
// a duplicate; an id holding "/" is reachable as %2F.
func secAppIDs(t *testing.T, bin string) {
	const app = "local-1430917381534"
	orig := sharedLog(t, app)
	again := bytes.ReplaceAll(orig, []byte(`"App Name":"Spark shell"`), []byte(`"App Name":"Spark shell, again"`))
	slash := bytes.ReplaceAll(orig, []byte(app), []byte("team/etl-7"))
	dir := logDir(t, map[string][]byte{app: orig, "copy-of-" + app: again, "etl-7": slash})
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, app), old, old)
	p := startServe(t, bin, dir, t.TempDir(), "--metrics-window", "876000h")
	waitServe(t, p, "")
	var list []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	_, b := get(t, p.url+"/api/v1/applications")
	json.Unmarshal(b, &list)
	var names []string
	for _, a := range list {
		if a.ID == app {
			names = append(names, a.Name)
		}
	}
	if len(names) != 1 || names[0] != "Spark shell, again" {
		t.Errorf("History Server list: %q for %s, want the log changed last only", names, app)
	}
	_, metrics := get(t, p.url+"/metrics")
	if info := grepLines(metrics, `spark_app_info{`); strings.Count(info, `app_id="`+app+`"`) != 1 || !strings.Contains(info, "again") {
		t.Errorf("/metrics spark_app_info:\n%s\nwant %s once, the log changed last", info, app)
	}
	_, b = get(t, p.url+"/api/sparkdx/v1/logs")
	if !bytes.Contains(b, []byte(`"state":"duplicate"`)) {
		t.Errorf("/api/sparkdx/v1/logs lists no duplicate: %.500s", b)
	}
	for _, path := range []string{"/api/v1/applications/team%2Fetl-7/jobs", "/api/sparkdx/v1/apps/team%2Fetl-7/report", "/apps/team%2Fetl-7"} {
		if code, body := get(t, p.url+path); code != 200 {
			t.Errorf("GET %s: %d %.200s", path, code, body)
		}
	}
}

// secRedirect (item 10): the token login redirects to this server only.
func secRedirect(t *testing.T, bin string) {
	tok := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tok, []byte("s3cret\n"), 0o600)
	p := startServe(t, bin, t.TempDir(), t.TempDir(), "--auth-token-file", tok)
	waitServe(t, p, "s3cret")
	for _, path := range []string{"//evil.example.com/?token=s3cret", "///evil.example.com/?token=s3cret", `/\evil.example.com/?token=s3cret`} {
		code, loc := sparktest.RawGet(t, p.url, path)
		if code != 303 || !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, `/\`) {
			t.Errorf("GET %s: %d Location %q, want 303 to a path of this server", path, code, loc)
		}
	}
}

// secWriteFailures (item 12): with every file write failing (the file
// size limit of the process at 0: as a full disk under --data and
// --delta), /healthz says degraded and /metrics counts the failures.
func secWriteFailures(t *testing.T, bin string) {
	logs, data, deltaDir := t.TempDir(), t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(logs, "local-1430917381534"), sharedLog(t, "local-1430917381534"), 0o644)
	p := startServe(t, bin, logs, data, "--delta", deltaDir)
	waitServe(t, p, "")
	if _, b := get(t, p.url+"/healthz"); !bytes.Contains(b, []byte(`"status":"ok"`)) {
		t.Fatalf("/healthz before: %s", b)
	}
	limitFileSize(t, p.cmd.Process.Pid, 0)
	os.WriteFile(filepath.Join(logs, "local-1422981759269"), sharedLog(t, "local-1422981759269"), 0o644)
	var health []byte
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if _, health = get(t, p.url+"/healthz"); bytes.Contains(health, []byte(`"degraded"`)) {
			break
		}
	}
	if !bytes.Contains(health, []byte(`"degraded"`)) || !bytes.Contains(health, []byte("writes fail")) {
		t.Errorf("/healthz while writes fail: %s", health)
	}
	_, metrics := get(t, p.url+"/metrics")
	if !regexp.MustCompile(`sparkdx_serve_(store|delta)_write_errors_total(\{table="apps"\})? [1-9]`).Match(metrics) {
		t.Errorf("/metrics counts no failed write:\n%s", grepLines(metrics, "write_errors"))
	}
}
