# Two Structured Streaming queries from rate sources, one after the other,
# both through a Python UDF that sleeps 5 ms per row (two 1-core
# executors, two partitions: about 380 rows/s at most).
# "steady" reads 20 rows/s on a 3-s trigger: each batch takes about a
# second, it keeps up (and starts the Python workers). "behind" reads 480
# rows/s with the default trigger: its batches run back to back, each
# longer than the one before. It is stopped after seven.
import time
from pyspark.sql import SparkSession
from pyspark.sql.functions import udf

spark = SparkSession.builder.appName("scenario-streaming-behind").getOrCreate()


@udf("long")
def slow(v):
    time.sleep(0.005)
    return v


def run(name, rows_per_second, trigger, batches, idle_stop):
    df = (spark.readStream.format("rate").option("rowsPerSecond", rows_per_second)
          .option("numPartitions", 2).load())
    w = (df.select(slow("value").alias("value")).writeStream.format("memory")
         .queryName(name).outputMode("append"))
    if trigger:
        w = w.trigger(processingTime=trigger)
    q = w.start()
    deadline = time.time() + 150
    while len(q.recentProgress) < batches and time.time() < deadline:
        time.sleep(0.2)
    # A query that keeps up is stopped between batches, so no job is cut
    # short; one that is behind is never between batches.
    while idle_stop and q.status["isTriggerActive"] and time.time() < deadline:
        time.sleep(0.02)
    q.stop()
    assert len(q.recentProgress) >= min(batches, 6), (name, len(q.recentProgress))


run("steady", 20, "3 seconds", 8, True)
run("behind", 480, None, 7, False)
spark.stop()
