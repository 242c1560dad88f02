# A join of 6 million rows with 1,000 with broadcasts turned off: both
# sides are shuffled and sorted. tune should raise the broadcast threshold
# above the small side.
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("tuning-missed-broadcast").getOrCreate()
big = spark.range(0, 6_000_000, numPartitions=4).select((F.col("id") % 1000).alias("k"), F.col("id").alias("v"))
small = spark.range(0, 1000, numPartitions=1).select(F.col("id").alias("k"), (F.col("id") * 2).alias("w"))
big.join(small, "k").write.format("noop").mode("overwrite").save()
spark.stop()
