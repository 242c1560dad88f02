# A join on an OR condition: no equi-join key, so with broadcasts off Spark
# plans a CartesianProduct and tests every pair of rows — 12000 × 12000 =
# 144 M pairs — for an output of about 30 000 rows.
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("scenario-cartesian-or").getOrCreate()

a = spark.range(0, 12000, numPartitions=4).select(F.col("id").alias("a"), (F.col("id") * 7 % 12000).alias("a2"))
b = spark.range(0, 12000, numPartitions=4).select(F.col("id").alias("b"), (F.col("id") * 13 % 12000).alias("b2"))
print("rows:", a.join(b, (a.a == b.b) | (a.a2 == b.b2)).count())
spark.stop()
