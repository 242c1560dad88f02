package deploy

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestChartWires renders the chart with its defaults (plus serve's token,
// the sinks' ports and a short flush) and starts the real sparkdx with the
// rendered serve and agent arguments and environment, the in-pod paths and
// addresses mapped to this machine's: the token comes from the rendered
// Secret, the agent pushes OTLP to the rendered serve URL with it, serve
// writes the Delta tables the rendered --delta names, and its Graphite
// port takes Spark's GraphiteSink lines.
func TestChartWires(t *testing.T) {
	java, javac := sparktest.Program(t, "java"), sparktest.Program(t, "javac")
	bin := sparktest.Binary(t)
	objs := render(t, "--set", "server.auth.enabled=true", "--set", "server.sinks.graphitePort=2003",
		"--set", "server.sinks.statsdPort=8125", "--set", "server.deltaFlushInterval=1s", "--set", "agent.interval=1s")

	tmp := t.TempDir()
	data, logs, tokDir, agentTokDir := filepath.Join(tmp, "data"), filepath.Join(tmp, "logs"), filepath.Join(tmp, "tok"), filepath.Join(tmp, "agent-tok")
	for _, d := range []string{data, logs, tokDir, agentTokDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	token := secretToken(t, objs["Secret/rel-sparkdx-server-token"])
	os.WriteFile(filepath.Join(tokDir, "token"), []byte(token), 0o600)
	os.WriteFile(filepath.Join(agentTokDir, "token"), []byte(secretToken(t, objs["Secret/rel-sparkdx-agent-token"])), 0o600)
	// The finished application whose executor the agent samples: its
	// row goes to the Delta apps table, its samples to serve's store.
	const app, logName = "app-20200706201101-0003", "app-20200706201101-0003"
	b, err := os.ReadFile(sparktest.Path(t, "spark-events", logName))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(logs, logName), b, 0o644)

	addr, graphite := sparktest.FreeAddr(t), sparktest.FreeAddr(t)
	statsd := freeUDP(t)
	local := strings.NewReplacer("=/spark-events", "="+logs, "=/data", "="+data, "=/etc/sparkdx/server-token", "="+tokDir,
		"=/etc/sparkdx/agent-token", "="+agentTokDir, "=0.0.0.0:18080", "="+addr, "=0.0.0.0:2003", "="+graphite,
		"=0.0.0.0:8125", "="+statsd, "=http://rel-sparkdx-server.obs.svc:18080", "=http://"+addr,
		"=[$(POD_IP)]:9877", "=", "=/host/proc", "=/proc", "=/host/sys/fs/cgroup", "=/sys/fs/cgroup", "=$(NODE_NAME)", "=node-1")

	serveC := get(objs["Deployment/rel-sparkdx-server"], "spec", "template", "spec", "containers", 0)
	serveArgs := localArgs(serveC, local)
	for _, want := range []string{"--delta=" + filepath.Join(data, "delta"), "--graphite-listen=" + graphite,
		"--auth-token-file=" + filepath.Join(tokDir, "token")} {
		if !contains(serveArgs, want) {
			t.Fatalf("rendered serve args %v lack %s", serveArgs, want)
		}
	}
	serve := start(t, bin, serveArgs, nil)

	agentC := get(objs["DaemonSet/rel-sparkdx-agent"], "spec", "template", "spec", "containers", 0)
	agentArgs := localArgs(agentC, local)
	if !contains(agentArgs, "--otlp-endpoint=http://"+addr) {
		t.Fatalf("rendered agent args %v do not push to the rendered serve", agentArgs)
	}
	startExecutorJVM(t, java, javac, app)
	agentEnv := renderedEnv(agentC, map[string]string{"SERVER_TOKEN": token})
	agent := start(t, bin, agentArgs, agentEnv)

	// The agent's samples of executor 7 reach serve through the token.
	waitFor(t, "executor 7's samples in serve", serve, agent, func() bool {
		body := getAuth("http://"+addr+"/api/sparkdx/v1/apps/"+app+"/samples", token)
		var got []struct{ ExecutorID, Metric string }
		json.Unmarshal([]byte(body), &got)
		for _, s := range got {
			if s.ExecutorID == "7" && s.Metric == "jvm.class.count" {
				return true
			}
		}
		return false
	})
	if code := statusOf("http://" + addr + "/api/sparkdx/v1/apps/" + app + "/samples"); code != http.StatusUnauthorized {
		t.Errorf("serve without the token: got %d, want 401", code)
	}
	// serve's Delta tables: the finished app's row, the agent's samples.
	waitFor(t, "the app and the samples in Delta", serve, agent, func() bool {
		return logHas(filepath.Join(data, "delta", "apps"), "sparkdx-app:"+logName) &&
			logHas(filepath.Join(data, "delta", "samples"), `"add"`)
	})
	// Spark's GraphiteSink on the rendered port.
	c, err := net.Dial("tcp", graphite)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, app+".driver.jvm.heap.used 1048576 "+strconv.FormatInt(time.Now().Unix(), 10)+"\n")
	c.Close()
	waitFor(t, "the Graphite line counted", serve, agent, func() bool {
		return strings.Contains(getAuth("http://"+addr+"/metrics", token), `sparkdx_serve_sink_lines_total{outcome="mapped",sink="graphite"}`)
	})
}

// secretToken is a rendered Secret's token.
func secretToken(t *testing.T, s object) string {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(str(s, "data", "token"))
	if err != nil || len(b) < 32 {
		t.Fatalf("secret %v: token %q, %v", get(s, "metadata", "name"), b, err)
	}
	return string(b)
}

// localArgs are a rendered container's arguments with its in-pod paths
// and addresses mapped to this machine's.
func localArgs(c any, local *strings.Replacer) []string {
	var out []string
	for _, a := range get(c, "args").([]any) {
		out = append(out, local.Replace(a.(string)))
	}
	return out
}

// renderedEnv is a container's environment as the kubelet makes it:
// secret references from refs, $(VAR) expanded from earlier variables.
func renderedEnv(c any, refs map[string]string) []string {
	vals := map[string]string{}
	var out []string
	env, _ := get(c, "env").([]any)
	for _, e := range env {
		name := str(e, "name")
		v := str(e, "value")
		if get(e, "valueFrom", "secretKeyRef") != nil {
			v = refs[name]
		}
		for k, x := range vals {
			v = strings.ReplaceAll(v, "$("+k+")", x)
		}
		vals[name] = v
		out = append(out, name+"="+v)
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

type proc struct {
	out *strings.Builder
}

func start(t *testing.T, bin string, args, env []string) proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	p := proc{out: &strings.Builder{}}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return p
}

// startExecutorJVM starts the agent tests' JVM named like Spark's
// executor backend, executor 7 of app.
func startExecutorJVM(t *testing.T, java, javac, app string) {
	t.Helper()
	classes := t.TempDir()
	if err := sparktest.CompileJava(javac, classes, filepath.Join("..", "internal", "agent", "testdata", "java")); err != nil {
		t.Fatal(err)
	}
	jvm := sparktest.StartJVM(t, []string{java, "-Xmx64m", "-cp", classes, "org.apache.spark.executor.CoarseGrainedExecutorBackend",
		"--driver-url", "spark://d:1", "--executor-id", "7", "--hostname", "127.0.0.1", "--cores", "1", "--app-id", app})
	jvm.Expect(t, "ready")
}

func waitFor(t *testing.T, what string, serve, agent proc, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !ok(); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 30s\nserve:\n%s\nagent:\n%s", what, serve.out, agent.out)
		}
	}
}

func getAuth(url, token string) string {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func statusOf(url string) int {
	resp, err := http.Get(url)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// logHas says whether any commit of a Delta table's log holds s.
func logHas(table, s string) bool {
	files, _ := filepath.Glob(filepath.Join(table, "_delta_log", "*.json"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), s) {
			return true
		}
	}
	return false
}

func freeUDP(t *testing.T) string {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().String()
}
