package analyze

import "testing"

func TestParseTaskError(t *testing.T) {
	cases := []struct {
		name, reason, msg string
		want              TaskError
	}{
		{"python udf", "ExceptionFailure", "org.apache.spark.api.python.PythonException: Traceback (most recent call last):\n" +
			"  File \"/opt/spark/python/lib/pyspark.zip/pyspark/worker.py\", line 1247, in main\n    process()\n" +
			"  File \"/usr/lib/python3.11/json/__init__.py\", line 346, in loads\n" +
			"  File \"/jobs/etl.py\", line 11, in parse\n    raise ValueError(\"bad %d\" % x)\n    ^^^^^\n" +
			"ValueError: bad 777\n SQLSTATE: 38000\n\tat org.apache.spark.api.python.BasePythonRunner.handle(PythonRunner.scala:1097)",
			TaskError{Class: "ValueError", Message: "bad 777", Wrapper: "org.apache.spark.api.python.PythonException",
				Frame: Frame{File: "/jobs/etl.py", Line: 11, Function: "parse"}}},
		{"python error raised in the standard library", "ExceptionFailure", "PythonException: Traceback (most recent call last):\n" +
			"  File \"/jobs/etl.py\", line 3, in load\n    json.loads(s)\n" +
			"  File \"/root/.pyenv/versions/3.11.7/lib/python3.11/json/decoder.py\", line 355, in raw_decode\n" +
			"json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n",
			TaskError{Class: "json.decoder.JSONDecodeError", Message: "Expecting value: line 1 column 1 (char 0)",
				Wrapper: "PythonException", Frame: Frame{File: "/jobs/etl.py", Line: 3, Function: "load"}}},
		{"chained python exceptions name the last", "ExceptionFailure", "Traceback (most recent call last):\n" +
			"  File \"/a.py\", line 1, in f\nKeyError: 'x'\n\nDuring handling of the above exception, another exception occurred:\n\n" +
			"Traceback (most recent call last):\n  File \"/a.py\", line 5, in g\nRuntimeError: wrapped\n",
			TaskError{Class: "RuntimeError", Message: "wrapped", Frame: Frame{File: "/a.py", Line: 5, Function: "g"}}},
		{"jvm caused by", "ExceptionFailure", "org.apache.spark.SparkException: Task failed while writing rows.\n" +
			"\tat org.apache.spark.sql.execution.datasources.FileFormatWriter$.executeTask(FileFormatWriter.scala:291)\n" +
			"\tat com.acme.Etl.write(Etl.scala:88)\n" +
			"Caused by: java.io.IOException: No space left on device\n" +
			"\tat java.base/java.io.FileOutputStream.writeBytes(Native Method)\n" +
			"\tat com.acme.Sink.flush(Sink.java:42)\n\t... 12 more",
			TaskError{Class: "java.io.IOException", Message: "No space left on device", Wrapper: "org.apache.spark.SparkException",
				Frame: Frame{File: "Sink.java", Line: 42, Function: "com.acme.Sink.flush"}}},
		{"user frame only in the outer section", "ExceptionFailure", "java.lang.IllegalStateException: boom\n" +
			"\tat com.acme.Job.run(Job.scala:7)\nCaused by: java.lang.NullPointerException\n\tat java.util.Objects.requireNonNull(Objects.java:209)",
			TaskError{Class: "java.lang.NullPointerException", Wrapper: "java.lang.IllegalStateException",
				Frame: Frame{File: "Job.scala", Line: 7, Function: "com.acme.Job.run"}}},
		{"spark 1.x stack without a full trace", "ExceptionFailure", "java.lang.RuntimeException: got a 3, failing\n" +
			"        $line11.$read$$iwC$$anonfun$1.apply(<console>:18)\n        org.apache.spark.rdd.RDD.iterator(RDD.scala:1)",
			TaskError{Class: "java.lang.RuntimeException", Message: "got a 3, failing"}},
		{"spark 1.2+ stack", "ExceptionFailure", "java.lang.RuntimeException: got a 3, failing\n" +
			"\tat $line11.$read$$iwC$$anonfun$1.apply(<console>:18)\n\tat scala.collection.Iterator$$anon$11.next(Iterator.scala:328)",
			TaskError{Class: "java.lang.RuntimeException", Message: "got a 3, failing",
				Frame: Frame{File: "<console>", Line: 18, Function: "$line11.$read$$iwC$$anonfun$1.apply"}}},
		{"lambda hidden class and app// loader prefix", "ExceptionFailure", "java.lang.OutOfMemoryError: Java heap space\n" +
			"\tat org.apache.spark.sql.catalyst.expressions.GeneratedClass$GeneratedIteratorForCodegenStage1.processNext(Unknown Source)\n" +
			"\tat org.apache.spark.sql.execution.SparkPlan$$Lambda$2571/0x00007fdcb8de4458.apply(Unknown Source)\n" +
			"\tat app//com.acme.Agg.merge(Agg.scala:12)\n",
			TaskError{Class: "java.lang.OutOfMemoryError", Message: "Java heap space",
				Frame: Frame{File: "Agg.scala", Line: 12, Function: "com.acme.Agg.merge"}}},
		{"executor lost", "ExecutorLostFailure", "executor 1 lost, caused by one of the running tasks: Command exited with code 137",
			TaskError{Class: "ExecutorLostFailure", Message: "executor 1 lost, caused by one of the running tasks: Command exited with code 137"}},
		// Spark 4.3 (the shuffle-files-lost scenario): the deepest cause says
		// why the fetch failed.
		{"fetch failed, file gone", "FetchFailed", "org.apache.spark.shuffle.FetchFailedException\n" +
			"\tat org.apache.spark.errors.SparkCoreErrors$.fetchFailedError(SparkCoreErrors.scala:398)\n" +
			"Caused by: java.nio.file.NoSuchFileException: /tmp/local/blockmgr-99ba4555/0f/shuffle_0_1_0.index\n" +
			"\tat java.base/sun.nio.fs.UnixException.translateToIOException(UnixException.java:92)\n",
			TaskError{Class: "java.nio.file.NoSuchFileException", Message: "/tmp/local/blockmgr-99ba4555/0f/shuffle_0_1_0.index",
				Wrapper: "FetchFailed"}},
		// A remote fetch: the shuffle server's error comes as text inside a
		// RuntimeException.
		{"fetch failed, remote", "FetchFailed", "org.apache.spark.shuffle.FetchFailedException\n" +
			"\tat org.apache.spark.errors.SparkCoreErrors$.fetchFailedError(SparkCoreErrors.scala:398)\n" +
			"Caused by: java.lang.RuntimeException: java.nio.file.NoSuchFileException: /tmp/local/blockmgr-44217add/30/shuffle_0_0_0.index\n" +
			"\tat org.apache.spark.network.client.TransportResponseHandler.handle(TransportResponseHandler.java:156)\n",
			TaskError{Class: "java.nio.file.NoSuchFileException", Message: "/tmp/local/blockmgr-44217add/30/shuffle_0_0_0.index",
				Wrapper: "FetchFailed"}},
		{"fetch failed, text only", "FetchFailed", "Failed to connect to host-2/10.0.0.2:7337",
			TaskError{Class: "FetchFailed", Message: "Failed to connect to host-2/10.0.0.2:7337"}},
		// Spark's own verdict around a bare transport error names the
		// failure, not the EOFException without a message inside it.
		{"python worker crashed", "ExceptionFailure", "org.apache.spark.SparkException: Python worker exited unexpectedly (crashed)\n" +
			"\tat org.apache.spark.api.python.BasePythonRunner$ReaderIterator$$anonfun$1.applyOrElse(PythonRunner.scala:612)\n" +
			"Caused by: java.io.EOFException\n\tat java.base/java.io.DataInputStream.readInt(DataInputStream.java:398)\n",
			TaskError{Class: "org.apache.spark.SparkException", Message: "Python worker exited unexpectedly (crashed)"}},
		// A plugin's frames (RAPIDS) are not the user's code: the first
		// frame outside the listed packages is.
		{"plugin frames", "ExceptionFailure", "com.nvidia.spark.rapids.jni.GpuSplitAndRetryOOM: GPU OutOfMemory: could not split inputs and retry\n" +
			"\tat com.nvidia.spark.rapids.RmmRapidsRetryIterator$AutoCloseableAttemptSpliterator.split(RmmRapidsRetryIterator.scala:458)\n" +
			"\tat ai.rapids.cudf.Table.concatenate(Table.java:1640)\n" +
			"\tat org.apache.spark.sql.execution.SparkPlan.execute(SparkPlan.scala:195)\n" +
			"\tat com.acme.Report.run(Report.scala:31)\n",
			TaskError{Class: "com.nvidia.spark.rapids.jni.GpuSplitAndRetryOOM", Message: "GPU OutOfMemory: could not split inputs and retry",
				Frame: Frame{File: "Report.scala", Line: 31, Function: "com.acme.Report.run"}}},
		{"empty", "ExceptionFailure", "", TaskError{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ParseTaskError(c.reason, c.msg); got != c.want {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestFrameString(t *testing.T) {
	f := Frame{File: "/jobs/etl.py", Line: 11, Function: "parse"}
	if got := f.String(); got != "etl.py:11 in parse" {
		t.Errorf("got %q", got)
	}
	e := TaskError{Class: "ValueError", Message: "bad", Frame: f}
	if got := e.String(); got != "ValueError: bad (at etl.py:11 in parse)" {
		t.Errorf("got %q", got)
	}
}

func FuzzParseTaskError(f *testing.F) {
	f.Add("ExceptionFailure", "a.B: c\n\tat x.Y(Z.java:1)\nCaused by: q: r\n\tat u(v:w)")
	f.Add("ExceptionFailure", "Traceback (most recent call last):\n  File \"x\", line 1, in f\nE: m")
	f.Add("ExceptionFailure", "Traceback (most recent call last):\n  File \"")
	f.Add("FetchFailed", "org.apache.spark.shuffle.FetchFailedException: x")
	f.Fuzz(func(t *testing.T, reason, msg string) {
		e := ParseTaskError(reason, msg)
		_ = e.String()
	})
}
