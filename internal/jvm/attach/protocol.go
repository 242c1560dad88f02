package attach

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxOutput bounds what one command may answer: a thread dump of a
// thousand threads is a few MB; a hostile peer could send forever.
const maxOutput = 64 << 20

// request is protocol 1: "1", the command and exactly three arguments,
// each ended by a NUL (missing arguments are empty).
func request(cmd string, args []string) []byte {
	b := []byte("1\x00" + cmd + "\x00")
	for i := range 3 {
		if i < len(args) {
			b = append(b, args[i]...)
		}
		b = append(b, 0)
	}
	return b
}

// readResponse reads the result code line and the rest of the stream.
func readResponse(r io.Reader, cmd string) (string, error) {
	br := bufio.NewReader(io.LimitReader(r, maxOutput+1))
	line, err := br.ReadString('\n')
	if err != nil && (err != io.EOF || line == "") {
		return "", fmt.Errorf("%s: reading the result code: %w", cmd, err)
	}
	code, cerr := strconv.Atoi(strings.TrimSpace(line))
	if cerr != nil {
		return "", fmt.Errorf("%s: result code %q is no number", cmd, truncate(line, 40))
	}
	rest, err := io.ReadAll(br)
	if err != nil {
		return string(rest), fmt.Errorf("%s: reading the output: %w", cmd, err)
	}
	if len(line)+len(rest) > maxOutput {
		return string(rest), fmt.Errorf("%s: output longer than %d bytes", cmd, maxOutput)
	}
	if code != 0 { // a jcmd that throws answers -1 and the exception's text
		return string(rest), &CommandError{Command: cmd, Code: code, Output: string(rest)}
	}
	return string(rest), nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
