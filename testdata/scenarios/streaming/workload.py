# A structured-streaming query: a rate source aggregated into a memory
# sink, a few micro-batches, then stopped.
import time
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("scenario-streaming").getOrCreate()
q = (spark.readStream.format("rate").option("rowsPerSecond", 200).load()
     .selectExpr("value % 10 as k").groupBy("k").count()
     .writeStream.format("memory").queryName("counts").outputMode("complete")
     .trigger(processingTime="2 seconds").start())
deadline = time.time() + 60
while len(q.recentProgress) < 4 and time.time() < deadline:
    time.sleep(0.5)
q.stop()
assert len(q.recentProgress) >= 4
spark.stop()
