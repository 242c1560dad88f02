"""Caches a DataFrame and a broadcast join's build side in executor memory,
prints what Spark's block manager counts for the cache, writes the file
named by argv[1] and waits (up to 5 minutes) for the file argv[2], so that
a test can dump the executor's heap meanwhile."""
import json
import os
import sys
import time

from pyspark import StorageLevel
from pyspark.sql import SparkSession
from pyspark.sql.functions import broadcast

spark = SparkSession.builder.appName("spark-cache").getOrCreate()
sc = spark.sparkContext
ready, done = sys.argv[1], sys.argv[2]

df = spark.range(0, 1_500_000, numPartitions=2).selectExpr("id", "concat('row-', cast(id as string)) as s")
df.persist(StorageLevel.MEMORY_ONLY)
df.count()

small = spark.range(0, 50_000).selectExpr("id", "id * 2 as v")
spark.range(0, 200_000).join(broadcast(small), "id").count()

cached = 0
for info in sc._jsc.sc().getRDDStorageInfo():
    cached += info.memSize()
with open(ready + ".tmp", "w") as f:
    json.dump({"cachedMemSize": cached}, f)
os.rename(ready + ".tmp", ready)

deadline = time.time() + 300
while not os.path.exists(done) and time.time() < deadline:
    time.sleep(0.2)
spark.stop()
