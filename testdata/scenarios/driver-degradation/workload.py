# A driver that keeps what it computed: a notebook-style session holds each
# result it pulled into the driver JVM (here 12 × 32 MB of Java long arrays
# held through Py4J, as cached results and plans held by a long-lived
# session are) in a 512 MiB driver heap. After every full GC the old generation stays
# well over 80 % full: the next result pushes it into OutOfMemoryError or
# back-to-back full GCs. The sparkdx agent samples the driver JVM meanwhile.
import time
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("scenario-driver-degradation").getOrCreate()
sc = spark.sparkContext
jvm = sc._jvm
held = []
for round in range(12):
    # Some work on the executors, then its "result" kept in the driver.
    assert sc.parallelize(range(1000), 2).map(lambda x: x * 2).sum() == 999000
    # A long[] stays in the JVM (a byte[] would be copied to Python).
    held.append(sc._gateway.new_array(jvm.long, 4 << 20))
    if round % 4 == 3:
        jvm.System.gc()
        time.sleep(1)
for _ in range(3):
    jvm.System.gc()
    time.sleep(1.5)
spark.stop()
