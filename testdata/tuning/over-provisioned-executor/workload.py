# Hashing 1 million rows and counting them in 1,000 groups: CPU work in
# little memory, run on executors of 3 GiB of heap each. The heap never
# fills: tune should size it down to its peak with headroom, which saves
# memory GB-hours and leaves the run time as it was.
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("tuning-over-provisioned-executor").getOrCreate()
h = F.col("id").cast("string")
for i in range(2):
    h = F.sha2(h, 256)
df = spark.range(0, 1_000_000, numPartitions=4).select((F.col("id") % 1000).alias("k"), h.alias("h"))
df.groupBy("k").agg(F.count("*").alias("n"), F.max("h").alias("m")).write.format("noop").mode("overwrite").save()
spark.stop()
