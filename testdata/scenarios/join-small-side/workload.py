# A join that multiplies rows against its small side: every key of the small
# side repeats 10 times, so each matching row of the big side comes out 10
# times — twice the big side, 48000× the small side — and a filter right after
# the join (a 1 % sample: a non-deterministic filter, which Spark cannot push
# into the join's condition) drops 99 % of what it made. The big side alone
# would not show it.
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("scenario-join-small-side").getOrCreate()

big = spark.range(0, 48_000_000, numPartitions=8).select((F.col("id") % 1000).alias("k"), F.col("id").alias("v"))
small = spark.range(0, 2000, numPartitions=2).select((F.col("id") % 200).alias("k"), F.col("id").alias("w"))
out = big.join(small, "k").where(F.rand(7) < 0.01)
print("rows:", out.count())
spark.stop()
