# Many small stages: a reporting job that computes sixteen small
# aggregates and two tiny sums, each a stage or two of about a
# second. Per-stage findings (a skewed-looking task on a warm-up, 100
# tasks of a few ms) would fill the report one line per stage; sparkdx
# must fold them into a few findings, one per rule and cause, listing
# the stages.
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("scenario-many-small-stages").getOrCreate()
events = (spark.range(0, 100_000, numPartitions=4)
          .select("id", (F.col("id") % 97).alias("k"), (F.col("id") % 7).alias("d"))
          .cache())
assert events.count() == 100_000
for i in range(16):
    # Day i % 7's rows; key 0 gets every row whose id is a multiple of 5
    # as well: one group larger than the others.
    day = events.filter(F.col("d") == i % 7).withColumn("k", F.when(F.col("id") % 5 == 0, 0).otherwise(F.col("k")))
    assert len(day.groupBy("k").agg(F.sum("id")).collect()) == 97
for i in range(2):
    # A thousand numbers in a hundred partitions: tasks of a few ms.
    assert spark.range(0, 1000, numPartitions=100).agg(F.sum("id")).collect()[0][0] == 999 * 500
spark.stop()
