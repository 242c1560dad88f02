# Task failures that succeed on retry: the first attempt of two tasks
# fails after doing its work; the second attempt succeeds.
import time
from pyspark import TaskContext
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("scenario-task-retry").getOrCreate()
sc = spark.sparkContext


def flaky(rows):
    ctx = TaskContext.get()
    out = sum(rows)
    time.sleep(1.5)
    if ctx.partitionId() in (0, 1) and ctx.attemptNumber() == 0:
        raise RuntimeError("transient failure in partition %d" % ctx.partitionId())
    yield out


assert sc.parallelize(range(1000), 4).mapPartitions(flaky).sum() == sum(range(1000))
spark.stop()
