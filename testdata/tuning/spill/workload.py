# A sort of 2 million rows with 5 % of the heap for execution and storage:
# the sort spills to disk. tune should give the memory fraction back.
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("tuning-spill").getOrCreate()
df = spark.range(0, 2_000_000, numPartitions=2).withColumn("s", F.expr("repeat('x', 40)")).withColumn("r", F.rand(7))
df.orderBy("r").write.format("noop").mode("overwrite").save()
spark.stop()
