# Incomplete application: the driver's JVM is killed (SIGKILL, as the OOM
# killer or a lost node does) while a job runs. It never writes its end
# event: the log stays .inprogress, with a job and a stage still open.
import os
import signal
import threading
import time

from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("scenario-incomplete-app").getOrCreate()
sc = spark.sparkContext


def work():
    try:
        sc.parallelize(range(64), 16).map(lambda x: time.sleep(2) or x).sum()
    except Exception:
        pass  # the driver is gone


threading.Thread(target=work, daemon=True).start()
time.sleep(10)  # the job runs: some tasks done, the others running
# spark-submit's JVM is the driver and runs this script as its child.
os.kill(os.getppid(), signal.SIGKILL)
os._exit(0)
