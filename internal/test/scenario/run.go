package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/sparkdx/sparkdx/internal/agent"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// Run submits the scenario's workload to c (started with the scenario's
// cluster shape), performs its actions (a late Worker, a killed executor)
// and returns the event log Spark wrote, compressed with Spark's zstd codec,
// under logDir.
func (s *Scenario) Run(ctx context.Context, c *sparktest.Cluster, conf map[string]string, logDir string) (string, error) {
	work, err := os.MkdirTemp("", "sparkdx-scenario-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	marks := filepath.Join(work, "marks")
	if err := os.MkdirAll(marks, 0o755); err != nil {
		return "", err
	}
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		a = strings.ReplaceAll(a, "{marks}", marks)
		args[i] = strings.ReplaceAll(a, "{out}", filepath.Join(work, "out"))
	}
	for k, v := range s.Conf {
		conf[k] = v
	}
	conf["spark.eventLog.compress"] = "true"
	conf["spark.eventLog.compression.codec"] = "zstd"
	conf["spark.eventLog.dir"] = logDir
	conf["spark.eventLog.rolling.enabled"] = "false"

	type result struct {
		res sparktest.Submitted
		err error
	}
	var stopAgent func() error
	if s.Agent {
		if stopAgent, err = sampleDriver(ctx, logDir); err != nil {
			return "", fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	done := make(chan result, 1)
	go func() {
		res, err := c.Submit(ctx, sparktest.Submission{Program: s.Workload(), Args: args, Conf: conf})
		done <- result{res, err}
	}()
	late := time.After(time.Duration(s.LateWorkerSeconds) * time.Second)
	if s.LateWorkerSeconds == 0 {
		late = nil
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	killed := s.KillExecutorAtMarks == 0
	for {
		select {
		case r := <-done:
			if r.err != nil {
				return "", fmt.Errorf("%s: %w\n%s", s.Name, r.err, r.res.Output)
			}
			if r.res.ExitCode != 0 && !s.DriverKilled {
				return "", fmt.Errorf("%s: spark-submit exited %d\n%s", s.Name, r.res.ExitCode, r.res.Output)
			}
			if !killed {
				return "", fmt.Errorf("%s: no executor was killed (fewer than %d task marks)", s.Name, s.KillExecutorAtMarks)
			}
			if stopAgent != nil {
				if err := stopAgent(); err != nil {
					return "", fmt.Errorf("%s: %w", s.Name, err)
				}
			}
			return onlyLog(logDir)
		case <-late:
			late = nil
			c.AddWorker(2, "1g")
		case <-tick.C:
			if killed {
				continue
			}
			if entries, _ := os.ReadDir(marks); len(entries) >= s.KillExecutorAtMarks {
				pids := c.ExecutorPIDs()
				if len(pids) == 0 {
					continue
				}
				if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
					return "", fmt.Errorf("%s: kill executor %d: %w", s.Name, pids[0], err)
				}
				killed = true
			}
		}
	}
}

func onlyLog(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var logs []string
	for _, e := range entries {
		if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			logs = append(logs, filepath.Join(dir, e.Name()))
		}
	}
	if len(logs) != 1 {
		return "", fmt.Errorf("%s holds %d event logs, want 1", dir, len(logs))
	}
	return logs[0], nil
}

// sampleDriver runs the sparkdx agent on this node every 500 ms until the
// returned stop is called, which writes the driver JVM's samples to
// AgentFile of a log in logDir.
func sampleDriver(ctx context.Context, logDir string) (stop func() error, err error) {
	a, err := agent.New(agent.Config{Interval: 500 * time.Millisecond, Host: "scenario"})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	var snaps []*agent.Snapshot
	done := make(chan error, 1)
	go func() {
		done <- a.Run(ctx, func(s *agent.Snapshot) { snaps = append(snaps, s) })
	}()
	return func() error {
		cancel()
		if err := <-done; err != nil {
			return err
		}
		// This scenario's driver, not another test's running on the node:
		// its command line carries this run's event-log directory.
		data := agent.DriverData(snaps, "spark.eventLog.dir="+logDir)
		if data == nil {
			return fmt.Errorf("the agent saw the driver JVM in fewer than 2 of %d samples; %s", len(snaps),
				whatAgentSaw(snaps, "spark.eventLog.dir="+logDir))
		}
		b, err := json.MarshalIndent(data, "", " ")
		if err != nil {
			return err
		}
		path := AgentFile(filepath.Join(logDir, "log"))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return os.WriteFile(path, b, 0o644)
	}, nil
}

// whatAgentSaw says, when the driver's samples are missing, what the agent
// saw of the processes whose command line holds cmdline (role, whether it
// read their JVM, why not) and which reads failed: enough to tell a
// missed process from an unread JVM in a CI log.
func whatAgentSaw(snaps []*agent.Snapshot, cmdline string) string {
	seen := map[string]int{}
	errs := map[string]int{}
	for _, s := range snaps {
		for _, p := range s.Processes {
			if !strings.Contains(p.Cmdline, cmdline) {
				continue
			}
			what := fmt.Sprintf("pid %d %s, jvm %v", p.PID, p.Role, p.JVM != nil)
			if p.JVMUnavailable != "" {
				what += ": " + p.JVMUnavailable
			}
			seen[what]++
		}
		for k, n := range s.Errors {
			errs[k] += n
		}
	}
	return fmt.Sprintf("processes with %q: %v; read errors: %v", cmdline, seen, errs)
}
