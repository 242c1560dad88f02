package agent

import (
	"path"
	"strconv"
	"strings"
)

// Role is what a process is in a Spark deployment.
type Role string

// Roles a discovered process can have.
const (
	RoleDriver        Role = "driver"
	RoleExecutor      Role = "executor"
	RoleMaster        Role = "master"
	RoleWorker        Role = "worker"
	RoleHistoryServer Role = "history-server"
	RoleNodeManager   Role = "nodemanager"
)

// launcherClass is the main class of Spark's launcher (bin/spark-class).
const launcherClass = "org.apache.spark.launcher.Main"

// roleOfClass maps a JVM main class to the role it gives its process.
func roleOfClass(class string) (Role, bool) {
	switch class {
	case "org.apache.spark.deploy.SparkSubmit",
		"org.apache.spark.deploy.yarn.ApplicationMaster",
		"org.apache.spark.deploy.worker.DriverWrapper":
		return RoleDriver, true
	case "org.apache.spark.executor.CoarseGrainedExecutorBackend",
		"org.apache.spark.executor.YarnCoarseGrainedExecutorBackend",
		"org.apache.spark.scheduler.cluster.k8s.KubernetesExecutorBackend":
		return RoleExecutor, true
	case "org.apache.spark.deploy.master.Master":
		return RoleMaster, true
	case "org.apache.spark.deploy.worker.Worker":
		return RoleWorker, true
	case "org.apache.spark.deploy.history.HistoryServer":
		return RoleHistoryServer, true
	case "org.apache.hadoop.yarn.server.nodemanager.NodeManager":
		return RoleNodeManager, true
	}
	return "", false
}

// Identity is what a command line (and, failing that, the environment) says
// about a Spark process.
type Identity struct {
	Role        Role
	MainClass   string
	AppID       string
	ExecutorID  string
	Cores       int
	Hostname    string
	ContainerID string // YARN container, when known
}

// Kind is the coarse family of a process, used to sum a process tree the way
// Spark's ProcfsMetricsGetter does (JVM, Python, other).
type Kind string

// Kinds of processes in a Spark process tree.
const (
	KindJVM    Kind = "jvm"
	KindPython Kind = "python"
	KindOther  Kind = "other"
)

// classify reads a JVM command line and returns the Spark identity it shows;
// ok is false when the command line is not a Spark JVM.
func classify(argv []string) (id Identity, ok bool) {
	if len(argv) == 0 || kindOf(argv, "") != KindJVM {
		return Identity{}, false
	}
	main := -1
	for i, a := range argv {
		if a == launcherClass {
			// spark-class's launcher: a short JVM that prints the command
			// of the JVM it is about to exec (the driver's, say), with that
			// JVM's main class and arguments after its own.
			return Identity{}, false
		}
		if r, found := roleOfClass(a); found {
			id.Role, id.MainClass, main = r, a, i
			break
		}
	}
	if main < 0 {
		return Identity{}, false
	}
	for _, a := range argv[1:main] {
		if v, found := strings.CutPrefix(a, "-Dspark.app.id="); found {
			id.AppID = v
		}
		if v, found := strings.CutPrefix(a, "-Dspark.yarn.app.container.log.dir="); found {
			id.ContainerID = containerFromPath(v)
		}
	}
	args := argv[main+1:]
	executor := id.Role == RoleExecutor
	for i := 0; i+1 < len(args); i++ {
		v := args[i+1]
		switch flag := args[i]; {
		case flag == "--conf" || flag == "-c":
			if s, found := strings.CutPrefix(v, "spark.app.id="); found && id.AppID == "" {
				id.AppID = s
			}
		case !executor:
			// A driver's other arguments belong to spark-submit or the
			// user's application, not to Spark's backend.
			continue
		case flag == "--app-id":
			id.AppID = v
		case flag == "--executor-id":
			id.ExecutorID = v
		case flag == "--hostname":
			id.Hostname = v
		case flag == "--cores":
			if n, err := strconv.Atoi(v); err == nil {
				id.Cores = n
			}
		default:
			continue
		}
		i++
	}
	if id.Role == RoleDriver && id.ExecutorID == "" {
		id.ExecutorID = "driver"
	}
	if id.AppID == "" && id.ContainerID != "" {
		id.AppID = appFromContainer(id.ContainerID)
	}
	return id, true
}

// fromEnviron fills what the command line left out from the environment
// Spark's launchers set: Kubernetes (SPARK_APPLICATION_ID, SPARK_EXECUTOR_ID)
// and YARN (CONTAINER_ID).
func (id *Identity) fromEnviron(env []string) {
	for _, kv := range env {
		k, v, found := strings.Cut(kv, "=")
		if !found || v == "" {
			continue
		}
		switch k {
		case "SPARK_APPLICATION_ID":
			if id.AppID == "" {
				id.AppID = v
			}
		case "SPARK_EXECUTOR_ID":
			if id.ExecutorID == "" {
				id.ExecutorID = v
			}
		case "CONTAINER_ID":
			if id.ContainerID == "" {
				id.ContainerID = v
			}
		}
	}
	if id.AppID == "" && id.ContainerID != "" {
		id.AppID = appFromContainer(id.ContainerID)
	}
}

// needsEnviron reports whether the environment could add to the identity.
func (id Identity) needsEnviron() bool {
	return id.AppID == "" || (id.Role == RoleExecutor && id.ExecutorID == "")
}

// containerFromPath finds a YARN container id among the elements of a path
// such as .../application_1_0001/container_1_0001_01_000002.
func containerFromPath(p string) string {
	for p != "" && p != "/" && p != "." {
		if b := path.Base(p); strings.HasPrefix(b, "container_") {
			return b
		}
		p = path.Dir(p)
	}
	return ""
}

// appFromContainer derives the YARN application id from a container id:
// container_[e<epoch>_]<clusterTs>_<appSeq>_<attempt>_<container> →
// application_<clusterTs>_<appSeq>.
func appFromContainer(c string) string {
	parts := strings.Split(strings.TrimPrefix(c, "container_"), "_")
	if len(parts) > 0 && strings.HasPrefix(parts[0], "e") {
		parts = parts[1:]
	}
	if len(parts) < 4 {
		return ""
	}
	return "application_" + parts[0] + "_" + parts[1]
}

// kindOf tells JVMs and Python interpreters from other programs by argv[0],
// falling back to the kernel's comm name.
func kindOf(argv []string, comm string) Kind {
	name := comm
	if len(argv) > 0 && argv[0] != "" {
		name = path.Base(argv[0])
	}
	switch {
	case name == "java" || name == "jsvc":
		return KindJVM
	case strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy"):
		return KindPython
	}
	return KindOther
}

// pythonModule returns the module a Python command line runs with -m
// (pyspark.daemon, pyspark.worker), or the script name, or "".
func pythonModule(argv []string) string {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "-m" && i+1 < len(argv) {
			return argv[i+1]
		}
		if !strings.HasPrefix(a, "-") {
			return path.Base(a)
		}
	}
	return ""
}
