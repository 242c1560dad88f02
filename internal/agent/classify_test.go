package agent

import (
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		argv string // space-separated
		want Identity
		ok   bool
	}{
		{"standalone executor",
			"/usr/bin/java -cp /opt/spark/jars/* -Xmx1g org.apache.spark.executor.CoarseGrainedExecutorBackend --driver-url spark://d:1 --executor-id 3 --hostname h1 --cores 4 --app-id app-1 --resourceProfileId 0",
			Identity{Role: RoleExecutor, MainClass: "org.apache.spark.executor.CoarseGrainedExecutorBackend", AppID: "app-1", ExecutorID: "3", Cores: 4, Hostname: "h1"}, true},
		{"yarn executor takes app id from its container",
			"java -server -Dspark.yarn.app.container.log.dir=/logs/application_1_0002/container_e05_1410901177871_0002_01_000003 org.apache.spark.executor.YarnCoarseGrainedExecutorBackend --executor-id 2 --cores 1",
			Identity{Role: RoleExecutor, MainClass: "org.apache.spark.executor.YarnCoarseGrainedExecutorBackend", AppID: "application_1410901177871_0002", ExecutorID: "2", Cores: 1, ContainerID: "container_e05_1410901177871_0002_01_000003"}, true},
		{"kubernetes executor",
			"/opt/java/openjdk/bin/java -Dspark.driver.port=7078 -Xms1g -cp /opt/spark/conf::/opt/spark/jars/* org.apache.spark.scheduler.cluster.k8s.KubernetesExecutorBackend --driver-url spark://x --executor-id 11 --cores 2 --app-id spark-0a1b --hostname 10.1.2.3 --resourceProfileId 0 --podName p-exec-11",
			Identity{Role: RoleExecutor, MainClass: "org.apache.spark.scheduler.cluster.k8s.KubernetesExecutorBackend", AppID: "spark-0a1b", ExecutorID: "11", Cores: 2, Hostname: "10.1.2.3"}, true},
		{"spark-submit driver with app id system property",
			"java -Dspark.app.id=local-123 -cp x org.apache.spark.deploy.SparkSubmit --class Foo --conf spark.executor.memory=1g app.jar --executor-id notme",
			Identity{Role: RoleDriver, MainClass: "org.apache.spark.deploy.SparkSubmit", AppID: "local-123", ExecutorID: "driver"}, true},
		{"spark-submit --conf spark.app.id",
			"java -cp x org.apache.spark.deploy.SparkSubmit --conf spark.app.id=app-77 --class Foo app.jar",
			Identity{Role: RoleDriver, MainClass: "org.apache.spark.deploy.SparkSubmit", AppID: "app-77", ExecutorID: "driver"}, true},
		{"yarn application master",
			"/jdk/bin/java -server -Xmx2g -Dspark.yarn.app.container.log.dir=/l/container_1410901177871_0009_01_000001 org.apache.spark.deploy.yarn.ApplicationMaster --class Foo --jar x.jar --properties-file p",
			Identity{Role: RoleDriver, MainClass: "org.apache.spark.deploy.yarn.ApplicationMaster", AppID: "application_1410901177871_0009", ExecutorID: "driver", ContainerID: "container_1410901177871_0009_01_000001"}, true},
		{"standalone driver wrapper",
			"java -cp x org.apache.spark.deploy.worker.DriverWrapper spark://Worker@h:1 /tmp/app.jar Foo",
			Identity{Role: RoleDriver, MainClass: "org.apache.spark.deploy.worker.DriverWrapper", ExecutorID: "driver"}, true},
		{"master", "java -cp x org.apache.spark.deploy.master.Master --host h --port 7077",
			Identity{Role: RoleMaster, MainClass: "org.apache.spark.deploy.master.Master"}, true},
		{"worker", "java -cp x org.apache.spark.deploy.worker.Worker spark://m:7077",
			Identity{Role: RoleWorker, MainClass: "org.apache.spark.deploy.worker.Worker"}, true},
		{"nodemanager", "/jdk/bin/java -Dproc_nodemanager org.apache.hadoop.yarn.server.nodemanager.NodeManager",
			Identity{Role: RoleNodeManager, MainClass: "org.apache.hadoop.yarn.server.nodemanager.NodeManager"}, true},
		{"spark-class's launcher is not the driver it launches",
			"java -Xmx128m -cp /opt/spark/jars/* org.apache.spark.launcher.Main org.apache.spark.deploy.SparkSubmit --conf spark.app.id=app-77 app.py",
			Identity{}, false},
		{"class name only inside a property is not a main class",
			"java -Dx=org.apache.spark.deploy.SparkSubmit -jar other.jar", Identity{}, false},
		{"not a jvm", "python3 org.apache.spark.deploy.SparkSubmit", Identity{}, false},
		{"other jvm", "java -jar kafka.jar", Identity{}, false},
		{"empty", "", Identity{}, false},
		{"flag without value", "java org.apache.spark.executor.CoarseGrainedExecutorBackend --executor-id",
			Identity{Role: RoleExecutor, MainClass: "org.apache.spark.executor.CoarseGrainedExecutorBackend"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var argv []string
			if tt.argv != "" {
				argv = strings.Fields(tt.argv)
			}
			got, ok := classify(argv)
			if ok != tt.ok || got != tt.want {
				t.Errorf("classify(%q)\n got %+v, %v\nwant %+v, %v", tt.argv, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestFromEnviron(t *testing.T) {
	tests := []struct {
		name string
		id   Identity
		env  []string
		want Identity
	}{
		{"kubernetes executor env",
			Identity{Role: RoleExecutor},
			[]string{"PATH=/bin", "SPARK_APPLICATION_ID=spark-9", "SPARK_EXECUTOR_ID=4"},
			Identity{Role: RoleExecutor, AppID: "spark-9", ExecutorID: "4"}},
		{"arguments win over env",
			Identity{Role: RoleExecutor, AppID: "app-1", ExecutorID: "1"},
			[]string{"SPARK_APPLICATION_ID=spark-9", "SPARK_EXECUTOR_ID=4"},
			Identity{Role: RoleExecutor, AppID: "app-1", ExecutorID: "1"}},
		{"yarn container id",
			Identity{Role: RoleDriver, ExecutorID: "driver"},
			[]string{"CONTAINER_ID=container_1410901177871_0001_01_000001", "BROKEN", "EMPTY="},
			Identity{Role: RoleDriver, ExecutorID: "driver", ContainerID: "container_1410901177871_0001_01_000001", AppID: "application_1410901177871_0001"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.id
			got.fromEnviron(tt.env)
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestPythonModule(t *testing.T) {
	tests := []struct{ argv, want string }{
		{"python3 -m pyspark.daemon", "pyspark.daemon"},
		{"/usr/bin/python3.11 -u -m pyspark.worker", "pyspark.worker"},
		{"python3 /opt/app/job.py --x", "job.py"},
		{"python3 -c print(1)", "print(1)"},
		{"python3", ""},
	}
	for _, tt := range tests {
		t.Run(tt.argv, func(t *testing.T) {
			if got := pythonModule(strings.Fields(tt.argv)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func FuzzClassify(f *testing.F) {
	f.Add("java\x00-cp\x00x\x00org.apache.spark.executor.CoarseGrainedExecutorBackend\x00--executor-id\x001\x00--cores\x00x")
	f.Add("java\x00-Dspark.yarn.app.container.log.dir=/a/container_e1_2_3_4_5\x00org.apache.spark.deploy.yarn.ApplicationMaster")
	f.Add("python3\x00-m\x00pyspark.daemon")
	f.Fuzz(func(t *testing.T, cmdline string) {
		argv := strings.Split(cmdline, "\x00")
		id, ok := classify(argv)
		if ok && id.Role == "" {
			t.Errorf("classified %q without a role", cmdline)
		}
		id.fromEnviron(argv)
		pythonModule(argv)
		appFromContainer(cmdline)
	})
}
