# A driver that keeps what it computed: a notebook-style session holds each
# result it pulled into the driver JVM (here Java long arrays held through
# Py4J, as cached results and plans held by a long-lived session are) until
# its 512 MiB heap stays ~88 % full after full GCs: the next result pushes it
# into OutOfMemoryError or back-to-back full GCs. The sparkdx agent samples
# the driver JVM meanwhile.
import time
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("scenario-driver-degradation").getOrCreate()
sc = spark.sparkContext
jvm = sc._jvm
runtime = jvm.java.lang.Runtime.getRuntime()


def used_after_gc():
    jvm.System.gc()
    return (runtime.totalMemory() - runtime.freeMemory()) / runtime.maxMemory()


held = []
target = 0.88  # the rule warns at 80 % and is critical at 95 %
while True:
    # Some work on the executors, then its "result" kept in the driver.
    assert sc.parallelize(range(1000), 2).map(lambda x: x * 2).sum() == 999000
    used = used_after_gc()
    if used >= target:
        break
    n = min(4, max(1, int((target - used) * runtime.maxMemory() / (8 << 20))))
    for _ in range(n):
        # A long[] stays in the JVM (a byte[] would be copied to Python).
        held.append(sc._gateway.new_array(jvm.long, 1 << 20))  # 8 MiB
    time.sleep(0.5)
print("driver heap used after GC: %.0f %%, %d MiB held" % (100 * used, 8 * len(held)))
for _ in range(3):
    jvm.System.gc()
    time.sleep(1.5)
spark.stop()
