package deploy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

const chart = "helm/sparkdx"

// operatorAPIs makes helm render as if the Prometheus Operator's CRDs exist.
var operatorAPIs = []string{"--api-versions", "monitoring.coreos.com/v1/ServiceMonitor",
	"--api-versions", "monitoring.coreos.com/v1/PodMonitor", "--api-versions", "monitoring.coreos.com/v1/PrometheusRule"}

type object = map[string]any

// get walks a path of map keys and list indexes through decoded YAML.
func get(o any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := o.(map[string]any)
			if !ok {
				return nil
			}
			o = m[k]
		case int:
			l, ok := o.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			o = l[k]
		}
	}
	return o
}

func str(o any, path ...any) string { s, _ := get(o, path...).(string); return s }

func helm(t *testing.T, args ...string) []byte {
	t.Helper()
	bin := sparktest.Program(t, "helm")
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// render runs helm template and decodes every object.
func render(t *testing.T, args ...string) map[string]object {
	t.Helper()
	out := helm(t, append([]string{"template", "rel", chart, "--namespace", "obs"}, args...)...)
	objs := map[string]object{}
	dec := yaml.NewDecoder(bytes.NewReader(out))
	for {
		var o object
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("rendered YAML: %v", err)
		}
		if o == nil {
			continue
		}
		kind, name := str(o, "kind"), str(o, "metadata", "name")
		if str(o, "apiVersion") == "" || kind == "" || name == "" {
			t.Errorf("object without apiVersion, kind or metadata.name: %v", o)
			continue
		}
		key := kind + "/" + name
		if _, dup := objs[key]; dup {
			t.Errorf("%s rendered twice", key)
		}
		objs[key] = o
	}
	return objs
}

func TestHelmLint(t *testing.T) {
	helm(t, "lint", "--strict", chart)
	helm(t, "lint", "--strict", chart, "-f", filepath.Join(chart, "ci", "full-values.yaml"))
}

func kinds(objs map[string]object) []string {
	var out []string
	for k := range objs {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestHelmTemplate(t *testing.T) {
	dashboards := []string{"ConfigMap/rel-sparkdx-dashboard-driver-health", "ConfigMap/rel-sparkdx-dashboard-executor-memory",
		"ConfigMap/rel-sparkdx-dashboard-job-phase-timeline", "ConfigMap/rel-sparkdx-dashboard-node-processes",
		"ConfigMap/rel-sparkdx-dashboard-profiling", "ConfigMap/rel-sparkdx-dashboard-streaming"}
	base := append([]string{"DaemonSet/rel-sparkdx-agent", "Secret/rel-sparkdx-agent-token", "Deployment/rel-sparkdx-server",
		"PersistentVolumeClaim/rel-sparkdx-data", "Service/rel-sparkdx-server", "ServiceAccount/rel-sparkdx"}, dashboards...)
	for _, tc := range []struct {
		name  string
		args  []string
		want  []string
		otlp  bool
		check func(*testing.T, map[string]object)
	}{
		// By default serve keeps every application, writes Delta on its
		// data volume, and the agents push OTLP to it (no token: serve
		// has none); no sink ports.
		{"default", nil, base, false, func(t *testing.T, objs map[string]object) {
			checkAgentArgs(t, objs, []string{"--spark-rest-interval=30s", "--otlp-endpoint=http://rel-sparkdx-server.obs.svc:18080",
				"--otlp-protocol=http/protobuf"}, []string{"--heap-dump-at"})
			checkServerArgs(t, objs, []string{"--delta=/data/delta", "--delta-flush-interval=1m"},
				[]string{"--auth-token-file", "--graphite-listen", "--statsd-listen"})
			if _, ok := envOf(get(objs["DaemonSet/rel-sparkdx-agent"], "spec", "template", "spec", "containers", 0))["OTEL_EXPORTER_OTLP_METRICS_HEADERS"]; ok {
				t.Error("agent: an OTLP header without serve's token")
			}
			args := get(objs["Deployment/rel-sparkdx-server"], "spec", "template", "spec", "containers", 0, "args").([]any)
			for _, a := range args {
				if s, _ := a.(string); strings.HasPrefix(s, "--app-max-age") || strings.HasPrefix(s, "--max-finished-apps") {
					t.Errorf("default server args %v bound the applications kept: %s", args, s)
				}
			}
		}},
		{"default with operator CRDs", operatorAPIs,
			append(slices.Clone(base), "PodMonitor/rel-sparkdx-agent", "PrometheusRule/rel-sparkdx", "ServiceMonitor/rel-sparkdx-server"), false, nil},
		{"full", append([]string{"-f", filepath.Join(chart, "ci", "full-values.yaml")}, operatorAPIs...),
			append(slices.Clone(base), "ConfigMap/rel-sparkdx-rules", "PodMonitor/rel-sparkdx-agent", "PrometheusRule/rel-sparkdx",
				"ServiceMonitor/rel-sparkdx-server"), true, checkFull},
		// Spark's own endpoints on driver pods, both paths on the UI port.
		{"spark pod monitor", append([]string{"--set", "sparkPodMonitor.enabled=true"}, operatorAPIs...),
			append(slices.Clone(base), "PodMonitor/rel-sparkdx-agent", "PodMonitor/rel-sparkdx-spark-drivers", "PrometheusRule/rel-sparkdx",
				"ServiceMonitor/rel-sparkdx-server"), false, func(t *testing.T, objs map[string]object) {
				pm := objs["PodMonitor/rel-sparkdx-spark-drivers"]
				if got := str(pm, "spec", "selector", "matchLabels", "spark-role"); got != "driver" {
					t.Errorf("spark pod monitor selects spark-role %q, want driver", got)
				}
				if get(pm, "spec", "namespaceSelector", "any") != true {
					t.Errorf("spark pod monitor: namespaceSelector %v, want any (Spark apps run in their own namespaces)", get(pm, "spec", "namespaceSelector"))
				}
				eps, _ := get(pm, "spec", "podMetricsEndpoints").([]any)
				var paths []string
				for _, ep := range eps {
					if port := str(ep, "port"); port != "spark-ui" {
						t.Errorf("endpoint port %q, want spark-ui (the driver pod's UI port)", port)
					}
					paths = append(paths, str(ep, "path"))
				}
				if !slices.Equal(paths, []string{"/metrics/executors/prometheus", "/metrics/prometheus"}) {
					t.Errorf("got paths %v, want the executors' and the driver's endpoints", paths)
				}
			}},
		// Several serve instances: a StatefulSet sharing the logs by shard.
		{"several serve replicas", append([]string{"--set", "server.replicas=3"}, operatorAPIs...),
			append([]string{"DaemonSet/rel-sparkdx-agent", "Secret/rel-sparkdx-agent-token", "StatefulSet/rel-sparkdx-server", "Service/rel-sparkdx-server",
				"Service/rel-sparkdx-server-headless", "ServiceAccount/rel-sparkdx", "PodMonitor/rel-sparkdx-agent",
				"PrometheusRule/rel-sparkdx", "ServiceMonitor/rel-sparkdx-server"}, dashboards...), false, checkShards},
		// Heap dumps without upload: the host directory is mounted
		// writable at the same path (the Spark pods mount it there too), a
		// driver threshold of 0 never dumps the driver.
		{"heap dumps", []string{"--set", "agent.heapDumpAt=0.9", "--set", "agent.heapDumpDir=/var/lib/sparkdx/heapdumps",
			"--set", "agent.heapDumpAtDriver=0"}, base, false, checkHeapDumps},
		// Dumps to ADLS Gen2 with AKS workload identity; to GCS with a key
		// file from a Secret.
		{"heap dumps to azure", []string{"--set", "agent.heapDumpAt=0.9", "--set", "agent.heapDumpDir=/var/lib/sparkdx/heapdumps",
			"--set", "agent.heapDumpUpload=abfss://dumps@acct.dfs.core.windows.net/prod", "--set-string", "agent.podLabels.azure\\.workload\\.identity/use=true"},
			base, false, func(t *testing.T, objs map[string]object) {
				checkAgentArgs(t, objs, []string{"--heap-dump-upload=abfss://dumps@acct.dfs.core.windows.net/prod"}, nil)
				labels := get(objs["DaemonSet/rel-sparkdx-agent"], "spec", "template", "metadata", "labels")
				if got := str(labels, "azure.workload.identity/use"); got != "true" {
					t.Errorf("got pod label azure.workload.identity/use %q, want true", got)
				}
			}},
		{"heap dumps to gcs", []string{"--set", "agent.heapDumpAt=0.9", "--set", "agent.heapDumpDir=/var/lib/sparkdx/heapdumps",
			"--set", "agent.heapDumpUpload=gs://dumps/prod", "--set", "agent.env[0].name=GOOGLE_APPLICATION_CREDENTIALS",
			"--set", "agent.env[0].value=/etc/gcs/key.json", "--set", "agent.extraVolumes[0].name=gcs",
			"--set", "agent.extraVolumes[0].secret.secretName=gcs-key", "--set", "agent.extraVolumeMounts[0].name=gcs",
			"--set", "agent.extraVolumeMounts[0].mountPath=/etc/gcs"},
			base, false, func(t *testing.T, objs map[string]object) {
				checkAgentArgs(t, objs, []string{"--heap-dump-upload=gs://dumps/prod"}, nil)
				spec := get(objs["DaemonSet/rel-sparkdx-agent"], "spec", "template", "spec")
				for _, want := range []string{"name:gcs secret:map[secretName:gcs-key]"} {
					if !strings.Contains(fmt.Sprint(get(spec, "volumes")), want) {
						t.Errorf("agent volumes %v lack %s", get(spec, "volumes"), want)
					}
				}
				if !strings.Contains(fmt.Sprint(get(spec, "containers", 0, "volumeMounts")), "mountPath:/etc/gcs name:gcs") {
					t.Errorf("agent mounts %v lack the key's", get(spec, "containers", 0, "volumeMounts"))
				}
			}},
		// The driver REST reads: on by default, off with 0 as with 0s.
		{"spark rest off", []string{"--set", "agent.sparkRESTInterval=0"}, base, false, func(t *testing.T, objs map[string]object) {
			checkAgentArgs(t, objs, []string{"--spark-rest-interval=0"}, []string{"--spark-rest-interval=30s"})
		}},
		// The agent's token from a Secret the user gives: none rendered,
		// the DaemonSet and the PodMonitor use the one named.
		{"agent token secret given", append([]string{"--set", "agent.auth.existingSecret=ops-agent-token"}, operatorAPIs...),
			append(slices.DeleteFunc(slices.Clone(base), func(k string) bool { return k == "Secret/rel-sparkdx-agent-token" }),
				"PodMonitor/rel-sparkdx-agent", "PrometheusRule/rel-sparkdx", "ServiceMonitor/rel-sparkdx-server"), false, nil},
		// serve's token from a Secret the chart makes: serve reads it,
		// the agents send it on their OTLP push, the ServiceMonitor too.
		{"serve token", append([]string{"--set", "server.auth.enabled=true"}, operatorAPIs...),
			append(slices.Clone(base), "Secret/rel-sparkdx-server-token", "PodMonitor/rel-sparkdx-agent", "PrometheusRule/rel-sparkdx",
				"ServiceMonitor/rel-sparkdx-server"), false, func(t *testing.T, objs map[string]object) {
				checkServerArgs(t, objs, []string{"--auth-token-file=/etc/sparkdx/server-token/token"}, nil)
				checkServerToken(t, objs, "rel-sparkdx-server-token")
			}},
		// ... or from the user's Secret: none rendered.
		{"serve token secret given", []string{"--set", "server.auth.enabled=true", "--set", "server.auth.existingSecret=ops-serve"},
			base, false, func(t *testing.T, objs map[string]object) { checkServerToken(t, objs, "ops-serve") }},
		// Delta on S3 (no volume), or off.
		{"delta on s3", []string{"--set", "server.delta=s3://lake/sparkdx", "--set", "server.deltaFlushInterval=30s"}, base, false,
			func(t *testing.T, objs map[string]object) {
				checkServerArgs(t, objs, []string{"--delta=s3://lake/sparkdx", "--delta-flush-interval=30s"}, nil)
				if vols := fmt.Sprint(get(objs["Deployment/rel-sparkdx-server"], "spec", "template", "spec", "volumes")); strings.Contains(vols, "name:delta") {
					t.Errorf("delta on s3 mounts a volume: %s", vols)
				}
			}},
		{"delta off", []string{"--set", "server.delta="}, base, false, func(t *testing.T, objs map[string]object) {
			checkServerArgs(t, objs, nil, []string{"--delta"})
		}},
		// Delta on a volume of its own, mounted at the path.
		{"delta volume", []string{"--set", "server.delta=/lake", "--set", "server.deltaVolume.persistentVolumeClaim.claimName=lake"}, base, false,
			func(t *testing.T, objs map[string]object) {
				checkServerArgs(t, objs, []string{"--delta=/lake"}, nil)
				spec := get(objs["Deployment/rel-sparkdx-server"], "spec", "template", "spec")
				if !strings.Contains(fmt.Sprint(get(spec, "containers", 0, "volumeMounts")), "mountPath:/lake name:delta") ||
					!strings.Contains(fmt.Sprint(get(spec, "volumes")), "claimName:lake") {
					t.Errorf("delta volume not mounted at /lake: %v", get(spec, "containers", 0, "volumeMounts"))
				}
			}},
		// Spark's sinks: serve listens, its pod and Service expose them.
		{"sinks", []string{"--set", "server.sinks.graphitePort=2003", "--set", "server.sinks.statsdPort=8125"}, base, false,
			func(t *testing.T, objs map[string]object) {
				checkServerArgs(t, objs, []string{"--graphite-listen=0.0.0.0:2003", "--statsd-listen=0.0.0.0:8125"}, nil)
				ports := fmt.Sprint(get(objs["Service/rel-sparkdx-server"], "spec", "ports"))
				for _, want := range []string{"name:graphite port:2003 protocol:TCP", "name:statsd port:8125 protocol:UDP"} {
					if !strings.Contains(ports, want) {
						t.Errorf("service ports %s lack %s", ports, want)
					}
				}
			}},
		// No serve: the agents push nowhere.
		{"agents without serve", []string{"--set", "server.enabled=false"},
			slices.DeleteFunc(slices.Clone(base), func(k string) bool { return strings.Contains(k, "server") || strings.Contains(k, "data") }),
			false, func(t *testing.T, objs map[string]object) { checkAgentArgs(t, objs, nil, []string{"--otlp-endpoint"}) }},
		// The chart's default protocol is grpc: agents push over it too.
		{"otlp over grpc", []string{"--set", "monitoring.openTelemetry.enabled=true",
			"--set", "monitoring.openTelemetry.endpoint=http://collector:4317"}, base, true, func(t *testing.T, objs map[string]object) {
			args := get(objs["DaemonSet/rel-sparkdx-agent"], "spec", "template", "spec", "containers", 0, "args").([]any)
			for _, want := range []string{"--otlp-endpoint=http://collector:4317", "--otlp-protocol=grpc"} {
				if !slices.Contains(args, any(want)) {
					t.Errorf("agent args %v lack %s", args, want)
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := render(t, tc.args...)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if got := kinds(objs); !slices.Equal(got, want) {
				t.Fatalf("got objects\n%v\nwant\n%v", got, want)
			}
			checkWorkloads(t, objs)
			checkAgent(t, objs["DaemonSet/rel-sparkdx-agent"])
			checkAgentToken(t, objs)
			checkServerHosts(t, objs)
			checkDashboards(t, objs)
			checkOTLP(t, objs["Deployment/rel-sparkdx-server"], tc.otlp)
			if pr := objs["PrometheusRule/rel-sparkdx"]; pr != nil {
				checkRules(t, get(pr, "spec"))
			}
			if cm := objs["ConfigMap/rel-sparkdx-rules"]; cm != nil {
				var rules any
				if err := yaml.Unmarshal([]byte(str(cm, "data", "sparkdx-rules.yml")), &rules); err != nil {
					t.Fatal(err)
				}
				checkRules(t, rules)
			}
			if tc.check != nil {
				tc.check(t, objs)
			}
		})
	}
}

// checkWorkloads: selectors match pod labels, containers have an image,
// resource limits and named ports, and Services and monitors point at
// ports that exist.
func checkWorkloads(t *testing.T, objs map[string]object) {
	t.Helper()
	ports := map[string]bool{}
	for key, o := range objs {
		if k := str(o, "kind"); k != "Deployment" && k != "DaemonSet" && k != "StatefulSet" {
			continue
		}
		sel, _ := get(o, "spec", "selector", "matchLabels").(map[string]any)
		labels, _ := get(o, "spec", "template", "metadata", "labels").(map[string]any)
		if len(sel) == 0 {
			t.Errorf("%s: empty selector", key)
		}
		for k, v := range sel {
			if labels[k] != v {
				t.Errorf("%s: selector %s=%v, pod label %v", key, k, v, labels[k])
			}
		}
		containers, _ := get(o, "spec", "template", "spec", "containers").([]any)
		if len(containers) == 0 {
			t.Fatalf("%s: no containers", key)
		}
		for _, c := range containers {
			if !strings.HasPrefix(str(c, "image"), "ghcr.io/sparkdx/sparkdx:") {
				t.Errorf("%s: image %q", key, str(c, "image"))
			}
			if get(c, "resources", "limits", "memory") == nil || get(c, "resources", "limits", "cpu") == nil {
				t.Errorf("%s: no cpu and memory limits", key)
			}
			if get(c, "securityContext", "allowPrivilegeEscalation") != false {
				t.Errorf("%s: privilege escalation not disabled", key)
			}
			ps, _ := get(c, "ports").([]any)
			for _, p := range ps {
				ports[str(p, "name")] = true
			}
		}
	}
	for key, o := range objs {
		switch str(o, "kind") {
		case "Service":
			for _, p := range get(o, "spec", "ports").([]any) {
				if !ports[str(p, "targetPort")] {
					t.Errorf("%s: targetPort %q is no container port", key, str(p, "targetPort"))
				}
			}
		case "ServiceMonitor":
			if p := str(o, "spec", "endpoints", 0, "port"); p != "http" {
				t.Errorf("%s: endpoint port %q, want the Service's http", key, p)
			}
		case "PodMonitor":
			if str(o, "spec", "selector", "matchLabels", "spark-role") != "" {
				continue // Spark's own pods, not the chart's: checked by its case
			}
			if p := str(o, "spec", "podMetricsEndpoints", 0, "port"); !ports[p] {
				t.Errorf("%s: port %q is no container port", key, p)
			}
		}
	}
}

// checkAgent: host PID namespace, /proc and cgroups read-only, every
// capability dropped but the two that read other users' /proc entries.
func checkAgent(t *testing.T, ds object) {
	t.Helper()
	spec := get(ds, "spec", "template", "spec")
	if get(spec, "hostPID") != true {
		t.Error("agent: hostPID is not true")
	}
	c := get(spec, "containers", 0)
	if got := get(c, "securityContext", "capabilities", "drop"); !reflect.DeepEqual(got, []any{"ALL"}) {
		t.Errorf("agent: drops %v, want [ALL]", got)
	}
	if got := get(c, "securityContext", "capabilities", "add"); !reflect.DeepEqual(got, []any{"SYS_PTRACE", "DAC_READ_SEARCH"}) {
		t.Errorf("agent: adds %v, want [SYS_PTRACE DAC_READ_SEARCH]", got)
	}
	if get(c, "securityContext", "privileged") == true {
		t.Error("agent: privileged")
	}
	mounts := map[string]any{}
	for _, m := range get(c, "volumeMounts").([]any) {
		mounts[str(m, "name")] = m
	}
	for _, v := range get(spec, "volumes").([]any) {
		if get(v, "hostPath") == nil || str(v, "name") == "heapdumps" {
			continue
		}
		if m := mounts[str(v, "name")]; get(m, "readOnly") != true {
			t.Errorf("agent: host path %s mounted writable", str(v, "hostPath", "path"))
		}
	}
	args := get(c, "args").([]any)
	for _, want := range []string{"agent", "--proc=/host/proc", "--cgroup=/host/sys/fs/cgroup"} {
		if !slices.Contains(args, any(want)) {
			t.Errorf("agent: args %v lack %s", args, want)
		}
	}
}

// checkAgentToken: the agent listens on its pod's address only, reads its
// bearer token from a Secret, and the PodMonitor scrapes with that token
// (issue 32: the DaemonSet listened on 0.0.0.0 without one).
func checkAgentToken(t *testing.T, objs map[string]object) {
	t.Helper()
	spec := get(objs["DaemonSet/rel-sparkdx-agent"], "spec", "template", "spec")
	c := get(spec, "containers", 0)
	args := get(c, "args").([]any)
	for _, want := range []string{"--listen=[$(POD_IP)]:9877", "--auth-token-file=/etc/sparkdx/agent-token/token"} {
		if !slices.Contains(args, any(want)) {
			t.Errorf("agent: args %v lack %s", args, want)
		}
	}
	podIP := false
	for _, e := range get(c, "env").([]any) {
		podIP = podIP || str(e, "name") == "POD_IP" && str(e, "valueFrom", "fieldRef", "fieldPath") == "status.podIP"
	}
	if !podIP {
		t.Error("agent: no POD_IP from status.podIP")
	}
	secret := ""
	for _, v := range get(spec, "volumes").([]any) {
		if str(v, "name") == "token" {
			secret = str(v, "secret", "secretName")
		}
	}
	mounted := false
	for _, m := range get(c, "volumeMounts").([]any) {
		mounted = mounted || str(m, "name") == "token" && str(m, "mountPath") == "/etc/sparkdx/agent-token"
	}
	if secret == "" || !mounted {
		t.Fatalf("agent: token volume from Secret %q, mounted %v", secret, mounted)
	}
	if s := objs["Secret/"+secret]; s != nil {
		if len(str(s, "data", "token")) < 40 {
			t.Errorf("Secret %s: token %q, want a random one", secret, str(s, "data", "token"))
		}
	} else if secret == "rel-sparkdx-agent-token" {
		t.Errorf("agent: Secret %s not rendered", secret)
	}
	if get(c, "readinessProbe", "httpGet") != nil {
		t.Error("agent: an HTTP readiness probe cannot carry the token")
	}
	if pm := objs["PodMonitor/rel-sparkdx-agent"]; pm != nil {
		ep := get(pm, "spec", "podMetricsEndpoints", 0)
		if str(ep, "authorization", "type") != "Bearer" || str(ep, "authorization", "credentials", "name") != secret ||
			str(ep, "authorization", "credentials", "key") != "token" {
			t.Errorf("PodMonitor: authorization %v, want Bearer from Secret %s key token", get(ep, "authorization"), secret)
		}
	}
}

// checkServerHosts: serve allows the names its Service answers to.
func checkServerHosts(t *testing.T, objs map[string]object) {
	t.Helper()
	for _, key := range []string{"Deployment/rel-sparkdx-server", "StatefulSet/rel-sparkdx-server"} {
		if objs[key] == nil {
			continue
		}
		args := get(objs[key], "spec", "template", "spec", "containers", 0, "args").([]any)
		want := "--allowed-hosts=rel-sparkdx-server,rel-sparkdx-server.obs,rel-sparkdx-server.obs.svc,rel-sparkdx-server.obs.svc.cluster.local"
		if !slices.Contains(args, any(want)) {
			t.Errorf("%s: args %v lack %s", key, args, want)
		}
	}
}

// checkDashboards: each dashboard ConfigMap carries the sidecar label and
// the same JSON as deploy/grafana.
func checkDashboards(t *testing.T, objs map[string]object) {
	t.Helper()
	n := 0
	for key, o := range objs {
		if !strings.Contains(key, "-dashboard-") {
			continue
		}
		n++
		if str(o, "metadata", "labels", "grafana_dashboard") != "1" {
			t.Errorf("%s: no grafana_dashboard=\"1\" label", key)
		}
		data, _ := get(o, "data").(map[string]any)
		for file, body := range data {
			want, err := os.ReadFile(filepath.Join("grafana", file))
			if err != nil {
				t.Errorf("%s: %s is not in deploy/grafana: %v", key, file, err)
				continue
			}
			var got, w any
			if err := json.Unmarshal([]byte(body.(string)), &got); err != nil {
				t.Errorf("%s: %s: %v", key, file, err)
			}
			json.Unmarshal(want, &w)
			if !reflect.DeepEqual(got, w) {
				t.Errorf("%s: %s differs from deploy/grafana/%s", key, file, file)
			}
		}
	}
	if files, _ := filepath.Glob(filepath.Join("grafana", "*.json")); n != len(files) {
		t.Errorf("got %d dashboard ConfigMaps, want %d, one per deploy/grafana file", n, len(files))
	}
}

func checkRules(t *testing.T, got any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("prometheus", "sparkdx-rules.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var want any
	if err := yaml.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rendered rules differ from deploy/prometheus/sparkdx-rules.yml")
	}
}

func envOf(c any) map[string]string {
	out := map[string]string{}
	env, _ := get(c, "env").([]any)
	for _, e := range env {
		out[str(e, "name")] = str(e, "value")
	}
	return out
}

func checkOTLP(t *testing.T, dep object, enabled bool) {
	t.Helper()
	env := envOf(get(dep, "spec", "template", "spec", "containers", 0))
	if _, ok := env["OTEL_EXPORTER_OTLP_ENDPOINT"]; ok != enabled {
		t.Errorf("server: OTEL_EXPORTER_OTLP_ENDPOINT set %v, want %v", ok, enabled)
	}
}

// checkFull checks what the full values set reaches the objects.
func checkFull(t *testing.T, objs map[string]object) {
	t.Helper()
	c := get(objs["Deployment/rel-sparkdx-server"], "spec", "template", "spec", "containers", 0)
	env := envOf(c)
	for k, v := range map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel-collector.observability:4318",
		"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_TRACES_SAMPLER_ARG": "0.5",
		"SPARKDX_OTLP_TASK_SAMPLING_RATIO": "0.01", "OTEL_SERVICE_NAME": "sparkdx-prod", "AWS_REGION": "eu-west-1"} {
		if env[k] != v {
			t.Errorf("server env %s: got %q, want %q", k, env[k], v)
		}
	}
	args := get(c, "args").([]any)
	for _, want := range []string{"--event-logs=s3://spark-logs/events", "--metrics-window=6h", "--metrics-max-finished=200",
		"--app-max-age=720h", "--max-finished-apps=50000"} {
		if !slices.Contains(args, any(want)) {
			t.Errorf("server args %v lack %s", args, want)
		}
	}
	if got := str(objs["PersistentVolumeClaim/rel-sparkdx-data"], "spec", "storageClassName"); got != "fast" {
		t.Errorf("pvc storage class: got %q, want fast", got)
	}
	agentArgs := get(objs["DaemonSet/rel-sparkdx-agent"], "spec", "template", "spec", "containers", 0, "args").([]any)
	for _, want := range []string{"--heap-dump-at=0.95", "--heap-dump-upload=s3://spark-dumps/heap", "--heap-dump-at-driver=0.9", "--otlp-endpoint=http://otel-collector.observability:4318",
		"--otlp-protocol=http/protobuf", "--interval=5s", "--spark-rest-interval=1m"} {
		if !slices.Contains(agentArgs, any(want)) {
			t.Errorf("agent args %v lack %s", agentArgs, want)
		}
	}
	if got := str(objs["ServiceMonitor/rel-sparkdx-server"], "metadata", "labels", "release"); got != "kube-prometheus-stack" {
		t.Errorf("service monitor release label: got %q", got)
	}
}

// checkServerArgs: serve's arguments include each of want and none
// starting with one of unwanted.
func checkServerArgs(t *testing.T, objs map[string]object, want, unwanted []string) {
	t.Helper()
	checkArgs(t, "server", get(objs["Deployment/rel-sparkdx-server"], "spec", "template", "spec", "containers", 0, "args").([]any), want, unwanted)
}

// checkServerToken: serve mounts the Secret named secret and the agents
// send its token on their OTLP push.
func checkServerToken(t *testing.T, objs map[string]object, secret string) {
	t.Helper()
	spec := get(objs["Deployment/rel-sparkdx-server"], "spec", "template", "spec")
	if !strings.Contains(fmt.Sprint(get(spec, "volumes")), "secretName:"+secret) {
		t.Errorf("serve volumes %v lack Secret %s", get(spec, "volumes"), secret)
	}
	c := get(objs["DaemonSet/rel-sparkdx-agent"], "spec", "template", "spec", "containers", 0)
	var ref string
	env, _ := get(c, "env").([]any)
	for _, e := range env {
		if str(e, "name") == "SERVER_TOKEN" {
			ref = str(e, "valueFrom", "secretKeyRef", "name")
		}
	}
	if ref != secret || envOf(c)["OTEL_EXPORTER_OTLP_METRICS_HEADERS"] != "Authorization=Bearer%20$(SERVER_TOKEN)" {
		t.Errorf("agent env %v: want SERVER_TOKEN from %s and the OTLP header from it", env, secret)
	}
	if sm := objs["ServiceMonitor/rel-sparkdx-server"]; sm != nil {
		if got := str(get(sm, "spec", "endpoints", 0), "authorization", "credentials", "name"); got != secret {
			t.Errorf("service monitor credentials: got %q, want %s", got, secret)
		}
	}
}

// checkAgentArgs: the agent's arguments include each of want and none
// starting with one of unwanted.
func checkAgentArgs(t *testing.T, objs map[string]object, want, unwanted []string) {
	t.Helper()
	checkArgs(t, "agent", get(objs["DaemonSet/rel-sparkdx-agent"], "spec", "template", "spec", "containers", 0, "args").([]any), want, unwanted)
}

func checkArgs(t *testing.T, who string, args []any, want, unwanted []string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(args, any(w)) {
			t.Errorf("%s args %v lack %s", who, args, w)
		}
	}
	for _, a := range args {
		for _, u := range unwanted {
			if s, _ := a.(string); strings.HasPrefix(s, u) {
				t.Errorf("%s args %v: got %s, want no %s", who, args, s, u)
			}
		}
	}
}

// checkHeapDumps: the agent dumps to a host directory it mounts writable
// at the same path, created when missing; no upload unless asked.
func checkHeapDumps(t *testing.T, objs map[string]object) {
	t.Helper()
	const dir = "/var/lib/sparkdx/heapdumps"
	checkAgentArgs(t, objs, []string{"--heap-dump-at=0.9", "--heap-dump-dir=" + dir, "--heap-dump-at-driver=0"}, []string{"--heap-dump-upload"})
	spec := get(objs["DaemonSet/rel-sparkdx-agent"], "spec", "template", "spec")
	var vol, mount any
	for _, v := range get(spec, "volumes").([]any) {
		if str(v, "name") == "heapdumps" {
			vol = v
		}
	}
	for _, m := range get(spec, "containers", 0, "volumeMounts").([]any) {
		if str(m, "name") == "heapdumps" {
			mount = m
		}
	}
	if str(vol, "hostPath", "path") != dir || str(vol, "hostPath", "type") != "DirectoryOrCreate" {
		t.Errorf("heapdumps volume %v, want hostPath %s, DirectoryOrCreate", vol, dir)
	}
	if str(mount, "mountPath") != dir || get(mount, "readOnly") == true {
		t.Errorf("heapdumps mount %v, want %s writable", mount, dir)
	}
	// A threshold with nowhere to write is refused.
	cmd := exec.Command(sparktest.Program(t, "helm"), "template", "rel", chart, "--set", "agent.heapDumpAt=0.9")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "heapDumpDir") {
		t.Errorf("heapDumpAt without heapDumpDir: got %v, %.200s; want an error naming heapDumpDir", err, out)
	}
}

// checkShards: each replica takes the shard of its ordinal and knows the
// others by their names under the headless Service, which the StatefulSet
// names; each has its own data volume; clients reach any of them.
func checkShards(t *testing.T, objs map[string]object) {
	t.Helper()
	sts := objs["StatefulSet/rel-sparkdx-server"]
	if got := get(sts, "spec", "replicas"); got != 3 {
		t.Errorf("replicas: got %v, want 3", got)
	}
	if got := str(sts, "spec", "serviceName"); got != "rel-sparkdx-server-headless" {
		t.Errorf("serviceName: got %q, want the headless Service", got)
	}
	headless := objs["Service/rel-sparkdx-server-headless"]
	if str(headless, "spec", "clusterIP") != "None" || get(headless, "spec", "publishNotReadyAddresses") != true {
		t.Errorf("headless Service: got %v, want clusterIP None, not-ready addresses published", get(headless, "spec"))
	}
	sel, _ := get(objs["ServiceMonitor/rel-sparkdx-server"], "spec", "selector", "matchLabels").(map[string]any)
	matches := len(sel) > 0
	for k, v := range sel {
		matches = matches && get(headless, "metadata", "labels", k) == v
	}
	if matches {
		t.Errorf("the ServiceMonitor selects the headless Service too: every pod scraped twice")
	}
	c := get(sts, "spec", "template", "spec", "containers", 0)
	args := get(c, "args").([]any)
	peers := "--peers=http://rel-sparkdx-server-0.rel-sparkdx-server-headless.obs.svc:18080," +
		"http://rel-sparkdx-server-1.rel-sparkdx-server-headless.obs.svc:18080,http://rel-sparkdx-server-2.rel-sparkdx-server-headless.obs.svc:18080"
	for _, want := range []string{"--shard=$(POD_NAME)/3", peers, "--peer-proxy"} {
		if !slices.Contains(args, any(want)) {
			t.Errorf("server args %v lack %s", args, want)
		}
	}
	env, _ := get(c, "env").([]any)
	if len(env) == 0 || str(env[0], "name") != "POD_NAME" || str(env[0], "valueFrom", "fieldRef", "fieldPath") != "metadata.name" {
		t.Errorf("server env %v: want POD_NAME from metadata.name first", env)
	}
	if got := str(sts, "spec", "volumeClaimTemplates", 0, "metadata", "name"); got != "data" {
		t.Errorf("volume claim template: got %q, want data (the /data mount)", got)
	}
	vols, _ := get(sts, "spec", "template", "spec", "volumes").([]any)
	for _, v := range vols {
		if str(v, "name") == "data" {
			t.Errorf("pod volume data %v: want it from the claim template, one per replica", v)
		}
	}
	// One claim cannot be every replica's.
	cmd := exec.Command(sparktest.Program(t, "helm"), "template", "rel", chart, "--set", "server.replicas=2", "--set", "server.persistence.existingClaim=x")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "existingClaim") {
		t.Errorf("replicas 2 with an existing claim: got %v, %.200s; want an error naming existingClaim", err, out)
	}
}

// The chart carries copies of the dashboards and rules (helm reads only
// files inside the chart); they must not drift from deploy/.
func TestChartCopies(t *testing.T) {
	pairs := [][2]string{{filepath.Join("prometheus", "sparkdx-rules.yml"), filepath.Join(chart, "files", "sparkdx-rules.yml")}}
	files, _ := filepath.Glob(filepath.Join("grafana", "*.json"))
	for _, f := range files {
		pairs = append(pairs, [2]string{f, filepath.Join(chart, "files", "dashboards", filepath.Base(f))})
	}
	copies, _ := filepath.Glob(filepath.Join(chart, "files", "dashboards", "*.json"))
	if len(copies) != len(files) {
		t.Errorf("got %d dashboards in the chart, %d in grafana/", len(copies), len(files))
	}
	for _, p := range pairs {
		a, err := os.ReadFile(p[0])
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p[1])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs from %s: cp %s %s", p[1], p[0], p[0], p[1])
		}
	}
}
