# A structured-streaming query: JSON files read one per micro-batch (four
# batches), aggregated into a memory sink; the query is stopped only when
# it has processed everything, so no batch is cut short.
import json
import os
import sys
from pyspark.sql import SparkSession

src = os.path.join(sys.argv[1], "in")
os.makedirs(src, exist_ok=True)
for f in range(4):
    with open(os.path.join(src, "part-%d.json" % f), "w") as out:
        for i in range(500):
            out.write(json.dumps({"k": i % 10, "v": f * 500 + i}) + "\n")

spark = SparkSession.builder.appName("scenario-streaming").getOrCreate()
q = (spark.readStream.schema("k INT, v INT").option("maxFilesPerTrigger", 1).json(src)
     .groupBy("k").count()
     .writeStream.format("memory").queryName("counts").outputMode("complete")
     .trigger(processingTime="1 second").start())
q.processAllAvailable()
q.stop()
assert len(q.recentProgress) >= 4, len(q.recentProgress)
assert spark.sql("select sum(count) from counts").collect()[0][0] == 2000
spark.stop()
