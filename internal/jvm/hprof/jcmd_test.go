package hprof

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// parseClassHistogram reads `jcmd PID GC.class_histogram` output into
// class -> stat, dropping the " (module@version)" suffix JDK 9+ prints.
func parseClassHistogram(r io.Reader) (map[string]ClassStat, error) {
	out := map[string]ClassStat{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasSuffix(f[0], ":") {
			continue
		}
		if _, err := strconv.Atoi(strings.TrimSuffix(f[0], ":")); err != nil {
			continue
		}
		n, err1 := strconv.ParseInt(f[1], 10, 64)
		b, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("bad histogram line %q", sc.Text())
		}
		name := f[3]
		if st, ok := out[name]; ok {
			n += st.Instances
			b += st.Bytes
		}
		out[name] = ClassStat{Class: name, Instances: n, Bytes: b}
	}
	return out, sc.Err()
}
