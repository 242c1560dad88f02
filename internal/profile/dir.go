package profile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxProfileFile bounds what ReadAppProfiles reads of one file: an
// agent's 30 s recording of a busy executor is well under a MB of
// collapsed stacks.
const maxProfileFile = 64 << 20

// AppFiles lists the CPU profiles of application appID in dir: the
// collapsed and pprof (.pb.gz) files whose name starts with the id and a
// '-' or '.' (`sparkdx agent --profile` writes
// app-…-0042-3-pid4711-20261128T095631Z.cpu.pb.gz and .cpu.collapsed;
// `sparkdx profile -o app-…-0042.collapsed` fits too), but those of
// native or allocation samples, sorted by name. Of a recording written
// both ways only the pprof file is listed: its labels say more, and the
// samples are counted once.
func AppFiles(dir, appID string) ([]string, error) {
	if appID == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("profiles: %w", err)
	}
	var out []string
	pprofs := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		rest, ok := strings.CutPrefix(name, appID)
		if !ok || rest == "" || (rest[0] != '-' && rest[0] != '.') || !e.Type().IsRegular() {
			continue
		}
		stem, ok := profileStem(name)
		if !ok || strings.HasSuffix(stem, "."+string(Native)) || strings.HasSuffix(stem, "."+string(Alloc)) {
			continue
		}
		if strings.HasSuffix(name, pprofSuffix) {
			pprofs[stem] = true
		}
		out = append(out, name)
	}
	out = slices.DeleteFunc(out, func(name string) bool {
		stem, _ := profileStem(name)
		return !strings.HasSuffix(name, pprofSuffix) && pprofs[stem]
	})
	slices.Sort(out)
	return out, nil
}

const pprofSuffix, collapsedSuffix = ".pb.gz", ".collapsed"

// profileStem is a profile file's name without its format's suffix.
func profileStem(name string) (string, bool) {
	if s, ok := strings.CutSuffix(name, pprofSuffix); ok {
		return s, true
	}
	return strings.CutSuffix(name, collapsedSuffix)
}

// ReadAppProfiles adds up the CPU profiles AppFiles finds for appID in
// dir into one profile, and lists the files read; nil when there is
// none. A file that cannot be read is left out, its error returned with
// the profile of the others: one broken file of an agent's directory
// does not hide the rest.
func ReadAppProfiles(dir, appID string) (*Profile, []string, error) {
	names, err := AppFiles(dir, appID)
	if err != nil || len(names) == 0 {
		return nil, nil, err
	}
	p := &Profile{Kind: CPU}
	var read []string
	var errs []error
	for _, name := range names {
		from := len(p.Samples)
		if err := readFileInto(p, filepath.Join(dir, name), appID); err != nil {
			p.Samples = p.Samples[:from]
			errs = append(errs, err)
			continue
		}
		read = append(read, name)
		if exec := fileExecutor(name, appID); exec != "" {
			for i := from; i < len(p.Samples); i++ {
				if p.Samples[i].Executor == "" {
					p.Samples[i].Executor = exec
				}
			}
		}
	}
	if len(read) == 0 {
		p = nil
	}
	return p, read, errors.Join(errs...)
}

// fileExecutor is the executor a profile file's name gives after the
// application id: APP-EXEC-pidN-TIME.… as the agent names its files; ""
// for any other name (sparkdx profile -o APP.collapsed).
func fileExecutor(name, appID string) string {
	rest, ok := strings.CutPrefix(name, appID+"-")
	if !ok {
		return ""
	}
	i := strings.LastIndex(rest, "-pid")
	if i <= 0 {
		return ""
	}
	return rest[:i]
}

func readFileInto(p *Profile, path, appID string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("profiles: %w", err)
	}
	defer f.Close()
	if strings.HasSuffix(path, pprofSuffix) {
		return ReadPprof(p, f, path, appID)
	}
	lr := &io.LimitedReader{R: f, N: maxProfileFile + 1}
	if err := ReadCollapsed(p, lr, path); err != nil {
		return err
	}
	if lr.N == 0 {
		return errors.New("profiles: " + path + ": larger than 64 MiB")
	}
	return nil
}
