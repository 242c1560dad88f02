# A failure, then the stop. A background job holds two cores with slow
# tasks; meanwhile a job fails on a bad record (the root cause) and the
# driver stops the SparkContext with the background job still running.
# The stop cancels that job and fails what was running: consequences of
# the stop, never the cause.
import os
import sys
import threading
import time

from pyspark import TaskContext
from pyspark.sql import SparkSession

marks = sys.argv[1]
spark = SparkSession.builder.appName("scenario-failure-after-stop").getOrCreate()
sc = spark.sparkContext


def slow(x):
    ctx = TaskContext.get()
    open(os.path.join(marks, "bg-%d-%d" % (ctx.partitionId(), ctx.attemptNumber())), "w").close()
    time.sleep(120)
    return x


def background():
    try:
        sc.parallelize(range(2), 2).map(slow).count()
    except Exception as e:  # cancelled by the stop
        print("background job ended:", type(e).__name__)


threading.Thread(target=background, daemon=True).start()
while len(os.listdir(marks)) < 2:
    time.sleep(0.2)


def parse(x):
    if x == 7:
        raise ValueError("cannot parse record %d" % x)  # the user's line
    return x


try:
    sc.parallelize(range(20), 2).map(parse).count()
except Exception as e:
    print("job failed:", type(e).__name__)
spark.stop()
