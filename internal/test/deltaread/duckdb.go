package deltaread

import (
	"bufio"
	"context"
	"database/sql"
	"database/sql/driver"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

//go:embed duckdb_serve.py
var duckdbScript []byte

// DuckDB returns a database/sql handle on an in-memory DuckDB (the duckdb
// Python package .ci/python/delta-rs.txt pins), the independent SQL reader
// of what sparkdx writes, without linking DuckDB (cgo) into the module.
// Statements take no arguments. Values scan as DuckDB's Go driver gives
// them: integers int64, floating and decimal numbers float64, TIMESTAMP
// and DATE time.Time (UTC), BOOLEAN bool, VARCHAR string, lists []any and
// maps map[string]any.
func DuckDB(t testing.TB) *sql.DB {
	t.Helper()
	py := sparktest.PythonEnv(t, "delta-rs")
	script := filepath.Join(t.TempDir(), "duckdb_serve.py")
	if err := os.WriteFile(script, duckdbScript, 0o644); err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(duckConnector{python: py, script: script})
	db.SetMaxOpenConns(1) // one DuckDB process: statements see each other's tables
	t.Cleanup(func() { db.Close() })
	return db
}

type duckConnector struct{ python, script string }

func (c duckConnector) Driver() driver.Driver { return duckDriver{c} }

func (c duckConnector) Connect(context.Context) (driver.Conn, error) {
	cmd := exec.Command(c.python, c.script)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("duckdb: %w", err)
	}
	r := bufio.NewReaderSize(out, 1<<20)
	return &duckConn{cmd: cmd, in: in, out: r, stderr: &stderr}, nil
}

type duckDriver struct{ c duckConnector }

func (d duckDriver) Open(string) (driver.Conn, error) { return d.c.Connect(context.Background()) }

// duckConn is one DuckDB process.
type duckConn struct {
	mu     sync.Mutex
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *strings.Builder
}

type duckAnswer struct {
	Columns []string `json:"columns"`
	Types   []string `json:"types"`
	Rows    [][]any  `json:"rows"`
	Error   string   `json:"error"`
}

func (c *duckConn) query(q string) (*duckAnswer, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	line, err := json.Marshal(q)
	if err != nil {
		return nil, err
	}
	if _, err := c.in.Write(append(line, '\n')); err != nil {
		return nil, fmt.Errorf("duckdb: %w\n%s", err, c.stderr)
	}
	reply, err := c.out.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("duckdb: no answer: %w\n%s", err, c.stderr)
	}
	dec := json.NewDecoder(strings.NewReader(string(reply)))
	dec.UseNumber()
	var a duckAnswer
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("duckdb answer: %w", err)
	}
	if a.Error != "" {
		return nil, fmt.Errorf("duckdb: %s", a.Error)
	}
	for _, row := range a.Rows {
		if len(row) != len(a.Types) {
			return nil, fmt.Errorf("duckdb answer: a row of %d values for %d columns", len(row), len(a.Types))
		}
		for i, v := range row {
			if row[i], err = duckValue(a.Types[i], v); err != nil {
				return nil, fmt.Errorf("duckdb column %s: %w", a.Columns[i], err)
			}
		}
	}
	return &a, nil
}

// duckValue turns one JSON value of a column of type typ into what
// DuckDB's Go driver would give.
func duckValue(typ string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch n, isNum := v.(json.Number); {
	case strings.HasPrefix(typ, "TIMESTAMP") && isNum:
		us, err := n.Int64()
		return time.UnixMicro(us).UTC(), err
	case typ == "DATE":
		s, _ := v.(string)
		return time.Parse(time.DateOnly, s)
	case strings.HasPrefix(typ, "DECIMAL"):
		s, _ := v.(string)
		return strconv.ParseFloat(s, 64)
	case isNum && (typ == "DOUBLE" || typ == "FLOAT"):
		return n.Float64()
	case isNum:
		if i, err := n.Int64(); err == nil {
			return i, nil
		}
		return n.Float64()
	case strings.HasSuffix(typ, "[]"):
		list, _ := v.([]any)
		for i, x := range list {
			var err error
			if list[i], err = duckValue(strings.TrimSuffix(typ, "[]"), x); err != nil {
				return nil, err
			}
		}
		return list, nil
	}
	return v, nil
}

func (c *duckConn) QueryContext(_ context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	if len(args) > 0 {
		return nil, errors.New("duckdb: statements take no arguments here")
	}
	a, err := c.query(q)
	if err != nil {
		return nil, err
	}
	return &duckRows{a: a}, nil
}

func (c *duckConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	if _, err := c.QueryContext(ctx, q, args); err != nil {
		return nil, err
	}
	return driver.RowsAffected(0), nil
}

func (c *duckConn) Prepare(q string) (driver.Stmt, error) { return duckStmt{c: c, q: q}, nil }

func (c *duckConn) Begin() (driver.Tx, error) { return nil, errors.New("duckdb: no transactions here") }

func (c *duckConn) Close() error {
	c.in.Close()
	return c.cmd.Wait()
}

type duckStmt struct {
	c *duckConn
	q string
}

func (s duckStmt) Close() error  { return nil }
func (s duckStmt) NumInput() int { return 0 }
func (s duckStmt) Exec([]driver.Value) (driver.Result, error) {
	return s.c.ExecContext(context.Background(), s.q, nil)
}
func (s duckStmt) Query([]driver.Value) (driver.Rows, error) {
	return s.c.QueryContext(context.Background(), s.q, nil)
}

type duckRows struct {
	a    *duckAnswer
	next int
}

func (r *duckRows) Columns() []string { return r.a.Columns }
func (r *duckRows) Close() error      { return nil }
func (r *duckRows) Next(dest []driver.Value) error {
	if r.next >= len(r.a.Rows) {
		return io.EOF
	}
	for i, v := range r.a.Rows[r.next] {
		dest[i] = v
	}
	r.next++
	return nil
}
