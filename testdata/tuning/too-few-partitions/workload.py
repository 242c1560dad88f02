# An aggregation of 3 million rows into 600,000 groups read through ONE
# shuffle partition, AQE off so nothing splits it, on a cluster of two
# cores: the reduce stage, which also hashes every group, runs as one task
# while the other core idles. tune should raise the partitions to the cores.
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("tuning-too-few-partitions").getOrCreate()
df = spark.range(0, 3_000_000, numPartitions=2).withColumn("k", F.col("id") % 600_000)
agg = df.groupBy("k").agg(F.sum("id").alias("s"), F.count("*").alias("c"))
# Twenty rounds of hashing are the reduce side's work: CPU that splits
# evenly over its tasks.
h = F.concat_ws(",", F.col("k"), F.col("s"), F.col("c"))
for i in range(20):
    h = F.sha2(h, 256)
agg.select(h.alias("h")).write.format("noop").mode("overwrite").save()
spark.stop()
