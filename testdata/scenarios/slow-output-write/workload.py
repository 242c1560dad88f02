# Slow output write: a million rows written partitioned by a column of
# 800 values from 8 tasks, to a local path: 6,400 small Parquet files,
# each opened, written and closed, then moved into place at commit. The
# write is most of the application.
import sys

from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("scenario-slow-output-write").getOrCreate()
rows = spark.range(0, 1_000_000, numPartitions=8).select(
    (F.col("id") % 800).alias("k"), F.col("id").alias("v"), F.sha2(F.col("id").cast("string"), 256).alias("h"))
rows.write.partitionBy("k").mode("overwrite").parquet(sys.argv[1])
spark.stop()
