# An incomplete log with skipped stages: jobs reuse one shuffle (its map
# stage is skipped in each later job), two of them at once, and the driver
# JVM is killed (SIGKILL) while a last job runs, so the log has no end.
import os
import signal
import threading
import time
from operator import add
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("scenario-incomplete-skipped").getOrCreate()
sc = spark.sparkContext

pairs = sc.parallelize(range(20000), 4).map(lambda r: (r % 100, r)).reduceByKey(add)
assert pairs.count() == 100
assert pairs.mapValues(lambda v: v + 1).reduceByKey(add).count() == 100
twice = pairs.map(lambda kv: (kv[0] % 10, kv[1])).reduceByKey(add)


def reuse():
    assert twice.count() == 10


threads = [threading.Thread(target=reuse) for _ in range(2)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert twice.values().sum() == sum(range(20000))


def last():
    try:
        pairs.map(lambda kv: time.sleep(3) or kv).reduceByKey(add).count()
    except Exception:
        pass  # the driver is gone


threading.Thread(target=last, daemon=True).start()
time.sleep(8)  # the last job runs, a stage skipped, tasks done and running
# spark-submit's JVM is the driver and runs this script as its child.
os.kill(os.getppid(), signal.SIGKILL)
os._exit(0)
