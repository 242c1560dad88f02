# No executor ever: submitted to a standalone Master without any Worker.
# A job waits 40 s for resources that never come; then the application
# gives up and stops (the job is cancelled with the SparkContext).
import threading
import time

from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("scenario-no-executor").getOrCreate()
sc = spark.sparkContext


def work():
    try:
        sc.parallelize(range(8), 4).map(lambda x: x * 2).sum()
    except Exception:
        pass  # cancelled by spark.stop()


threading.Thread(target=work, daemon=True).start()
time.sleep(40)
spark.stop()
