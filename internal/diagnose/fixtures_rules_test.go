package diagnose_test

const (
	sec = int64(1000)
	mn  = 60 * sec
	kb  = int64(1) << 10
	mb  = int64(1) << 20
	gb  = int64(1) << 30
)

// fixtures builds, per rule, a log where the rule must fire and one where
// it must stay silent. The comment of each says what the numbers are.
var fixtures = map[string]func() (fires, quiet *fx){
	// Dynamic allocation with no initial executors: stage 0 is submitted
	// at 10 s and its executors come 6 min later (70 % of 8.5 min). Quiet:
	// the driver works alone for 3 min (not waiting: Spark requests
	// executors only for pending tasks), then executors come in 5 s.
	"resource-wait": func() (*fx, *fx) {
		build := func(submit, firstExec int64) *fx {
			f := newApp("rw", "spark.dynamicAllocation.enabled", "true", "spark.dynamicAllocation.maxExecutors", "10")
			f.executors(2, 4, firstExec)
			end := f.job(0, -1, &stage{id: 0, submit: submit, tasks: uniform(16, 30*sec, 2, 4, func(i int, t *task) {
				t.launch += firstExec - submit + sec
			})})
			f.appEnd(max(end+2*mn, 7*mn))
			return f
		}
		return build(10*sec, 6*mn), build(3*mn, 3*mn+5*sec)
	},
	// A write whose driver-side job commit takes 5 min after 1 min of
	// write tasks, vs a 5 s commit after 6 min of compute.
	"slow-output-write": func() (*fx, *fx) {
		build := func(compute, commit int64) *fx {
			f := newApp("sow", "spark.sql.sources.commitProtocolClass",
				"org.apache.spark.sql.execution.datasources.SQLHadoopMapReduceCommitProtocol")
			f.executors(2, 4, 5*sec)
			at := f.job(0, -1, &stage{id: 0, submit: 10 * sec, tasks: uniform(8, compute, 2, 4, nil)})
			write := plan{name: "Execute InsertIntoHadoopFsRelationCommand", metrics: []accum{
				{id: 101, name: "number of written files"}, {id: 102, name: "written output"},
				{id: 103, name: "number of output rows"}, {id: 104, name: "job commit time"}},
				children: []plan{{name: "Scan parquet sales"}}}
			f.sqlStart(1, at+sec, "insert into sales_by_day", write)
			end := f.job(1, 1, &stage{id: 1, submit: at + 2*sec, tasks: uniform(8, mn, 2, 4, func(i int, t *task) {
				t.outBytes, t.outRecs = 512*mb, 5_000_000
				t.accums = []accum{{101, "number of written files", 1}, {102, "written output", 512 * mb},
					{103, "number of output rows", 5_000_000}}
			})})
			f.driverAccums(1, [2]int64{104, commit})
			f.sqlEnd(1, end+commit)
			f.appEnd(end + commit + 10*sec)
			return f
		}
		return build(30*sec, 5*mn), build(6*mn, 5*sec)
	},
	// One task of 300 s against 19 of 20 s (15×, max = stage), vs 20 even tasks.
	"data-skew": func() (*fx, *fx) {
		build := func(long int64) *fx {
			f := newApp("skew")
			f.executors(5, 4, 5*sec)
			end := f.job(0, -1, &stage{id: 0, submit: 10 * sec, tasks: uniform(20, 20*sec, 5, 4, func(i int, t *task) {
				t.shRead = 100 * mb
				if i == 7 {
					t.dur, t.shRead = long, 100*mb*long/(20*sec)
				}
			})})
			f.appEnd(end + 5*sec)
			return f
		}
		return build(300 * sec), build(21 * sec)
	},
	// host-4's tasks take 400 s against 40 s elsewhere for the same bytes;
	// quiet: they also read 10× the bytes (skew, not the host).
	"straggler-host": func() (*fx, *fx) {
		build := func(slowBytes int64) *fx {
			f := newApp("straggler")
			f.executors(4, 5, 5*sec)
			end := f.job(0, -1, &stage{id: 0, submit: 10 * sec, tasks: uniform(20, 40*sec, 4, 5, func(i int, t *task) {
				t.inBytes = 128 * mb
				if t.exec == "4" {
					t.dur, t.inBytes = 400*sec, slowBytes
				}
			})})
			f.appEnd(end + 5*sec)
			return f
		}
		return build(128 * mb), build(1280 * mb)
	},
	// 3 GiB spilled from memory, 1.5 GiB on disk, for 4 GiB of shuffle
	// read (0.75) vs the same with 512 MiB on disk (below the 1 GiB gate).
	"spill": func() (*fx, *fx) {
		// 3 GiB spilled of 4 GiB read (0.75) in a stage that is most of the
		// app, vs 256 MiB spilled of 4 GiB (0.0625).
		build := func(mem int64) *fx {
			f := newApp("spill")
			f.executors(2, 4, 5*sec)
			end := f.job(0, -1, &stage{id: 0, submit: 10 * sec, tasks: uniform(8, 2*mn, 2, 4, func(i int, t *task) {
				t.shRead, t.memSpill, t.diskSpill = 512*mb, mem/8, mem/48
			})})
			f.appEnd(end + 5*sec)
			return f
		}
		return build(3072 * mb), build(256 * mb)
	},
	// A RAPIDS stage whose tasks spent 200 s of their 960 s spilling GPU
	// memory to host memory (1.5 GiB each, nothing on disk) and retried 3
	// GPU OOMs plus 3 on split input, vs the same stage spilling and
	// retrying nothing.
	"gpu-spill": func() (*fx, *fx) {
		build := func(spill int64, spillTime, retries string) *fx {
			f := newApp("gpu", "spark.plugins", "com.nvidia.spark.SQLPlugin", "spark.executor.cores", "8",
				"spark.executor.resource.gpu.amount", "1", "spark.task.resource.gpu.amount", "0.125")
			f.executors(2, 8, 5*sec)
			s := &stage{id: 0, submit: 10 * sec, tasks: uniform(16, mn, 2, 8, func(i int, t *task) {
				t.memSpill = spill
			}), plugin: [][2]string{{"gpuSemaphoreWait", "00:00:40.000"}, {"gpuSpillDevice2HostTime", spillTime},
				{"gpuRetryCount", retries}, {"gpuSplitAndRetryCount", retries}}}
			end := f.job(0, -1, s)
			f.appEnd(end + 5*sec)
			return f
		}
		return build(1536*mb, "00:03:20.000", "3"), build(0, "00:00:00.000", "0")
	},
	// Executor 2 peaks at 3.9 GiB of a 4 GiB heap with 3 major GCs, vs 2 GiB.
	"oom-risk": func() (*fx, *fx) {
		build := func(heap int64) *fx {
			f := newApp("oom")
			f.executors(2, 4, 5*sec)
			end := f.job(0, -1, &stage{id: 0, submit: 10 * sec, tasks: uniform(8, mn, 2, 4, func(i int, t *task) {
				h := int64(gb)
				if t.exec == "2" {
					h = heap
				}
				t.execMetrics = obj{"JVMHeapMemory", h, "JVMOffHeapMemory", 90 * mb, "MajorGCCount", 3, "MajorGCTime", 4000}
			})})
			f.appEnd(end + 5*sec)
			return f
		}
		return build(3994 * mb), build(2 * gb)
	},
	// Executor 2 killed by YARN for exceeding memory limits while running
	// a task (ExecutorLostFailure, caused by the app), vs executors
	// released by dynamic allocation and one lost unrelated to its tasks.
	"executor-lost": func() (*fx, *fx) {
		const kill = "Container killed by YARN for exceeding physical memory limits. 5.5 GB of 5.5 GB physical memory used. " +
			"Consider boosting spark.executor.memoryOverhead."
		// lose runs 4 tasks per executor; the 4 on executor lost fail when
		// it dies at 40 s and run again on executor 1 afterwards.
		lose := func(f *fx, execs int, lost, reason string, byApp bool) int64 {
			tasks := uniform(4*execs, mn, execs, 4, func(i int, t *task) {
				if t.exec == lost {
					t.dur = 40 * sec
					t.reason = obj{"Reason", "ExecutorLostFailure", "Executor ID", lost, "Exit Caused By App", byApp,
						"Loss Reason", reason}
				}
			})
			for _, t := range tasks {
				if t.exec == lost {
					tasks = append(tasks, task{exec: "1", host: "host-1", index: t.index, attempt: 1, launch: mn + sec, dur: mn})
				}
			}
			// Spark posts the removal when the container dies, after the
			// failed tasks' ends (10 s + 40 s).
			return f.job(0, -1, &stage{id: 0, submit: 10 * sec, numTasks: 4 * execs, tasks: tasks,
				during: []timed{{50*sec + 1, removed(lost, 50*sec+1, reason)}}})
		}
		fires := newApp("lost")
		fires.executors(2, 4, 5*sec)
		end := lose(fires, 2, "2", kill, true)
		fires.appEnd(end + 5*sec)

		// Quiet: executor 3's node went away and Spark says the loss was
		// unrelated to the running tasks ("Exit Caused By App": false);
		// executors 1 and 2 are released by dynamic allocation at the end.
		const gone = "Remote RPC client disassociated. Likely due to containers exceeding thresholds, or network issues."
		quiet := newApp("lost", "spark.dynamicAllocation.enabled", "true")
		quiet.executors(3, 4, 5*sec)
		end = lose(quiet, 3, "3", gone, false)
		quiet.executorRemoved("1", end+mn, "Container container_e18_1700000000000_0001_01_000002 exited from explicit termination request.")
		quiet.executorRemoved("2", end+mn, "Container container_e18_1700000000000_0001_01_000003 exited from explicit termination request.")
		quiet.appEnd(end + 2*mn)
		return fires, quiet
	},
	// 30 s of GC in 60 s tasks (50 %) in a stage that is most of the app, vs 2 s.
	"gc-pressure": func() (*fx, *fx) {
		build := func(gc int64) *fx {
			f := newApp("gc")
			f.executors(2, 5, 5*sec)
			end := f.job(0, -1, &stage{id: 0, submit: 10 * sec, tasks: uniform(10, 60*sec, 2, 5, func(i int, t *task) {
				t.run, t.gc = 60*sec, gc
			})})
			f.appEnd(end + 5*sec)
			return f
		}
		return build(30 * sec), build(2 * sec)
	},
	// Stage 0: 30 % of run time waiting for shuffle fetches over 3 min;
	// stage 1: a FetchFailed attempt, re-attempted. Quiet: 2 % fetch wait.
	"shuffle-bottleneck": func() (*fx, *fx) {
		build := func(wait int64, fetchFailed bool) *fx {
			f := newApp("shuffle")
			f.executors(2, 4, 5*sec)
			end := f.job(0, -1, &stage{id: 0, submit: 10 * sec, tasks: uniform(8, 3*mn, 2, 4, func(i int, t *task) {
				t.run, t.fetchWait, t.shRead = 3*mn, wait, 256*mb
			})})
			if fetchFailed {
				s1 := &stage{id: 1, submit: end + sec, failure: "org.apache.spark.shuffle.FetchFailedException: Failed to connect to host-2",
					tasks: uniform(4, 10*sec, 2, 4, func(i int, t *task) {
						t.shRead = 64 * mb
						if i == 3 {
							t.reason = obj{"Reason", "FetchFailed", "Block Manager Address", obj{"Executor ID", "2", "Host", "host-2", "Port", 40000},
								"Shuffle ID", 0, "Map ID", 5, "Map Index", 5, "Reduce ID", 3, "Message", "Failed to connect to host-2/10.0.0.2:7337"}
						}
					})}
				s2 := &stage{id: 1, attempt: 1, submit: s1.submit + 10*sec + 3*sec,
					tasks: uniform(4, 10*sec, 2, 4, func(i int, t *task) { t.shRead = 64 * mb })}
				end = f.job(1, -1, s1, s2) // Spark re-attempts the stage within the job
			}
			f.appEnd(end + 5*sec)
			return f
		}
		return build(54*sec, true), build(3600, false)
	},
	// A scan of 5 000 files of 500 KiB, vs 200 files of 100 MiB.
	"small-files": func() (*fx, *fx) {
		build := func(files, size int64) *fx {
			f := newApp("small")
			f.executors(2, 4, 5*sec)
			scan := plan{name: "Scan parquet events", metrics: []accum{{id: 201, name: "number of files read"},
				{id: 202, name: "size of files read"}, {id: 203, name: "number of output rows"}}}
			f.sqlStart(0, 8*sec, "select count(*) from events", plan{name: "HashAggregate", children: []plan{scan}})
			end := f.job(0, 0, &stage{id: 0, submit: 10 * sec, tasks: uniform(8, 30*sec, 2, 4, func(i int, t *task) {
				t.inBytes = files * size / 8
				t.accums = []accum{{201, "number of files read", files / 8}, {202, "size of files read", files * size / 8},
					{203, "number of output rows", 1000}}
			})})
			f.sqlEnd(0, end+sec)
			f.appEnd(end + 5*sec)
			return f
		}
		return build(5000, 500*kb), build(200, 100*mb)
	},
	// 5 200 tasks with a median of 120 ms, vs 60 such tasks.
	"tiny-tasks": func() (*fx, *fx) {
		// 5 200 tasks of 120 ms, 60 ms of each scheduling (312 s of core
		// time, ~10 s of wall on 32 cores), vs 60 tasks.
		build := func(n int) *fx {
			f := newApp("tiny")
			f.executors(4, 8, 5*sec)
			end := f.job(0, -1, &stage{id: 0, submit: 10 * sec, tasks: uniform(n, 120, 4, 8, func(i int, t *task) { t.run = 60 })})
			f.appEnd(end + 5*sec)
			return f
		}
		return build(5200), build(60)
	},
	// 3 tasks of 4 min on 16 cores (PRatio 0.19), vs 48 tasks of 1 min.
	"low-parallelism": func() (*fx, *fx) {
		build := func(n int, dur int64) *fx {
			f := newApp("lowpar")
			f.executors(2, 8, 5*sec)
			end := f.job(0, -1, &stage{id: 0, submit: 10 * sec, tasks: uniform(n, dur, 2, 8, nil)})
			f.appEnd(end + 5*sec)
			return f
		}
		return build(3, 4*mn), build(48, mn)
	},
	// Task 0 fails 4 times with an IOException (spark.task.maxFailures),
	// which aborts stage 0 and fails job 0, vs one attempt that fails
	// after 300 ms and succeeds on retry (info: it cost nothing).
	"task-failures": func() (*fx, *fx) {
		ioe := obj{"Reason", "ExceptionFailure", "Class Name", "java.io.IOException",
			"Description", "Connection reset by peer", "Stack Trace", []any{}, "Accumulator Updates", []any{}}
		fires := newApp("failures")
		fires.executors(2, 8, 5*sec)
		tasks := uniform(15, 20*sec, 2, 8, nil)
		tasks[0].exec, tasks[0].host, tasks[0].dur, tasks[0].reason = "1", "host-1", 5*sec, ioe
		for a := 1; a < 4; a++ {
			tasks = append(tasks, task{exec: "1", host: "host-1", index: 0, attempt: a,
				launch: int64(a) * 5 * sec, dur: 5 * sec, reason: ioe})
		}
		end := fires.job(0, -1, &stage{id: 0, submit: 10 * sec, numTasks: 15, tasks: tasks,
			failure: "Job aborted due to stage failure: Task 0 in stage 0.0 failed 4 times, most recent failure: " +
				"Lost task 0.3 in stage 0.0 (TID 19) (host-1 executor 1): java.io.IOException: Connection reset by peer"})
		fires.appEnd(end + 5*sec)

		quiet := newApp("failures")
		quiet.executors(2, 8, 5*sec)
		tasks = uniform(15, 20*sec, 2, 8, nil)
		tasks[0].exec, tasks[0].host, tasks[0].dur, tasks[0].reason = "1", "host-1", 300, ioe
		tasks = append(tasks, task{exec: "2", host: "host-2", index: 0, attempt: 1, launch: 21 * sec, dur: 20 * sec})
		end = quiet.job(0, -1, &stage{id: 0, submit: 10 * sec, numTasks: 15, tasks: tasks})
		quiet.appEnd(end + 5*sec)
		return fires, quiet
	},
	// 4 speculative copies run 50 s each and lose (200 s of 910 s task
	// time, 22 %) in a 3-min stage, vs 1 copy that loses after 5 s.
	"speculation-waste": func() (*fx, *fx) {
		build := func(copies int, ran int64) *fx {
			f := newApp("spec", "spark.speculation", "true")
			f.executors(4, 4, 5*sec)
			tasks := uniform(10, 60*sec, 4, 4, nil)
			tasks[9].dur = 170 * sec // the straggler the copies chase
			for i := 0; i < copies; i++ {
				orig := tasks[i]
				tasks = append(tasks, task{exec: "4", host: "host-4", index: orig.index, attempt: 1, launch: orig.dur - ran,
					dur: ran, speculative: true, reason: obj{"Reason", "TaskKilled", "Kill Reason", "another attempt succeeded"}})
			}
			end := f.job(0, -1, &stage{id: 0, submit: 10 * sec, numTasks: 10, tasks: tasks})
			f.appEnd(end + 5*sec)
			return f
		}
		return build(4, 50*sec), build(1, 5*sec)
	},
	// 4 executors × 4 cores alive 20 min for 1 min of work, vs 12 min busy.
	"idle-executors": func() (*fx, *fx) {
		build := func(work int64, tail int64) *fx {
			f := newApp("idle")
			f.executors(4, 4, 5*sec)
			end := f.job(0, -1, &stage{id: 0, submit: 10 * sec, tasks: uniform(16, work, 4, 4, nil)})
			f.appEnd(end + tail)
			return f
		}
		return build(mn, 19*mn), build(12*mn, 10*sec)
	},
	// A sort-merge join outputs 2·10⁹ rows from 10⁷ and 5·10⁶ (200×), vs 10⁷.
	"join-explosion": func() (*fx, *fx) {
		build := func(out int64) *fx {
			f := newApp("join")
			f.executors(2, 4, 5*sec)
			side := func(id int64, name string) plan {
				return plan{name: "Sort", children: []plan{{name: "Exchange", metrics: []accum{{id: id, name: "number of output rows"}},
					children: []plan{{name: "Scan parquet " + name}}}}}
			}
			join := plan{name: "SortMergeJoin", metrics: []accum{{id: 301, name: "number of output rows"}},
				children: []plan{side(302, "orders"), side(303, "customers")}}
			f.sqlStart(0, 8*sec, "orders join customers", plan{name: "WholeStageCodegen (3)", children: []plan{join}})
			end := f.job(0, 0, &stage{id: 0, submit: 10 * sec, tasks: uniform(8, 2*mn, 2, 4, func(i int, t *task) {
				t.accums = []accum{{302, "number of output rows", 10_000_000 / 8}, {303, "number of output rows", 5_000_000 / 8},
					{301, "number of output rows", out / 8}}
			})})
			f.sqlEnd(0, end+sec)
			f.appEnd(end + 5*sec)
			return f
		}
		return build(2_000_000_000), build(10_000_000)
	},
	// Python workers on executor 1 peak at 450 MiB against the 409.6 MiB
	// overhead (4g × 0.10), vs 100 MiB.
	"python-memory": func() (*fx, *fx) {
		build := func(py int64) *fx {
			f := newApp("pyspark", "spark.executor.processTreeMetrics.enabled", "true")
			f.executors(2, 4, 5*sec)
			end := f.job(0, -1, &stage{id: 0, submit: 10 * sec, tasks: uniform(8, mn, 2, 4, func(i int, t *task) {
				p := int64(80 * mb)
				if t.exec == "1" {
					p = py
				}
				t.execMetrics = obj{"JVMHeapMemory", 2 * gb, "ProcessTreeJVMRSSMemory", 3 * gb, "ProcessTreePythonRSSMemory", p,
					"ProcessTreeOtherRSSMemory", 20 * mb}
			})})
			f.appEnd(end + 5*sec)
			return f
		}
		return build(450 * mb), build(100 * mb)
	},
	// A collect of 900 MiB against spark.driver.maxResultSize 1g, vs 10 MiB.
	"large-result-to-driver": func() (*fx, *fx) {
		build := func(total int64) *fx {
			f := newApp("collect")
			f.executors(2, 4, 5*sec)
			end := f.job(0, -1, &stage{id: 0, submit: 10 * sec, name: "collect at report.py:42",
				tasks: uniform(8, 30*sec, 2, 4, func(i int, t *task) { t.resultSize = total / 8 })})
			f.appEnd(end + 5*sec)
			return f
		}
		return build(900 * mb), build(10 * mb)
	},
	// The log stops while stage 1 runs, vs a log that ends.
	"incomplete-app": func() (*fx, *fx) {
		build := func(ended bool) *fx {
			f := newApp("incomplete")
			f.executors(2, 4, 5*sec)
			end := f.job(0, -1, &stage{id: 0, submit: 10 * sec, tasks: uniform(8, 30*sec, 2, 4, nil)})
			if ended {
				f.appEnd(end + 5*sec)
				return f
			}
			f.job(1, -1, &stage{id: 1, submit: end + sec, open: true, tasks: uniform(8, 30*sec, 2, 4, func(i int, t *task) {
				t.running = i >= 4
			})})
			return f
		}
		return build(false), build(true)
	},
	// A clean application: driver-degradation judges agent samples only
	// (testdata/driver-degradation/agent-*.json), never the event log.
	"driver-degradation": func() (*fx, *fx) {
		build := func() *fx {
			f := newApp("driver")
			f.executors(2, 4, 5*sec)
			end := f.job(0, -1, &stage{id: 0, submit: 10 * sec, tasks: uniform(8, 30*sec, 2, 4, nil)})
			f.appEnd(end + 5*sec)
			return f
		}
		return build(), build()
	},
	// A rate source of 2,500 rows/s on a 1-s trigger. Processed at 2,000
	// rows/s the batches run back to back, each 1.25× the one before (12
	// batches, 1 s to 11.6 s). Quiet: processed at 2,500 rows/s plus 1 s
	// of overhead a batch, every batch takes 2 s, back to back, and the
	// last one alone 4 s (a GC pause): the process rate over the recent
	// batches is under the input rate (0.83), but the batches do not grow.
	"streaming-behind": func() (*fx, *fx) {
		build := func(next func(i int, rows int64) int64) *fx {
			f := newApp("streaming")
			f.executors(2, 4, 5*sec)
			var bs []batch
			at, dur := 10*sec, sec
			for i := range 12 {
				var rows int64
				if i > 0 {
					prev := bs[i-1]
					rows = 2500 * max(prev.dur, sec) / 1000
					at = prev.start + max(prev.dur, sec)
					dur = next(i, rows)
				}
				bs = append(bs, batch{start: at, dur: dur, rows: rows, stateRows: 10})
			}
			f.query("5d2f3d62-query", "events", bs)
			last := bs[len(bs)-1]
			f.appEnd(last.start + last.dur + 5*sec)
			return f
		}
		behind := func(_ int, rows int64) int64 { return rows * 1000 / 2000 }
		steady := func(i int, _ int64) int64 {
			if i == 11 {
				return 4 * sec
			}
			return 2 * sec
		}
		return build(behind), build(steady)
	},
	"s3-dominated-write":     s3DominatedWriteFixtures,
	"s3a-committer-bypassed": s3aCommitterBypassedFixtures,
}
