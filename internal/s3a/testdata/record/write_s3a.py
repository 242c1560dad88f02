"""Writes two DataFrames to s3a:// on MinIO, the way a user writes output,
so that the S3A committer named by the submission's configuration leaves
its _SUCCESS summary under each output path.

usage: write_s3a.py BUCKET FORMAT

- many-files: 240 partitions of 50 rows each: a few KiB per task, so each
  task's time is its S3 requests (the magic committer's upload, .pending
  and .pendingset files, the job commit's completions): S3 dominates.
- few-files: 2 partitions computing a hash chain over 400 000 rows each:
  the time is the computation, the S3 requests a small part of it.
"""
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

bucket, fmt = sys.argv[1], sys.argv[2]
spark = SparkSession.builder.appName("sparkdx-s3a-write").getOrCreate()

many = spark.range(0, 240 * 50, 1, 240).withColumn("v", F.col("id") * 7)
many.write.mode("overwrite").format(fmt).save(f"s3a://{bucket}/many-files")

few = spark.range(0, 800_000, 1, 2)
h = F.col("id").cast("string")
for _ in range(24):
    h = F.sha2(h, 256)
few.select("id", h.alias("h")).write.mode("overwrite").format(fmt).save(f"s3a://{bucket}/few-files")
spark.stop()
