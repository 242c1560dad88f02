# Jobs cancelled while they run. A job's group is cancelled while one of
# its executors is frozen (SIGSTOP, as a hung node): the other executor's
# task is killed ("Stage cancelled") after the job's end, the frozen one's
# never ends. A second job is still running when the application calls
# spark.stop(), which fails it ("Job cancelled because SparkContext was shut
# down"). The application also carries a container mount list in a property
# value, as YARN's Docker runtime takes it: a path list, not a secret.
import os
import signal
import sys
import threading
import time
from pyspark.sql import SparkSession

marks = sys.argv[1]
spark = SparkSession.builder.appName("scenario-jobs-cancelled-by-stop").getOrCreate()
sc = spark.sparkContext


def jvm_pid():
    """The executor JVM this Python worker serves: its nearest java ancestor."""
    pid = os.getpid()
    while pid > 1:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
        if stat[stat.index("(") + 1:stat.rindex(")")] == "java":
            return pid
        pid = int(stat[stat.rindex(")") + 2:].split()[1])
    raise RuntimeError("no java ancestor")


def slow(group):
    def run(x):
        with open(os.path.join(marks, "%s-%d" % (group, x)), "w") as f:
            f.write(str(jvm_pid()))
        time.sleep(60)
        return x
    return run


def job(group):
    try:
        sc.setJobGroup(group, "cancelled while running")
        sc.parallelize(range(8), 8).map(slow(group)).sum()
    except Exception:
        pass  # cancelled


def started(group, n):
    deadline = time.time() + 60
    while time.time() < deadline:
        names = [f for f in os.listdir(marks) if f.startswith(group + "-")]
        if len(names) >= n:
            return [int(open(os.path.join(marks, f)).read()) for f in names]
        time.sleep(0.2)
    raise SystemExit("tasks of %s did not start" % group)


sc.parallelize(range(100), 2).map(lambda x: x * 2).sum()  # one job that succeeds
a = threading.Thread(target=job, args=("a",), daemon=True)
a.start()
pids = started("a", 2)
frozen = pids[0]
os.kill(frozen, signal.SIGSTOP)
sc.cancelJobGroup("a")
a.join(30)
time.sleep(6)  # the other executor's task is killed
b = threading.Thread(target=job, args=("b",), daemon=True)
b.start()
started("b", 1)
time.sleep(2)
spark.stop()
os.kill(frozen, signal.SIGKILL)
b.join(30)
