# Shuffle files lost on live executors: a job writes shuffle output, then
# something on the nodes deletes it (a tmp cleaner, a full or failing local
# disk) while the executors stay up. The next job that reads that shuffle
# gets FetchFailed, and Spark re-runs the map stage and then the reduce stage.
import glob
import os
import time
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("scenario-shuffle-files-lost").getOrCreate()
sc = spark.sparkContext


def work(rows):
    for r in rows:
        if r % 1000 == 0:
            time.sleep(0.2)
        yield (r % 100, r)


pairs = sc.parallelize(range(40000), 4).mapPartitions(work).reduceByKey(lambda a, b: a + b)
assert pairs.count() == 100


def delete_shuffle_files(_):
    # The executor's local directories (a standalone Worker gives them in
    # SPARK_EXECUTOR_DIRS; SPARK_LOCAL_DIRS elsewhere).
    roots = os.environ.get("SPARK_EXECUTOR_DIRS") or os.environ.get("SPARK_LOCAL_DIRS") or ""
    n = 0
    for root in filter(None, roots.split(os.pathsep)):
        for f in glob.glob(os.path.join(root, "**", "shuffle_*"), recursive=True):
            try:
                os.remove(f)
                n += 1
            except FileNotFoundError:
                pass
    yield n


deleted = sc.parallelize(range(8), 8).mapPartitions(delete_shuffle_files).sum()
assert deleted > 0, "no shuffle file found to delete"
# Reads the same shuffle: its map stage is skipped, the reduce stage fetches
# the deleted files.
assert pairs.values().sum() == sum(range(40000))
spark.stop()
