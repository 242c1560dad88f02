"""Reads sparkdx's Delta tables with Apache Spark and Delta Lake
(delta-spark) and prints what it sees as JSON, in the shape of
deltars_read.py: per table its version, protocol, partition columns, live
files and rows, the app ids, and for samples the sum of the values, the
files a date filter keeps, and the rows of version V (time travel; none
when V < 0).

usage: spark_delta_read.py ROOT TABLE[,TABLE...] V
ROOT is a directory or an s3:// URL (read as s3a://); DELTA_STORAGE_OPTIONS
(JSON: AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) reaches
the object store. The jars come in SPARKDX_DELTA_JARS (comma-separated)."""
import json
import os
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

root, names, then = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3])
opts = json.loads(os.environ.get("DELTA_STORAGE_OPTIONS") or "{}") or {}
builder = SparkSession.builder
if root.startswith("s3://"):
    root = "s3a://" + root[len("s3://"):]
    endpoint = opts.get("AWS_ENDPOINT_URL", "")
    for k, v in {
        "fs.s3a.endpoint": endpoint,
        "fs.s3a.path.style.access": "true",
        "fs.s3a.connection.ssl.enabled": str(endpoint.startswith("https://")).lower(),
        "fs.s3a.access.key": opts.get("AWS_ACCESS_KEY_ID", ""),
        "fs.s3a.secret.key": opts.get("AWS_SECRET_ACCESS_KEY", ""),
        "fs.s3a.aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
    }.items():
        builder = builder.config("spark.hadoop." + k, v)
spark = (
    builder.master("local[2]")
    .appName("sparkdx-delta-read")
    .config("spark.jars", os.environ["SPARKDX_DELTA_JARS"])
    .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
    .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
    .config("spark.ui.enabled", "false")
    .config("spark.sql.shuffle.partitions", "2")
    .getOrCreate()
)
spark.sparkContext.setLogLevel("ERROR")
out = {}
for name in names:
    path = f"{root}/{name}"
    df = spark.read.format("delta").load(path)
    detail = spark.sql(f"DESCRIBE DETAIL delta.`{path}`").first()
    version = spark.sql(f"DESCRIBE HISTORY delta.`{path}` LIMIT 1").first()["version"]
    info = {
        "version": version,
        "protocol": [detail["minReaderVersion"], detail["minWriterVersion"]],
        "partitionColumns": list(detail["partitionColumns"]),
        "columns": df.columns,
        "files": detail["numFiles"],
        "rows": df.count(),
    }
    if "app_id" in df.columns:
        info["apps"] = sorted(r[0] for r in df.select("app_id").where("app_id IS NOT NULL").distinct().collect())
    if name == "samples":
        info["valueSum"] = df.agg(F.sum("value")).first()[0]
        dates = sorted(r[0] for r in df.select("date").distinct().collect())
        # Partition pruning: the files Spark reads for one date.
        info["filesByDate"] = {d: len(df.where(F.col("date") == d).inputFiles()) for d in dates}
        if then >= 0:
            info["rowsThen"] = spark.read.format("delta").option("versionAsOf", then).load(path).count()
    out[name] = info
spark.stop()
json.dump(out, sys.stdout)
