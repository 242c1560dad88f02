// Package redact hides secrets in what Spark wrote before sparkdx keeps it:
// the values of properties whose key or value looks secret (Spark's own
// spark.redaction.regex, the application's if it set one, plus cloud
// credentials Spark's default misses), and passwords and tokens written
// into free text — a URL's user:password@, password=… in a job
// description, a SQL text or an exception. The replay applies it to every
// event once, so the REST API, the UI, reports, OTLP, Delta tables and
// Prometheus labels only ever see the redacted model.
package redact

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

// SparkDefault is Spark 4's default spark.redaction.regex (Spark 3.5's
// lacks "credential" and the optional dot in access key).
const SparkDefault = `(?i)secret|password|token|access[.]?key|credential`

// Replacement is what Spark writes in place of a secret value
// (Utils.REDACTION_REPLACEMENT_TEXT).
const Replacement = model.Redacted

// cloudKeys are property keys that hold credentials without any word of
// Spark's default: Azure storage account keys and SAS tokens, GCP service
// account private keys, API keys.
var cloudKeys = regexp.MustCompile(`(?i)account[.]key|private[._]?key|fs[.]azure[.]sas[.].+[.]net$|sas[._]?token|api[._-]?key|session[._]token`)

// urlPassword is a URL's userinfo password: scheme://user:password@host.
var urlPassword = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^/\s:@'"]+):([^@/\s'"]+)@`)

// assignment is a secret-looking name given a value in free text:
// password=…, "token": "…", api_key: …, or a quoted value after a space
// (SQL's OPTIONS (password 'x')).
var assignment = regexp.MustCompile(`(?i)([A-Za-z0-9_.-]*(?:password|passwd|pwd|token|secret|api[_.-]?key|access[_.-]?key|credential)[A-Za-z0-9_.-]*["']?)` +
	`(\s*[=:]\s*|\s+)(` + regexp.QuoteMeta(Replacement) + `|"[^"]*"|'[^']*'|[^\s&;,'"()<>]+)`)

// Rules is one redaction policy: the property regex (the server's, with
// an application's own on top once ForApp has seen its properties) and the
// fixed free-text rules.
type Rules struct {
	props *regexp.Regexp
	match func(string) bool // props' matcher (Matcher)
}

// New compiles the property regex; "" means SparkDefault.
func New(expr string) (*Rules, error) {
	if expr == "" {
		expr = SparkDefault
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("redaction regex %q: %w", expr, err)
	}
	return &Rules{props: re, match: Matcher(re)}, nil
}

// Default is the policy with Spark 4's default regex.
func Default() *Rules {
	r, _ := New("")
	return r
}

// Regex is the property regex in effect.
func (r *Rules) Regex() string { return r.props.String() }

// ForApp returns the policy for an application whose Spark properties are
// props: its own spark.redaction.regex (when set and valid) applies on top
// of r's, as Spark applies the application's.
func (r *Rules) ForApp(props [][2]string) *Rules {
	for _, p := range props {
		if p[0] == "spark.redaction.regex" && p[1] != "" && p[1] != Replacement && p[1] != r.props.String() {
			if re, err := regexp.Compile("(?:" + p[1] + ")|(?:" + r.props.String() + ")"); err == nil {
				return &Rules{props: re, match: re.MatchString}
			}
		}
	}
	return r
}

// secretKey says whether a property named key holds a secret, or its value
// v looks like one, by the property regex or the cloud keys.
func (r *Rules) secretKey(key, v string) bool {
	return r.match(key) || r.match(v) || cloudKey(key)
}

// cloudKey is cloudKeys.MatchString(key), without running the regexp for
// the keys it cannot match: every alternative holds "key", "sas" or
// "token" (any case), and an environment has hundreds of keys, most with
// none of them (the backtracking matcher on each was a tenth of a replay
// of small logs). A key with non-ASCII bytes goes to the regexp, whose
// case folding is Unicode's.
func cloudKey(key string) bool {
	ascii := true
	for i := 0; i < len(key) && ascii; i++ {
		ascii = key[i] < 0x80
	}
	if ascii && !containsAnyFold(key, []string{"key", "sas", "token"}) {
		return false
	}
	return cloudKeys.MatchString(key)
}

// Property returns the value to keep for a property: Replacement when the
// key or value is secret, else the value with Text's rules applied.
// spark.redaction.regex itself is kept, as Spark keeps it.
func (r *Rules) Property(key, v string) string {
	if key == "spark.redaction.regex" || v == Replacement {
		return v
	}
	if r.secretKey(key, v) {
		return Replacement
	}
	return r.Text(v)
}

// Properties redacts a property list in place.
func (r *Rules) Properties(ps [][2]string) {
	for i := range ps {
		ps[i][1] = r.Property(ps[i][0], ps[i][1])
	}
}

// Text replaces the passwords of URLs and the values of secret-looking
// assignments in free text.
func (r *Rules) Text(s string) string {
	s = r.URLs(s)
	if !mayAssign(s) {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range assignment.FindAllStringSubmatchIndex(s, -1) {
		sep, value := s[m[4]:m[5]], s[m[6]:m[7]]
		if value == Replacement || (len(value) >= 2 && value[1:len(value)-1] == Replacement) {
			continue // redacted already
		}
		if inPath(s, m[2]) {
			continue // /etc/passwd:/etc/passwd:ro is a mount, not a password
		}
		if strings.TrimSpace(sep) == "" && value[0] != '\'' && value[0] != '"' {
			continue // a word after a space is prose ("the password is"), not a value
		}
		b.WriteString(s[last:m[6]])
		b.WriteString(Replacement)
		last = m[7]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// inPath says whether the name starting at s[i] is a path's element (a
// file or directory after a slash or backslash): a container's mount list
// "/etc/passwd:/etc/passwd:ro", a path such as /run/secrets/token=x. The
// History Server shows such values whole, and so does sparkdx.
func inPath(s string, i int) bool {
	return i > 0 && (s[i-1] == '/' || s[i-1] == '\\')
}

// URLs replaces only the passwords of URLs, for text Spark already
// redacted by its own rules (plans, whose data source options Spark
// redacts) where a name followed by a value is a column, not a secret.
func (r *Rules) URLs(s string) string {
	if strings.Contains(s, "@") && strings.Contains(s, "://") {
		return urlPassword.ReplaceAllString(s, "${1}:"+Replacement+"@")
	}
	return s
}

// mayAssign is a cheap test that s holds a word assignment could match.
func mayAssign(s string) bool {
	return containsAnyFold(s, []string{"pass", "pwd", "token", "secret", "key", "credential"})
}

// Matcher is re.MatchString, or for SparkDefault the same match without
// regexp (sparkDefaultMatch), for Rules and for readers holding the regex.
func Matcher(re *regexp.Regexp) func(string) bool {
	if re.String() == SparkDefault {
		return sparkDefaultMatch
	}
	return re.MatchString
}

// sparkDefaultMatch is SparkDefault without regexp, folding ASCII case
// only, as Java's (?i) does without UNICODE_CASE: environments hold
// hundreds of properties, where the backtracking matcher is slow.
func sparkDefaultMatch(s string) bool {
	return containsAnyFold(s, []string{"secret", "password", "token", "accesskey", "access.key", "credential"})
}

// containsAnyFold says whether s contains one of the lower-case ASCII
// words, folding ASCII case only and allocating nothing. It reads s once,
// comparing only where a byte can start a word (a mask of first letters):
// a property list or an error text is read once for all the words rather
// than once per word (BenchmarkText: 31 -> 86 MB/s, BenchmarkEnvironment:
// 789 -> 437 µs, medians of 6 on a loaded 2-core machine).
func containsAnyFold(s string, words []string) bool {
	var first uint32 // bit c-'a' for each word's first letter
	for _, w := range words {
		first |= 1 << (w[0] - 'a')
	}
	for i := 0; i < len(s); i++ {
		// | 0x20 lower-cases A-Z and maps no other byte into a-z.
		c := s[i] | 0x20
		if c < 'a' || c > 'z' || first&(1<<(c-'a')) == 0 {
			continue
		}
		for _, w := range words {
			if w[0] == c && hasFoldPrefix(s[i:], w) {
				return true
			}
		}
	}
	return false
}

// hasFoldPrefix says whether s starts with the lower-case ASCII word w,
// folding ASCII case only.
func hasFoldPrefix(s, w string) bool {
	if len(s) < len(w) {
		return false
	}
	for j := 0; j < len(w); j++ {
		c := s[j]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[j] {
			return false
		}
	}
	return true
}
