package test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

const harnessPrefix = "github.com/sparkdx/sparkdx/internal/test/"

// listed is a package of `go list -deps -json`: its non-test imports.
type listed struct {
	ImportPath string
	Imports    []string
	Standard   bool
}

// TestProductImportsNoHarness: no package that ships (the sparkdx binary,
// the collector's Delta exporter, every library they are built from)
// imports a harness under internal/test, even indirectly; a harness pulls
// test-only code (and the testing package's flags) into the binary. It
// reads the import graphs of both modules as the go command builds them.
func TestProductImportsNoHarness(t *testing.T) {
	// Each module's every package outside internal/test: the root
	// module's, and the collector components' (modules of their own,
	// built into the collector).
	for name, dir := range map[string]string{"sparkdx": "../..", "deltaexporter": "../../exporter/deltaexporter",
		"sparksinksreceiver": "../../receiver/sparksinksreceiver"} {
		t.Run(name, func(t *testing.T) {
			graph := goListDeps(t, dir)
			roots := productRoots(t, dir)
			if name == "sparkdx" && !slices.Contains(roots, "github.com/sparkdx/sparkdx/cmd/sparkdx") {
				t.Fatalf("go list ./... in %s: %d packages, want the binary's cmd/sparkdx among them", dir, len(roots))
			}
			if len(roots) == 0 {
				t.Fatalf("go list ./... in %s: no product package", dir)
			}
			for _, root := range roots {
				if chain := harnessChain(graph, root); chain != nil {
					t.Errorf("%s imports a test harness: %s", root, strings.Join(chain, " → "))
				}
			}
		})
	}
}

// TestHarnessChain: the search finds a harness however deep, names the
// way to it, and is not fooled by a cycle or a package named like one.
func TestHarnessChain(t *testing.T) {
	graph := map[string]listed{
		"m/cmd":                     {Imports: []string{"m/a", "fmt"}},
		"m/a":                       {Imports: []string{"m/b"}},
		"m/b":                       {Imports: []string{"m/a", harnessPrefix + "sparktest"}},
		harnessPrefix + "sparktest": {},
		"m/clean":                   {Imports: []string{"m/testing", "m/c"}},
		"m/c":                       {Imports: []string{"m/clean"}},
		"m/testing":                 {},
	}
	for _, tc := range []struct {
		root string
		want []string
	}{
		{"m/cmd", []string{"m/cmd", "m/a", "m/b", harnessPrefix + "sparktest"}},
		{"m/b", []string{"m/b", harnessPrefix + "sparktest"}},
		{"m/clean", nil},
	} {
		if got := harnessChain(graph, tc.root); !slices.Equal(got, tc.want) {
			t.Errorf("harnessChain(%s) = %v, want %v", tc.root, got, tc.want)
		}
	}
}

// harnessChain returns the imports leading from root to a harness
// package, or nil when none is reachable (a depth-first search).
func harnessChain(graph map[string]listed, root string) []string {
	seen := map[string]bool{}
	var walk func(p string) []string
	walk = func(p string) []string {
		if strings.HasPrefix(p, harnessPrefix) {
			return []string{p}
		}
		if seen[p] {
			return nil
		}
		seen[p] = true
		for _, imp := range graph[p].Imports {
			if rest := walk(imp); rest != nil {
				return append([]string{p}, rest...)
			}
		}
		return nil
	}
	return walk(root)
}

// productRoots lists the packages of the module in dir outside
// internal/test: the product.
func productRoots(t *testing.T, dir string) []string {
	var out []string
	for _, p := range strings.Fields(string(goCmd(t, dir, "list", "./..."))) {
		if !strings.HasPrefix(p, harnessPrefix) && p != strings.TrimSuffix(harnessPrefix, "/") {
			out = append(out, p)
		}
	}
	return out
}

// goListDeps reads the import graph of every package of the module in dir
// and their dependencies, by import path.
func goListDeps(t *testing.T, dir string) map[string]listed {
	out := goCmd(t, dir, "list", "-deps", "-json=ImportPath,Imports,Standard", "./...")
	graph := map[string]listed{}
	harnesses := 0
	for d := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listed
		err := d.Decode(&p)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("go list -deps -json in %s: %v", dir, err)
		}
		graph[p.ImportPath] = p
		if strings.HasPrefix(p.ImportPath, harnessPrefix) {
			harnesses++
		}
	}
	// The module's own graph lists the harnesses (their tests are in
	// ./...): seeing none would mean the prefix no longer names them and
	// the test above could not fail.
	if dir == "../.." && harnesses < 5 {
		t.Fatalf("go list in %s: %d packages under %s, want the 5 harnesses", dir, harnesses, harnessPrefix)
	}
	return graph
}

// goCmd runs the go command in dir and returns its standard output.
func goCmd(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		sparktest.Missing(t, "the go command: "+err.Error())
	}
	cmd := exec.Command(goTool, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.Bytes())
	}
	return out
}
