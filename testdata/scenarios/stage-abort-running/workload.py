# A stage aborted while its other tasks still run: with spark.task.maxFailures=1
# one task's failure fails the job at once. The driver then kills the JVM of
# an executor that still runs a task of the aborted stage, so a failed task
# (ExecutorLostFailure) ends after the job's end; the other executor's tasks
# are killed ("Stage cancelled") after it too.
import os
import signal
import sys
import time
from pyspark import TaskContext
from pyspark.sql import SparkSession

marks = sys.argv[1]
spark = SparkSession.builder.appName("scenario-stage-abort-running").getOrCreate()
sc = spark.sparkContext
PARTS = 4


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


def work(index, rows):
    tmp = os.path.join(marks, ".task-%d" % index)
    with open(tmp, "w") as f:
        f.write(str(jvm_pid()))
    os.rename(tmp, os.path.join(marks, "task-%d" % index))
    if index == 0:
        deadline = time.time() + 60
        while len([f for f in os.listdir(marks) if f.startswith("task-")]) < PARTS and time.time() < deadline:
            time.sleep(0.1)
        raise RuntimeError("bad record in partition 0")
    time.sleep(60)
    return rows


sc.parallelize(range(100), 1).count()  # a job that succeeds first
try:
    sc.parallelize(range(400), PARTS).mapPartitionsWithIndex(work).count()
    raise SystemExit("the job should have failed")
except Exception as e:
    if "bad record" not in str(e):
        raise
with open(os.path.join(marks, "task-1")) as f:
    os.kill(int(f.read()), signal.SIGKILL)
time.sleep(8)  # the killed executor's task and the cancelled ones end
spark.stop()
