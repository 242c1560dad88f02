//go:build !linux

package attach

import "net"

// dial connects to the JVM's socket as this process.
func (v *VM) dial() (net.Conn, error) { return net.Dial("unix", v.socketPath()) }
