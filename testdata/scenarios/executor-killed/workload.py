# An executor killed mid-stage: each task of the map stage marks that it
# started (the test kills one executor JVM with SIGKILL then) and sleeps;
# the lost tasks and the lost shuffle output run again elsewhere.
import os
import sys
import time
from pyspark import TaskContext
from pyspark.sql import SparkSession

marks = sys.argv[1]
spark = SparkSession.builder.appName("scenario-executor-killed").getOrCreate()
sc = spark.sparkContext


def slow(rows):
    ctx = TaskContext.get()
    open(os.path.join(marks, "task-%d-%d" % (ctx.partitionId(), ctx.attemptNumber())), "w").close()
    time.sleep(6)
    for r in rows:
        yield (r % 10, r)


n = sc.parallelize(range(4000), 4).mapPartitions(slow).reduceByKey(lambda a, b: a + b).count()
assert n == 10
spark.stop()
