package analyze

import (
	"path"
	"regexp"
	"strconv"
	"strings"
)

// TaskError is a failed task attempt's error message, parsed: the exception
// that was raised and the line of the user's code that raised it.
type TaskError struct {
	// Class is the exception class ("ValueError",
	// "java.lang.OutOfMemoryError"): for a Python error the Python
	// exception, for a JVM error the deepest "Caused by". For failures that
	// are not exceptions it is Spark's end reason ("ExecutorLostFailure",
	// "FetchFailed").
	Class string `json:"class"`
	// Message is the exception's message, its first line.
	Message string `json:"message"`
	// Wrapper is the outermost JVM exception when Class came from a
	// "Caused by" or a Python traceback ("org.apache.spark.api.python.
	// PythonException"); "" when Class is the outermost.
	Wrapper string `json:"wrapper,omitempty"`
	// Frame is the innermost frame of user code: not Spark, Py4J, the JDK,
	// Scala or Python's standard library. Zero when the stack has none.
	Frame Frame `json:"frame"`
}

// Frame is one line of code in a stack trace.
type Frame struct {
	File     string `json:"file"`     // "/jobs/etl.py", "Job.scala", "<console>"
	Line     int    `json:"line"`     // 0 when unknown
	Function string `json:"function"` // "parse", "com.acme.Job.run"
}

// String renders a frame the way a person looks for it: file base name,
// line and function ("etl.py:11 in parse").
func (f Frame) String() string {
	if f.File == "" && f.Function == "" {
		return ""
	}
	s := path.Base(f.File)
	if f.Line > 0 {
		s += ":" + strconv.Itoa(f.Line)
	}
	// A Scala REPL's wrapper ($line11.$read$$iwC$$iwC….apply) says
	// nothing beyond <console>:18.
	if f.Function != "" && !strings.HasPrefix(f.Function, "$line") {
		s += " in " + f.Function
	}
	return s
}

// String renders the error as "Class: message (at frame)".
func (e TaskError) String() string {
	s := e.Class
	if e.Message != "" {
		s += ": " + e.Message
	}
	if f := e.Frame.String(); f != "" {
		s += " (at " + f + ")"
	}
	return s
}

// ParseTaskError reads a failed attempt's end reason and error message
// (Spark's TaskEndReason.toErrorString: for an ExceptionFailure the full
// stack trace, with a Python traceback inside for PySpark errors; for a
// FetchFailed the fetch's own message, model.FetchFailure.Message).
func ParseTaskError(endReason, msg string) TaskError {
	if endReason == "FetchFailed" {
		// The fetch's own stack trace: its deepest cause says why the fetch
		// failed (a missing file, a refused connection).
		trace := strings.TrimSpace(msg)
		if e := parseJVM(trace); e.Class != "" && !strings.ContainsAny(e.Class, " /") && (e.Wrapper != "" || e.Message != "") {
			e.Wrapper = endReason
			return e
		}
		if first, _, _ := strings.Cut(trace, "\n"); first != "" {
			return TaskError{Class: endReason, Message: strings.TrimSpace(first)}
		}
		return TaskError{Class: endReason}
	}
	if endReason != "ExceptionFailure" && endReason != "" {
		first, _, _ := strings.Cut(msg, "\n")
		return TaskError{Class: endReason, Message: strings.TrimSpace(first)}
	}
	if i := strings.LastIndex(msg, "Traceback (most recent call last):"); i >= 0 {
		if e, ok := parsePython(msg[i:]); ok {
			first := strings.Index(msg, "Traceback (most recent call last):")
			e.Wrapper, _, _ = strings.Cut(strings.TrimSpace(msg[:first]), ":")
			if e.Wrapper == e.Class || strings.ContainsAny(e.Wrapper, " \n\t") {
				e.Wrapper = ""
			}
			return e
		}
	}
	return parseJVM(msg)
}

// parsePython reads a Python traceback: its frames, then the exception
// line ("ValueError: cannot parse record 777").
func parsePython(tb string) (TaskError, bool) {
	var frames []Frame
	var e TaskError
	lines := strings.Split(tb, "\n")
	for _, ln := range lines[1:] {
		trimmed := strings.TrimSpace(ln)
		if strings.HasPrefix(trimmed, `File "`) {
			frames = append(frames, pythonFrame(trimmed))
			continue
		}
		if ln == "" || ln[0] == ' ' || ln[0] == '\t' {
			continue // source line, caret line, or Spark's " SQLSTATE" suffix
		}
		class, message, _ := strings.Cut(ln, ":")
		if strings.ContainsAny(class, " ()") {
			continue
		}
		e.Class, e.Message = class, strings.TrimSpace(message)
		break
	}
	if e.Class == "" {
		return e, false
	}
	for i := len(frames) - 1; i >= 0; i-- {
		if !pythonLibrary(frames[i].File) {
			e.Frame = frames[i]
			break
		}
	}
	return e, true
}

// pythonFrame reads `File "/jobs/etl.py", line 11, in parse`.
func pythonFrame(s string) Frame {
	var f Frame
	rest := strings.TrimPrefix(s, `File "`)
	file, rest, ok := strings.Cut(rest, `"`)
	if !ok {
		return f
	}
	f.File = file
	for _, part := range strings.Split(rest, ",") {
		part = strings.TrimSpace(part)
		switch {
		case strings.HasPrefix(part, "line "):
			f.Line, _ = strconv.Atoi(strings.TrimPrefix(part, "line "))
		case strings.HasPrefix(part, "in "):
			f.Function = strings.TrimPrefix(part, "in ")
		}
	}
	return f
}

// nestedException is a message that starts with a Java exception class:
// "java.io.IOException: Connection reset by peer".
var nestedException = regexp.MustCompile(`^((?:[a-zA-Z_$][\w$]*\.)+[\w$]*(?:Exception|Error))(?::\s*(.*))?$`)

// parseJVM reads a Java stack trace: "Class: message", "\tat" frames and
// "Caused by:" sections. The deepest cause names the error; the user frame
// is searched from the deepest section outwards.
func parseJVM(msg string) TaskError {
	var secs []jvmSection
	for i, ln := range strings.Split(msg, "\n") {
		trimmed := strings.TrimSpace(ln)
		switch {
		case i == 0 || strings.HasPrefix(trimmed, "Caused by:"):
			head := strings.TrimSpace(strings.TrimPrefix(trimmed, "Caused by:"))
			class, message, _ := strings.Cut(head, ":")
			secs = append(secs, jvmSection{class: strings.TrimSpace(class), message: strings.TrimSpace(message)})
		case strings.HasPrefix(trimmed, "at "):
			secs[len(secs)-1].frames = append(secs[len(secs)-1].frames, jvmFrame(strings.TrimPrefix(trimmed, "at ")))
		}
	}
	if len(secs) == 0 {
		return TaskError{}
	}
	at := saysWhatHappened(secs)
	root := secs[at]
	e := TaskError{Class: root.class, Message: root.message}
	if at > 0 {
		e.Wrapper = secs[0].class
	}
	// An exception that carries another one as text, as a remote error is
	// shipped ("java.lang.RuntimeException: java.nio.file.NoSuchFileException:
	// /…/shuffle_0_1_0.index" from a shuffle server): the inner one is the cause.
	for {
		m := nestedException.FindStringSubmatch(e.Message)
		if m == nil {
			break
		}
		if e.Wrapper == "" {
			e.Wrapper = e.Class
		}
		e.Class, e.Message = m[1], strings.TrimSpace(m[2])
	}
	for i := len(secs) - 1; i >= 0 && e.Frame == (Frame{}); i-- {
		for _, f := range secs[i].frames {
			if !jvmLibrary(f.Function) {
				e.Frame = f
				break
			}
		}
	}
	return e
}

// jvmFrame reads "com.acme.Job.run(Job.scala:42)" (a module or class
// loader prefix such as "java.base/" or "app//" is dropped; the "/0x…" of
// a lambda's hidden class is kept).
func jvmFrame(s string) Frame {
	fn, loc, _ := strings.Cut(s, "(")
	if i := strings.LastIndex(fn, "/"); i >= 0 && !strings.Contains(fn[:i], "$") {
		fn = fn[i+1:]
	}
	loc = strings.TrimSuffix(loc, ")")
	f := Frame{Function: fn}
	file, line, ok := strings.Cut(loc, ":")
	f.File = file
	if ok {
		f.Line, _ = strconv.Atoi(line)
	}
	return f
}

// jvmSection is one exception of a Java stack trace: the outermost, or a
// "Caused by:".
type jvmSection struct {
	class, message string
	frames         []Frame
}

// saysWhatHappened picks the section that names the failure: the deepest
// cause, unless it has no message and a Spark exception around it says
// what happened — Spark wraps a bare transport error in its own verdict
// ("SparkException: Python worker exited unexpectedly (crashed)" around
// "java.io.EOFException").
func saysWhatHappened(secs []jvmSection) int {
	deepest := len(secs) - 1
	if secs[deepest].message != "" {
		return deepest
	}
	for i := deepest - 1; i >= 0; i-- {
		if secs[i].message != "" && strings.HasPrefix(secs[i].class, "org.apache.spark.") {
			return i
		}
	}
	return deepest
}
