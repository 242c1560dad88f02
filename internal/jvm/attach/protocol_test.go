package attach

import (
	"errors"
	"strings"
	"testing"
)

func TestRequest(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		args []string
		want string
	}{
		{"jcmd", []string{"VM.version"}, "1\x00jcmd\x00VM.version\x00\x00\x00"},
		{"properties", nil, "1\x00properties\x00\x00\x00\x00"},
		{"load", []string{"a", "b", "c"}, "1\x00load\x00a\x00b\x00c\x00"},
	} {
		if got := string(request(tc.cmd, tc.args)); got != tc.want {
			t.Errorf("request(%q, %q) = %q, want %q", tc.cmd, tc.args, got, tc.want)
		}
	}
}

func TestReadResponse(t *testing.T) {
	for _, tc := range []struct {
		name, in, out string
		code          int // -99: no CommandError expected, error expected
		ok            bool
	}{
		{name: "ok", in: "0\nOpenJDK 64-Bit Server VM\n", out: "OpenJDK 64-Bit Server VM\n", ok: true},
		{name: "ok without output", in: "0\n", ok: true},
		{name: "ok at EOF without newline", in: "0", ok: true},
		{name: "refused", in: "-1\njava.lang.IllegalArgumentException: Unknown diagnostic command\n", out: "java.lang.IllegalArgumentException: Unknown diagnostic command\n", code: -1},
		{name: "code 100", in: "100\n", code: 100},
		{name: "garbage", in: "HTTP/1.1 200 OK\n", code: -99},
		{name: "empty", in: "", code: -99},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := readResponse(strings.NewReader(tc.in), "jcmd")
			var ce *CommandError
			switch {
			case tc.ok && err != nil:
				t.Fatalf("got error %v, want none", err)
			case !tc.ok && err == nil:
				t.Fatalf("got no error, want one")
			case tc.code == -99 && errors.As(err, &ce):
				t.Fatalf("got %v, want a protocol error, no CommandError", err)
			case !tc.ok && tc.code != -99 && (!errors.As(err, &ce) || ce.Code != tc.code):
				t.Fatalf("got %v, want CommandError with code %d", err, tc.code)
			}
			if out != tc.out {
				t.Errorf("got output %q, want %q", out, tc.out)
			}
		})
	}
}
