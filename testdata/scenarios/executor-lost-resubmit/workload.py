# An executor lost after its map tasks succeeded, while the map stage still
# runs elsewhere: Spark logs a second TaskEnd, reason Resubmitted, for each
# of the lost executor's successful map tasks and runs them again. The last
# map task waits until the others are done, then kills the other executor's
# JVM (SIGKILL, as a lost node or the OOM killer would).
import os
import signal
import sys
import time
from pyspark import TaskContext
from pyspark.sql import SparkSession

marks = sys.argv[1]
spark = SparkSession.builder.appName("scenario-executor-lost-resubmit").getOrCreate()
sc = spark.sparkContext
PARTS = 10


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


def mark(name, text):
    tmp = os.path.join(marks, "." + name)
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, os.path.join(marks, name))


def work(index, rows):
    killed = os.path.join(marks, "killed")
    first = TaskContext.get().attemptNumber() == 0 and not os.path.exists(killed)
    out = [(r % 10, r) for r in rows]
    if index == PARTS - 1 and first:
        deadline = time.time() + 120
        while time.time() < deadline:
            done = [f for f in os.listdir(marks) if f.startswith("done-")]
            if len(done) >= PARTS - 1:
                break
            time.sleep(0.2)
        time.sleep(1)  # the last done task has returned to its executor
        me = jvm_pid()
        others = {int(open(os.path.join(marks, f)).read()) for f in done} - {me}
        for pid in others:
            os.kill(pid, signal.SIGKILL)
        mark("killed", " ".join(map(str, others)))
        time.sleep(5)  # the driver sees the loss while this stage still runs
    else:
        time.sleep(0.3)
    if first:
        mark("done-%d" % index, str(jvm_pid()))
    return out


n = sc.parallelize(range(10000), PARTS).mapPartitionsWithIndex(work).reduceByKey(lambda a, b: a + b).count()
assert n == 10
spark.stop()
