package agent

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/prometheus/procfs"

	"github.com/sparkdx/sparkdx/internal/redact"
)

func TestDiscoverFixture(t *testing.T) {
	fs, err := procfs.NewFS(filepath.Join("testdata", "node1", "proc"))
	if err != nil {
		t.Fatal(err)
	}
	errs := map[string]int{}
	tab, err := newScanner(fs, &procReader{root: filepath.Join("testdata", "node1", "proc")}, redact.Default()).scan(errs)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int][]int{}
	roles := map[int]Role{}
	var order []int
	for _, f := range discover(tab) {
		pid := f.info.proc.PID
		order = append(order, pid)
		roles[pid] = f.id.Role
		got[pid] = []int{}
		for _, d := range f.descendants {
			got[pid] = append(got[pid], d.proc.PID)
		}
	}
	want := map[int][]int{100: {101, 103, 102}, 200: {201}, 300: {}, 301: {302}}
	wantRoles := map[int]Role{100: RoleExecutor, 200: RoleDriver, 300: RoleWorker, 301: RoleExecutor}
	if !slices.Equal(order, []int{100, 200, 300, 301}) {
		t.Errorf("got Spark processes %v, want [100 200 300 301]", order)
	}
	for pid, w := range want {
		if !slices.Equal(got[pid], w) {
			t.Errorf("pid %d: got descendants %v, want %v", pid, got[pid], w)
		}
		if roles[pid] != wantRoles[pid] {
			t.Errorf("pid %d: got role %q, want %q", pid, roles[pid], wantRoles[pid])
		}
	}
	if len(errs) != 0 {
		t.Errorf("got read errors %v, want none", errs)
	}
}

func TestDiscoveryIdentities(t *testing.T) {
	tests := []struct {
		node                 string
		pid                  int
		role                 Role
		appID, executorID    string
		nsPid                int
		containerID, mainCls string
	}{
		{"node1", 100, RoleExecutor, "app-20240101000000-0001", "7", 0, "", "org.apache.spark.executor.CoarseGrainedExecutorBackend"},
		// The driver's app id is only in its environment (Kubernetes).
		{"node1", 200, RoleDriver, "spark-abc123", "driver", 1, "", "org.apache.spark.deploy.SparkSubmit"},
		{"node2", 511, RoleExecutor, "application_1410901177871_0001", "4", 0, "container_e17_1410901177871_0001_01_000005", "org.apache.spark.executor.YarnCoarseGrainedExecutorBackend"},
		{"node2", 500, RoleNodeManager, "", "", 0, "", "org.apache.hadoop.yarn.server.nodemanager.NodeManager"},
	}
	for _, tt := range tests {
		t.Run(filepath.Join(tt.node, tt.mainCls), func(t *testing.T) {
			p, ok := byPID(sample(t, fixtureAgent(t, filepath.Join("testdata", tt.node), Config{})))[tt.pid]
			if !ok {
				t.Fatalf("pid %d not found", tt.pid)
			}
			if p.Role != tt.role || p.AppID != tt.appID || p.ExecutorID != tt.executorID || p.NSPid != tt.nsPid ||
				p.ContainerID != tt.containerID || p.MainClass != tt.mainCls {
				t.Errorf("got role %q app %q executor %q nsPid %d container %q class %q, want %q %q %q %d %q %q",
					p.Role, p.AppID, p.ExecutorID, p.NSPid, p.ContainerID, p.MainClass,
					tt.role, tt.appID, tt.executorID, tt.nsPid, tt.containerID, tt.mainCls)
			}
		})
	}
}
