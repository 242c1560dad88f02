# A healthy job: a DataFrame aggregation over evenly spread keys and a
# small RDD shuffle; nothing a user should be warned about.
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("scenario-baseline").getOrCreate()
df = spark.range(0, 2_000_000, numPartitions=4).withColumn("k", F.col("id") % 100)
rows = df.groupBy("k").agg(F.sum("id").alias("s"), F.count("*").alias("n")).collect()
assert len(rows) == 100
pairs = spark.sparkContext.parallelize(range(100_000), 4).map(lambda x: (x % 50, x)).reduceByKey(lambda a, b: a + b)
assert pairs.count() == 50
spark.stop()
