# An aggregation of 400,000 rows into 5,000 groups through 200 shuffle
# partitions, AQE off so nothing coalesces them: 200 tiny reduce tasks on
# two cores. tune should cut the partitions to the cores.
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("tuning-many-partitions").getOrCreate()
df = spark.range(0, 400_000, numPartitions=2).withColumn("k", F.col("id") % 5000)
df.groupBy("k").agg(F.sum("id").alias("s")).write.format("noop").mode("overwrite").save()
spark.stop()
