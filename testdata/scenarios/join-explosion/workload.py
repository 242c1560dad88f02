# A join that multiplies rows: two tables of 48,000 rows joined on a key
# with 4 distinct values give 576,000,000 rows: enough that the join's own
# stage is a large share of the application on a quiet machine as on a
# loaded one (64,000,000 rows were 2.5 s of a 46 s app, under 5 %: info).
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("scenario-join-explosion").config("spark.sql.autoBroadcastJoinThreshold", "-1").getOrCreate()
a = spark.range(0, 48000, numPartitions=2).withColumn("k", F.col("id") % 4)
b = spark.range(0, 48000, numPartitions=2).withColumn("k", F.col("id") % 4).withColumnRenamed("id", "id2")
n = a.join(b, "k").count()
assert n == 576_000_000
spark.stop()
