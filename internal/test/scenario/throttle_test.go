package scenario

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// ThrottleMarksConf is the Spark property that tells a throttled
// scenario's workload where to mark that the throttling may start (its
// driver reads it from its SparkConf).
const ThrottleMarksConf = "spark.sparkdx.throttleMarks"

// startThrottle cycles SIGSTOP (th.StopMs) and SIGCONT (th.RunMs) on the
// executor JVM of th.Host of c from when marks holds th.AtMarks entries
// until stop is called, which leaves the JVM running and says how many
// times it was stopped. It lives beside the live test, not in run.go, so
// that the other scenarios' recorded live runs keep their key.
func startThrottle(c *sparktest.Cluster, th *Throttle, marks string) (stop func() int) {
	done := make(chan struct{})
	finished := make(chan struct{})
	cycles := 0
	go func() {
		defer close(finished)
		pid := 0
		for pid == 0 {
			select {
			case <-done:
				return
			case <-time.After(200 * time.Millisecond):
			}
			if entries, _ := os.ReadDir(marks); len(entries) >= th.AtMarks {
				pid = executorOn(c, th.Host)
			}
		}
		defer syscall.Kill(pid, syscall.SIGCONT)
		for {
			if syscall.Kill(pid, syscall.SIGSTOP) != nil {
				return // the executor is gone
			}
			cycles++
			select {
			case <-done:
				return
			case <-time.After(time.Duration(th.StopMs) * time.Millisecond):
			}
			syscall.Kill(pid, syscall.SIGCONT)
			select {
			case <-done:
				return
			case <-time.After(time.Duration(th.RunMs) * time.Millisecond):
			}
		}
	}()
	return func() int { close(done); <-finished; return cycles }
}

// executorOn is the pid of c's executor JVM on host (its command line
// holds --hostname host), 0 when there is none.
func executorOn(c *sparktest.Cluster, host string) int {
	for _, p := range c.ExecutorPIDs() {
		if cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p)); err == nil &&
			strings.Contains(string(cmd), "\x00--hostname\x00"+host+"\x00") {
			return p
		}
	}
	return 0
}
