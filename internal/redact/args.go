package redact

import "strings"

// Args returns a copy of a command line with its secrets replaced, as the
// sparkdx agent keeps and serves the command lines of Spark's JVMs and
// Python processes: a system property (-Dkey=value) or a Spark property
// (--conf key=value, -c key=value, --conf=key=value) by Property, as
// Spark's Utils.redactCommandLineArgs does for -D; a flag whose name looks
// secret (--password=x, --token x) loses its value; any other argument
// goes through Text (a URL's password, password=… in a script's
// argument). An application's own spark.redaction.regex given on the
// command line applies on top of r's, as in its event log.
func (r *Rules) Args(argv []string) []string {
	if len(argv) == 0 {
		return argv
	}
	app := r.ForApp(argProperties(argv))
	out := make([]string, len(argv))
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		switch {
		case confFlag(a) && i+1 < len(argv):
			out[i] = a
			i++
			out[i] = app.assignment("", argv[i])
		case strings.HasPrefix(a, "--conf="):
			out[i] = app.assignment("--conf=", a[len("--conf="):])
		case strings.HasPrefix(a, "-D") && strings.Contains(a, "="):
			out[i] = app.assignment("-D", a[2:])
		case secretFlag(app, a) && i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-"):
			out[i] = a
			i++
			out[i] = Replacement
		case strings.HasPrefix(a, "-") && strings.Contains(a, "="):
			name, v, _ := strings.Cut(a, "=")
			if secretFlag(app, name) {
				out[i] = name + "=" + Replacement
			} else {
				out[i] = name + "=" + app.Text(v)
			}
		default:
			out[i] = app.Text(a)
		}
	}
	return out
}

// assignment redacts "key=value" as a property, keeping prefix before it;
// text without "=" goes through Text.
func (r *Rules) assignment(prefix, kv string) string {
	k, v, ok := strings.Cut(kv, "=")
	if !ok {
		return prefix + r.Text(kv)
	}
	return prefix + k + "=" + r.Property(k, v)
}

// confFlag is spark-submit's and pyspark's flag followed by key=value.
func confFlag(a string) bool { return a == "--conf" || a == "-c" }

// secretFlag says whether a is a flag (-x, --x) whose name looks secret by
// the property regex or the cloud keys: --password, --api-key, -token.
func secretFlag(r *Rules, a string) bool {
	if !strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
		return false
	}
	name := strings.TrimLeft(a, "-")
	return name != "" && r.secretKey(name, "")
}

// argProperties are the properties a command line sets: -Dk=v and the
// Spark properties of --conf, for ForApp.
func argProperties(argv []string) [][2]string {
	var out [][2]string
	for i, a := range argv {
		var kv string
		switch {
		case confFlag(a) && i+1 < len(argv):
			kv = argv[i+1]
		case strings.HasPrefix(a, "--conf="):
			kv = a[len("--conf="):]
		case strings.HasPrefix(a, "-D"):
			kv = a[2:]
		default:
			continue
		}
		if k, v, ok := strings.Cut(kv, "="); ok {
			out = append(out, [2]string{k, v})
		}
	}
	return out
}
