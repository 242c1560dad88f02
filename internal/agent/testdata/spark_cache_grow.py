"""An executor whose cache grows: caches batches of random bytes (a Python
RDD kept MEMORY_ONLY is serialized in the executor's memory store) until
Spark's block manager reports more than argv[3] of the executor's storage
memory in use, writes what Spark counts to the file argv[1], then keeps the
cache and waits (up to 5 minutes) for the file argv[2], so that a test can
watch the executor meanwhile."""
import json
import os
import sys
import time

from pyspark import StorageLevel
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("cache-grows").getOrCreate()
sc = spark.sparkContext
ready, done, share = sys.argv[1], sys.argv[2], float(sys.argv[3])


def executor_storage():
    """(max, used) storage memory of the executors' block managers (the
    driver's excluded), as Spark's getExecutorMemoryStatus counts them."""
    status = sc._jsc.sc().getExecutorMemoryStatus()
    it = status.iterator()
    driver = sc._jsc.sc().env().blockManager().blockManagerId().hostPort()
    total = used = 0
    while it.hasNext():
        kv = it.next()
        if kv._1() == driver:
            continue
        mx, free = kv._2()._1(), kv._2()._2()
        total += mx
        used += mx - free
    return total, used


kept = []
for step in range(40):
    rdd = sc.parallelize(range(8), 8).map(lambda i: os.urandom(1 << 20) * 2)  # 8 partitions of 2 MiB
    rdd.persist(StorageLevel.MEMORY_ONLY)
    rdd.count()
    kept.append(rdd)
    total, used = executor_storage()
    if total and used > share * total:
        break

cached = sum(info.memSize() for info in sc._jsc.sc().getRDDStorageInfo())
blocks = sum(info.numCachedPartitions() for info in sc._jsc.sc().getRDDStorageInfo())
with open(ready + ".tmp", "w") as f:
    json.dump({"cachedMemSize": cached, "cachedBlocks": blocks, "storageMax": total, "storageUsed": used,
               "appId": sc.applicationId}, f)
os.rename(ready + ".tmp", ready)

deadline = time.time() + 300
while not os.path.exists(done) and time.time() < deadline:
    time.sleep(0.2)
spark.stop()
