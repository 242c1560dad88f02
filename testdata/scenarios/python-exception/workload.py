# A stage aborted by a Python exception: every attempt of one task raises
# in user code, the job fails after spark.task.maxFailures attempts.
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("scenario-python-exception").getOrCreate()
sc = spark.sparkContext


def parse(x):
    if x == 777:
        raise ValueError("cannot parse record %d" % x)  # the user's line
    return x * 2


try:
    sc.parallelize(range(1000), 4).map(parse).sum()
except Exception as e:  # the job failed; the app ends cleanly so the log is complete
    print("job failed:", type(e).__name__)
spark.stop()
