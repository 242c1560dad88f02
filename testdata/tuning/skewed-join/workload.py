# A join where one key holds 80 % of the big side's rows, with AQE on and
# its skew join handling off: one task of the join stage sorts, joins and
# hashes most of the rows while the other cores idle. tune should turn the
# skew join on, with a size threshold and an advisory size small enough
# for AQE to split this partition.
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("tuning-skewed-join").getOrCreate()
left = spark.range(0, 1_000_000, numPartitions=8).select(
    F.when(F.col("id") % 10 < 8, F.lit(0)).otherwise(F.col("id") % 400_000).alias("k"),
    F.sha2(F.col("id").cast("string"), 256).alias("p"))
right = spark.range(0, 400_000, numPartitions=4).select(
    F.col("id").alias("k"), F.sha2(F.col("id").cast("string"), 256).alias("q"))
h = F.concat(F.col("p"), F.col("q"))
for i in range(4):
    h = F.sha2(h, 256)
left.join(right, "k").select(h.alias("h")).write.format("noop").mode("overwrite").save()
spark.stop()
