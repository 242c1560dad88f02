package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SparkApp is what a running driver's REST API (its UI port, /api/v1)
// said about its application at Time: the live executors' memory as Spark
// accounts for it, read without a jar in the application.
type SparkApp struct {
	URL       string          `json:"url"` // the driver's UI, http://host:port
	AppID     string          `json:"appId"`
	Time      int64           `json:"time"` // when read, epoch ms
	Executors []SparkExecutor `json:"executors"`
}

// SparkExecutor is one entry of /api/v1/applications/<app>/executors
// (Spark's ExecutorSummary), the memory part of it.
type SparkExecutor struct {
	ID       string `json:"id"`
	HostPort string `json:"hostPort"`
	Active   bool   `json:"isActive"`
	// MemoryUsed is the storage memory cached blocks take (memoryUsed),
	// MaxMemory the storage memory available to them (maxMemory).
	MemoryUsed int64 `json:"memoryUsed"`
	MaxMemory  int64 `json:"maxMemory"`
	// Storage splits storage memory on and off heap (memoryMetrics).
	Storage *StorageMemory `json:"memoryMetrics,omitempty"`
	// Peak is peakMemoryMetrics: the highest value of each of Spark's
	// executor metrics (JVMHeapMemory, OnHeapExecutionMemory,
	// DirectPoolMemory, ProcessTreePythonRSSMemory, ...) the executor's
	// heartbeats reported since it started, under Spark's names.
	Peak map[string]int64 `json:"peakMemoryMetrics,omitempty"`
}

// StorageMemory is Spark's MemoryMetrics.
type StorageMemory struct {
	UsedOnHeap   int64 `json:"usedOnHeapStorageMemory"`
	UsedOffHeap  int64 `json:"usedOffHeapStorageMemory"`
	TotalOnHeap  int64 `json:"totalOnHeapStorageMemory"`
	TotalOffHeap int64 `json:"totalOffHeapStorageMemory"`
}

// sparkREST polls the REST API of the drivers on the node, each at most
// once per every, in goroutines of its own: a slow or hung driver delays
// its own data, never a sampling cycle. A cycle takes the last answer.
type sparkREST struct {
	procRoot string
	every    time.Duration
	client   *http.Client

	mu      sync.Mutex
	drivers map[procKey]*restDriver
	errs    map[string]int // failures since the last cycle took them
	wg      sync.WaitGroup // polls in flight
}

// restDriver is one driver's polling state.
type restDriver struct {
	base string // the UI's base URL once found
	next time.Time
	busy bool
	app  *SparkApp
}

// maxRESTBody bounds an answer read: /executors of a thousand executors is
// a few MiB.
const maxRESTBody = 32 << 20

func newSparkREST(procRoot string, every, timeout time.Duration) *sparkREST {
	return &sparkREST{
		procRoot: procRoot,
		every:    every,
		// No proxy: the driver is on this node.
		client:  &http.Client{Timeout: timeout, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}},
		drivers: map[procKey]*restDriver{},
		errs:    map[string]int{},
	}
}

// driver returns the latest answer of the driver process key (nil before
// the first), starting a poll when one is due.
func (r *sparkREST) driver(key procKey, argv []string, now time.Time) *SparkApp {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := r.drivers[key]
	if d == nil {
		d = &restDriver{}
		r.drivers[key] = d
	}
	if !d.busy && !now.Before(d.next) && uiEnabled(argv) {
		d.busy, d.next = true, now.Add(r.every)
		base := d.base
		r.wg.Add(1)
		go r.poll(key, d, base, argv)
	}
	return d.app
}

// cycleDone drops the drivers not seen this cycle and moves the failures
// since the last cycle into errs.
func (r *sparkREST) cycleDone(seen map[procKey]Process, errs map[string]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.drivers {
		if _, ok := seen[k]; !ok {
			delete(r.drivers, k)
		}
	}
	for k, v := range r.errs {
		errs[k] += v
	}
	clear(r.errs)
}

// wait blocks until the polls in flight end.
func (r *sparkREST) wait() { r.wg.Wait() }

func (r *sparkREST) poll(key procKey, d *restDriver, base string, argv []string) {
	defer r.wg.Done()
	var errSource string
	if base == "" {
		base = r.discover(key.pid, argv)
		if base == "" {
			errSource = "spark_rest_discovery"
		}
	}
	var app *SparkApp
	if base != "" {
		var err error
		if app, err = r.read(base); err != nil {
			errSource = "spark_rest"
			if errors.Is(err, errNotSpark) || isConnErr(err) {
				base = "" // the port went or was never the UI: find it again
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	d.busy, d.base, d.app = false, base, app
	if errSource != "" {
		r.errs[errSource]++
	}
}

var errNotSpark = errors.New("not a Spark REST API")

func isConnErr(err error) bool {
	var op *net.OpError
	return errors.As(err, &op)
}

// read asks base for its applications and the executors of each.
func (r *sparkREST) read(base string) (*SparkApp, error) {
	var apps []struct {
		ID string `json:"id"`
	}
	if err := r.get(base+"/api/v1/applications", &apps); err != nil {
		return nil, err
	}
	if len(apps) == 0 {
		return nil, fmt.Errorf("%s: no application", base)
	}
	// A driver serves its own application only.
	app := &SparkApp{URL: base, AppID: apps[0].ID, Time: time.Now().UnixMilli()}
	if err := r.get(base+"/api/v1/applications/"+url.PathEscape(app.AppID)+"/executors", &app.Executors); err != nil {
		return nil, err
	}
	return app, nil
}

func (r *sparkREST) get(u string, v any) error {
	resp, err := r.client.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %w", u, resp.Status, errNotSpark)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxRESTBody)).Decode(v); err != nil {
		return fmt.Errorf("GET %s: %w: %w", u, errNotSpark, err)
	}
	return nil
}

// discover finds the driver's UI: the port spark.ui.port names, then
// every port the process listens on, the first answering
// /api/v1/applications with a JSON list.
func (r *sparkREST) discover(pid int, argv []string) string {
	ls, err := processListeners(r.procRoot, pid)
	if err != nil {
		return ""
	}
	want := uiPort(argv)
	slices.SortStableFunc(ls, func(a, b listener) int {
		// The configured port first, then Spark's default range.
		rank := func(l listener) int {
			switch {
			case int(l.port) == want:
				return 0
			case l.port >= 4040 && l.port < 4040+100:
				return 1
			}
			return 2
		}
		return rank(a) - rank(b)
	})
	tried := map[string]bool{}
	for _, l := range ls {
		host := r.reach(pid, l.addr)
		if host == "" {
			continue
		}
		base := "http://" + net.JoinHostPort(host, strconv.Itoa(int(l.port)))
		if tried[base] {
			continue
		}
		tried[base] = true
		var apps []json.RawMessage
		if r.get(base+"/api/v1/applications", &apps) == nil {
			return base
		}
	}
	return ""
}

// reach is the address the agent connects to for a socket listening on
// addr in pid's network namespace; "" when it cannot (loopback of another
// namespace).
func (r *sparkREST) reach(pid int, addr netip.Addr) string {
	same := r.sameNetNS(pid)
	switch {
	case addr.IsUnspecified():
		if same {
			return "127.0.0.1"
		}
		f, err := os.Open(filepath.Join(r.procRoot, strconv.Itoa(pid), "net", "fib_trie"))
		if err != nil {
			return ""
		}
		defer f.Close()
		if as := localAddrs(f); len(as) > 0 {
			return as[0].String()
		}
		return ""
	case addr.IsLoopback() && !same:
		return ""
	}
	return addr.String()
}

// sameNetNS says whether pid shares the agent's network namespace (true
// when either cannot be read: the common case of an agent on the host).
func (r *sparkREST) sameNetNS(pid int) bool {
	self, err1 := os.Readlink(filepath.Join(r.procRoot, "self", "ns", "net"))
	other, err2 := os.Readlink(filepath.Join(r.procRoot, strconv.Itoa(pid), "ns", "net"))
	return err1 != nil || err2 != nil || self == other
}

// confValue returns a Spark conf value from a driver's command line
// (--conf key=value, --conf=key=value or -Dkey=value), the last one given.
func confValue(argv []string, key string) (string, bool) {
	var v string
	var found bool
	for _, a := range argv {
		a = strings.TrimPrefix(strings.TrimPrefix(a, "--conf="), "-D")
		if s, ok := strings.CutPrefix(a, key+"="); ok {
			v, found = s, true
		}
	}
	return v, found
}

// uiPort is spark.ui.port from the command line, 0 when not given.
func uiPort(argv []string) int {
	v, _ := confValue(argv, "spark.ui.port")
	n, _ := strconv.Atoi(v)
	return n
}

// uiEnabled is false for a driver started with spark.ui.enabled=false:
// it serves no REST API to find.
func uiEnabled(argv []string) bool {
	v, ok := confValue(argv, "spark.ui.enabled")
	return !ok || !strings.EqualFold(v, "false")
}
