# Stragglers on equal input: the heavy stage's 48 tasks each read one
# cached partition of the same number of rows (the input the log counts is
# equal), but from mid-stage on one executor's JVM is stopped and resumed
# over and over (the test sends it SIGSTOP/SIGCONT: a throttled node). Its
# tasks take several times the median for the same data — stragglers on a
# host, not data skew.
import os
import threading
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("scenario-straggler-throttled").getOrCreate()
# Where the test waits for the mark that starts the throttling.
marks = spark.sparkContext.getConf().get("spark.sparkdx.throttleMarks")

rows = spark.range(0, 3_000_000, numPartitions=48).cache()
rows.count()  # every partition cached: the next stage reads equal input


def mark():
    time.sleep(3)  # the heavy stage is under way: the throttling starts mid-stage
    open(os.path.join(marks, "throttle"), "w").close()


threading.Thread(target=mark, daemon=True).start()
heavy = rows.select(F.sha2(F.sha2(F.sha2(F.col("id").cast("string"), 256), 256), 256).alias("h"))
print("rows:", heavy.where(F.col("h").startswith("0")).count())
spark.stop()
