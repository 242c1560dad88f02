# Straggler host: three Workers, each a host of its own; the same work runs
# five times slower on one of them (a throttled node), whatever the task.
# The executor's host is the SPARK_LOCAL_IP its Worker runs with.
import os
import sys
import time

from pyspark.sql import SparkSession

slow_host = sys.argv[1]
spark = SparkSession.builder.appName("scenario-straggler-host").getOrCreate()
sc = spark.sparkContext


def work(x):
    time.sleep(1.5 if os.environ.get("SPARK_LOCAL_IP") == slow_host else 0.3)
    return x


assert sc.parallelize(range(60), 60).map(work).count() == 60
spark.stop()
