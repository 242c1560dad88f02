package analyze

import (
	_ "embed" // libraries.txt
	"strings"
)

// librariesText lists the packages and paths whose frames are not the
// user's code: data, so that a plugin (RAPIDS, Delta, Iceberg, Hudi,
// Photon) is one line, not a code change.
//
//go:embed libraries.txt
var librariesText string

// libraryList is libraries.txt read: JVM function-name prefixes and parts
// of Python file paths.
type libraryList struct {
	jvm, python []string
}

// libraries is read once; nothing changes it.
var libraries = parseLibraries(librariesText)

func parseLibraries(text string) libraryList {
	var l libraryList
	for _, ln := range strings.Split(text, "\n") {
		ln = strings.TrimSpace(ln)
		if ln == "" || ln[0] == '#' {
			continue
		}
		kind, entry, ok := strings.Cut(ln, " ")
		if !ok {
			continue
		}
		switch entry = strings.TrimSpace(entry); kind {
		case "jvm":
			l.jvm = append(l.jvm, entry)
		case "python":
			l.python = append(l.python, entry)
		}
	}
	return l
}

// jvmLibrary tells Spark's, the JDK's, plugins' and common libraries'
// frames from the user's code.
func jvmLibrary(fn string) bool {
	if strings.Contains(fn, "$$Lambda") { // a generated lambda class: no source line
		return true
	}
	for _, p := range libraries.jvm {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// pythonLibrary tells frames of PySpark, Py4J, installed packages and the
// standard library from the user's code.
func pythonLibrary(file string) bool {
	if strings.HasPrefix(file, "<") && file != "<stdin>" {
		return true // <frozen …>, <string>
	}
	for _, s := range libraries.python {
		if strings.Contains(file, s) {
			return true
		}
	}
	// The standard library: …/lib/python3.11/json/decoder.py.
	if i := strings.Index(file, "/lib/python"); i >= 0 {
		rest := file[i+len("/lib/python"):]
		if j := strings.IndexByte(rest, '/'); j > 0 && strings.Trim(rest[:j], "0123456789.") == "" {
			return true
		}
	}
	return false
}
