"""The application TestStandaloneCluster's ServeLiveSpark runs while `sparkdx
serve` tails its event log: three jobs, five stages, a task that fails once
and succeeds on its retry, one SQL query; then it holds the driver (and its
REST API) until the test creates the file named by argv[1], so that the
running driver can be compared with serve before the application ends."""

import os
import sys
import time

from pyspark import TaskContext
from pyspark.sql import SparkSession

release = sys.argv[1]
spark = SparkSession.builder.appName("sparkdx-live").getOrCreate()
sc = spark.sparkContext


def slow(x):
    time.sleep(0.3)
    return x


def flaky(rows):
    ctx = TaskContext.get()
    if ctx.partitionId() == 1 and ctx.attemptNumber() == 0:
        raise RuntimeError("sparkdx live test: the first attempt of partition 1 fails")
    return rows


# Job 0: one stage of four tasks.
sc.setJobDescription("slow map")
sc.parallelize(range(8), 4).map(slow).count()

# Job 1: a shuffle map stage and a result stage whose partition 1 fails once.
sc.setJobDescription("reduce with a failing task")
sc.parallelize(range(200), 4).map(lambda x: (x % 5, x)).reduceByKey(lambda a, b: a + b, 3).mapPartitions(flaky).collect()

# Job 2 (and AQE's): an SQL aggregation.
sc.setJobDescription("sql aggregation")
spark.range(0, 20000, numPartitions=4).selectExpr("id % 7 AS k", "id").groupBy("k").count().collect()

deadline = time.time() + 240
while not os.path.exists(release) and time.time() < deadline:
    time.sleep(0.2)
spark.stop()
