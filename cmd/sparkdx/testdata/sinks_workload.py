"""The application TestStandaloneCluster's ServeSparkSinks runs: a sort whose
output one Python task reads a row of and then holds, so that the executor
keeps the sort's pages in execution memory while the test reads what Spark's
own metric sinks sent to `sparkdx serve`. argv[1] is the ready file (the
task writes the application id there, as JSON, once it holds), argv[2] the
done file (the task lets go once it exists)."""

import json
import os
import sys
import time

from pyspark.sql import SparkSession

ready, done = sys.argv[1], sys.argv[2]
spark = SparkSession.builder.appName("sparkdx-sinks").getOrCreate()
app = spark.sparkContext.applicationId


def hold(rows):
    for _ in rows:
        with open(ready + ".tmp", "w") as f:
            json.dump({"appId": app}, f)
        os.rename(ready + ".tmp", ready)
        while not os.path.exists(done):
            time.sleep(0.1)
        return


spark.range(0, 300000, numPartitions=1).selectExpr("id", "rand(7) as r").orderBy("r").foreachPartition(hold)
spark.stop()
