# A join that multiplies rows: two tables of 16,000 rows joined on a key
# with 4 distinct values give 64,000,000 rows.
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("scenario-join-explosion").config("spark.sql.autoBroadcastJoinThreshold", "-1").getOrCreate()
a = spark.range(0, 16000, numPartitions=2).withColumn("k", F.col("id") % 4)
b = spark.range(0, 16000, numPartitions=2).withColumn("k", F.col("id") % 4).withColumnRenamed("id", "id2")
n = a.join(b, "k").count()
assert n == 64_000_000
spark.stop()
