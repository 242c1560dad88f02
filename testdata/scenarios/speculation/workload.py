# Speculation: the first attempt of one task hangs; Spark launches a
# speculative copy on the other executor, which wins.
import time
from pyspark import TaskContext
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("scenario-speculation").getOrCreate()
sc = spark.sparkContext


def work(rows):
    ctx = TaskContext.get()
    time.sleep(1)
    if ctx.partitionId() == 3 and ctx.attemptNumber() == 0:
        time.sleep(20)
    yield sum(rows)


assert sc.parallelize(range(800), 8).mapPartitions(work).sum() == sum(range(800))
spark.stop()
