# Jobs cancelled by stop(): two jobs run in threads when the application
# calls spark.stop(); Spark fails both ("Job cancelled because SparkContext
# was shut down") and its executors go with it. The application also
# carries a container mount list in a property value, as YARN's Docker
# runtime takes it: a path list, not a secret.
import os
import sys
import threading
import time
from pyspark.sql import SparkSession

marks = sys.argv[1]
spark = SparkSession.builder.appName("scenario-jobs-cancelled-by-stop").getOrCreate()
sc = spark.sparkContext


def slow(x):
    open(os.path.join(marks, "task-%d-%f" % (x, time.time())), "w").close()
    time.sleep(30)
    return x


def job(group):
    try:
        sc.setJobGroup(group, "cancelled by stop()")
        sc.parallelize(range(8), 8).map(slow).sum()
    except Exception:
        pass  # cancelled: the context is shut down


sc.parallelize(range(100), 2).map(lambda x: x * 2).sum()  # one job that succeeds
threads = [threading.Thread(target=job, args=(g,), daemon=True) for g in ("a", "b")]
for t in threads:
    t.start()
deadline = time.time() + 60
while len(os.listdir(marks)) < 2 and time.time() < deadline:
    time.sleep(0.2)
time.sleep(2)
spark.stop()
for t in threads:
    t.join(30)
