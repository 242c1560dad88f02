package agent

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
)

// listener is a TCP socket in the LISTEN state, from /proc/<pid>/net/tcp
// or tcp6 (the sockets of the process's network namespace).
type listener struct {
	addr  netip.Addr
	port  uint16
	inode uint64
}

// tcpListen is the kernel's TCP_LISTEN state as /proc/net/tcp writes it.
const tcpListen = "0A"

// parseListeners reads the listening sockets of a /proc/net/tcp or tcp6
// file: "sl local_address rem_address st ... uid timeout inode ...", the
// address in hex as the kernel stores it (32-bit words in host order,
// little-endian here).
func parseListeners(r io.Reader) ([]listener, error) {
	var out []listener
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if line == 1 || len(f) < 10 || f[3] != tcpListen {
			continue
		}
		host, port, ok := strings.Cut(f[1], ":")
		if !ok {
			return out, fmt.Errorf("line %d: local address %q", line, f[1])
		}
		addr, err := kernelAddr(host)
		if err != nil {
			return out, fmt.Errorf("line %d: %w", line, err)
		}
		p, err := strconv.ParseUint(port, 16, 16)
		if err != nil {
			return out, fmt.Errorf("line %d: port %q", line, port)
		}
		inode, err := strconv.ParseUint(f[9], 10, 64)
		if err != nil {
			return out, fmt.Errorf("line %d: inode %q", line, f[9])
		}
		out = append(out, listener{addr: addr, port: uint16(p), inode: inode})
	}
	return out, sc.Err()
}

// kernelAddr decodes an IPv4 (8 hex digits) or IPv6 (32) address of
// /proc/net/tcp: each 32-bit word is little-endian.
func kernelAddr(h string) (netip.Addr, error) {
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != 4 && len(b) != 16 {
		return netip.Addr{}, fmt.Errorf("address %q", h)
	}
	for i := 0; i < len(b); i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	if len(b) == 4 {
		return netip.AddrFrom4([4]byte(b)), nil
	}
	return netip.AddrFrom16([16]byte(b)).Unmap(), nil
}

// socketInodes returns the inodes of the sockets among a process's open
// file targets (procfs's FileDescriptorTargets: "socket:[inode]").
func socketInodes(targets []string) map[uint64]bool {
	out := map[uint64]bool{}
	for _, target := range targets {
		if s, ok := strings.CutPrefix(target, "socket:["); ok {
			if n, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64); err == nil {
				out[n] = true
			}
		}
	}
	return out
}

// processListeners returns the TCP sockets pid listens on: the listening
// sockets of its network namespace whose inodes are among its open fds.
func processListeners(procRoot string, pid int) ([]listener, error) {
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		return nil, err
	}
	p, err := fs.Proc(pid)
	if err != nil {
		return nil, err
	}
	targets, err := p.FileDescriptorTargets()
	if err != nil {
		return nil, err
	}
	inodes := socketInodes(targets)
	var out []listener
	for _, name := range []string{"tcp", "tcp6"} {
		f, err := os.Open(filepath.Join(procRoot, strconv.Itoa(pid), "net", name))
		if err != nil {
			if os.IsNotExist(err) {
				continue // a kernel without IPv6
			}
			return nil, err
		}
		ls, err := parseListeners(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name(), err)
		}
		for _, l := range ls {
			if inodes[l.inode] {
				out = append(out, l)
			}
		}
	}
	return out, nil
}

// localAddrs returns the addresses of a network namespace's interfaces but
// loopback, from /proc/<pid>/net/fib_trie ("|-- 10.1.2.3" followed by
// "/32 host LOCAL"): how the agent reaches a pod's port that listens on
// every address when the pod has a network namespace of its own.
func localAddrs(r io.Reader) []netip.Addr {
	var out []netip.Addr
	seen := map[netip.Addr]bool{}
	var last string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		t := strings.TrimSpace(sc.Text())
		if s, ok := strings.CutPrefix(t, "|-- "); ok {
			last = s
			continue
		}
		if strings.HasSuffix(t, "host LOCAL") {
			if a, err := netip.ParseAddr(last); err == nil && !a.IsLoopback() && !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	return out
}
