# A stage aborted while its other tasks still run: with spark.task.maxFailures=1
# one task's failure fails the job at once. The driver then kills the JVM of
# the failed task's executor, so its other running task fails
# (ExecutorLostFailure) after the job's end, and freezes the other executor
# (SIGSTOP, as a hung node), whose tasks never end: the stage stays active
# until the application stops.
import os
import signal
import sys
import time
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


def pid(index):
    with open(os.path.join(marks, "task-%d" % index)) as f:
        return int(f.read())


sc.parallelize(range(100), 1).count()  # a job that succeeds first
try:
    sc.parallelize(range(400), PARTS).mapPartitionsWithIndex(work).count()
    raise SystemExit("the job should have failed")
except Exception as e:
    if "bad record" not in str(e):
        raise
failed = pid(0)
frozen = {pid(i) for i in range(1, PARTS)} - {failed}
for p in frozen:
    os.kill(p, signal.SIGSTOP)
os.kill(failed, signal.SIGKILL)
time.sleep(3)  # the killed executor's running task ends, failed
spark.stop()
for p in frozen:
    os.kill(p, signal.SIGKILL)
