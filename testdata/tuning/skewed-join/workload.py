# A join where one key holds 80 % of the big side's rows (and 4 rows of
# the other side), with AQE on and its skew join handling off: one task
# of the join stage sorts, joins and hashes (six times) most of the rows
# (3.2 million of its 3.4 million output rows) while the other core idles;
# short payloads keep its sort in memory, so that no spill muddles it.
# tune should turn the skew join on, with a size threshold and an advisory
# size small enough for AQE to split this partition.
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("tuning-skewed-join").getOrCreate()
left = spark.range(0, 1_000_000, numPartitions=8).select(
    F.when(F.col("id") % 10 < 8, F.lit(0)).otherwise(F.col("id") % 400_000).alias("k"),
    F.substring(F.sha2(F.col("id").cast("string"), 256), 1, 16).alias("p"))
right = spark.range(0, 400_000, numPartitions=4).select(
    F.when(F.col("id") < 4, F.lit(0)).otherwise(F.col("id")).alias("k"),
    F.substring(F.sha2(F.col("id").cast("string"), 256), 1, 16).alias("q"))
h = F.concat(F.col("p"), F.col("q"))
for i in range(6):
    h = F.sha2(h, 256)
left.join(right, "k").select(h.alias("h")).write.format("noop").mode("overwrite").save()
spark.stop()
