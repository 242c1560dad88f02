# Two jobs for the per-stage profile scenario, run when a line arrives on
# stdin: a CPU-heavy Java UDF (BusyUDF, its classes directory in argv[1]
# of the template) and a shuffle-heavy repartition. Prints "ready APP_ID"
# first and, when both ended, the stage ids of each job as JSON.
import json
import sys

from pyspark.sql import SparkSession
from pyspark.sql.types import LongType

spark = (SparkSession.builder.master("local[2]").appName("profile-stages")
         .config("spark.driver.extraClassPath", "%(classes)s")
         .config("spark.driver.memory", "512m")
         .config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "4")
         .config("spark.sql.adaptive.enabled", "false")
         .getOrCreate())
spark.udf.registerJavaFunction("busy", "BusyUDF", LongType())
sc = spark.sparkContext
print("ready", sc.applicationId, flush=True)
sys.stdin.readline()


def stages(group):
    ids = []
    for job in sc.statusTracker().getJobIdsForGroup(group):
        ids += list(sc.statusTracker().getJobInfo(job).stageIds)
    return sorted(ids)


sc.setJobGroup("udf", "udf")
spark.range(0, %(udfRows)d, 1, 4).selectExpr("busy(id) as x").agg({"x": "sum"}).collect()
sc.setJobGroup("shuffle", "shuffle")
# Cheap rows, many bytes: the map stage's time goes to writing them.
(spark.range(0, %(shuffleRows)d, 1, 4)
 .selectExpr("id %% 100003 as k", "id * 3 as a", "id * 7 as b", "id * 11 as c", "id * 13 as d", "id * 17 as e")
 .repartition(4, "k").selectExpr("sum(a + b + c + d + e)").collect())
print(json.dumps({"udf": stages("udf"), "shuffle": stages("shuffle")}), flush=True)
sys.stdin.read()
