package profile

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/jfr"
)

// maxCollapsedLine bounds one line of a collapsed file: a stack of JFR's
// default depth (64 frames) of long Scala names is a few KB.
const maxCollapsedLine = 1 << 20

// ReadCollapsed adds the stacks of a collapsed file (WriteCollapsed's
// form: root;frame;…;innermost value) to p, so that the files of several
// recordings, JVMs and times add up into one profile. A root "stage N"
// makes its samples the tasks of stage N; any other root is a thread's
// name. name is for errors.
func ReadCollapsed(p *Profile, r io.Reader, name string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxCollapsedLine)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseInt(line[i+1:], 10, 64)
		if i < 1 || err != nil || v < 0 {
			return fmt.Errorf("%s line %d: want frames;… and a count", name, n)
		}
		p.Samples = append(p.Samples, collapsedSample(line[:i], v))
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// collapsedSample is one line's sample: its frames innermost first, as
// JFR's stacks are.
func collapsedSample(stack string, v int64) Sample {
	names := strings.Split(stack, ";")
	s := Sample{Value: v, Stack: &jfr.Stack{Frames: make([]jfr.Frame, 0, len(names)-1)}}
	root := names[0]
	if id, ok := strings.CutPrefix(root, "stage "); ok {
		if n, err := strconv.Atoi(id); err == nil {
			s.Task, s.OnTask = Task{Stage: n, TID: -1}, true
		}
	}
	if !s.OnTask {
		s.Thread = root
	}
	for i := len(names) - 1; i >= 1; i-- {
		f := jfr.Frame{Method: names[i]}
		if dot := strings.LastIndexByte(names[i], '.'); dot > 0 {
			f.Class, f.Method = names[i][:dot], names[i][dot+1:]
		}
		s.Stack.Frames = append(s.Stack.Frames, f)
	}
	return s
}
