# A Python worker that crashes: one record makes the UDF's process kill
# itself with SIGSEGV (as a native library bug would). Spark reports
# "Python worker exited unexpectedly (crashed)" for each attempt, and the
# job fails after spark.task.maxFailures of them.
import os
import signal

from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("scenario-python-crash").getOrCreate()
sc = spark.sparkContext


def score(x):
    if x == 333:
        os.kill(os.getpid(), signal.SIGSEGV)  # the user's line: a native crash
    return x * 2


try:
    sc.parallelize(range(1000), 4).map(score).sum()
except Exception as e:
    print("job failed:", type(e).__name__)
spark.stop()
