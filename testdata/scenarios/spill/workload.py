# Spill: a sort of a few hundred MB through two shuffle partitions with a
# tiny share of the heap for execution memory, so the sorter spills.
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("scenario-spill").getOrCreate()
df = spark.range(0, 2_000_000, numPartitions=2).withColumn("s", F.expr("repeat('x', 40)")).withColumn("r", F.rand(7))
df.orderBy("r").write.format("noop").mode("overwrite").save()  # the sort runs; nothing is kept
spark.stop()
