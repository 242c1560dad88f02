# An aggregation of 1.2 million rows into 600,000 groups read through ONE
# shuffle partition, AQE off so nothing splits it, on a cluster of two
# cores: the reduce stage, which also hashes every group thirty times,
# runs as one task while the other core idles, and it dominates the job
# (the map side, two rows a group, is light). tune should raise the
# partitions to the cores.
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("tuning-too-few-partitions").getOrCreate()
df = spark.range(0, 1_200_000, numPartitions=2).withColumn("k", F.col("id") % 600_000)
agg = df.groupBy("k").agg(F.sum("id").alias("s"), F.count("*").alias("c"))
# Thirty rounds of hashing are the reduce side's work: CPU that splits
# evenly over its tasks.
h = F.concat_ws(",", F.col("k"), F.col("s"), F.col("c"))
for i in range(30):
    h = F.sha2(h, 256)
agg.select(h.alias("h")).write.format("noop").mode("overwrite").save()
spark.stop()
