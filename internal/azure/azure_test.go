package azure

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Location
		url  string // URL("x")
	}{
		{"abfss://dumps@acct.dfs.core.windows.net/heap/node-1/", Location{"abfss", "acct", "core.windows.net", "dumps", "heap/node-1"}, "abfss://dumps@acct.dfs.core.windows.net/x"},
		{"abfs://dumps@acct.dfs.core.chinacloudapi.cn", Location{"abfs", "acct", "core.chinacloudapi.cn", "dumps", ""}, "abfs://dumps@acct.dfs.core.chinacloudapi.cn/x"},
		{"wasbs://dumps@acct.blob.core.windows.net/p", Location{"wasbs", "acct", "core.windows.net", "dumps", "p"}, "wasbs://dumps@acct.blob.core.windows.net/x"},
		{"wasb://dumps@acct.blob.core.usgovcloudapi.net/p", Location{"wasb", "acct", "core.usgovcloudapi.net", "dumps", "p"}, "wasb://dumps@acct.blob.core.usgovcloudapi.net/x"},
		{"az://dumps/a/b", Location{"az", "", "", "dumps", "a/b"}, "az://dumps/x"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if !IsURL(tt.in) {
				t.Errorf("IsURL(%q) = false, want true", tt.in)
			}
			got, err := Parse(tt.in)
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
			if u := got.URL("x"); u != tt.url {
				t.Errorf("URL: got %s, want %s", u, tt.url)
			}
		})
	}
	for _, bad := range []string{
		"abfss://acct.dfs.core.windows.net/p",      // no container
		"abfss://@acct.dfs.core.windows.net/p",     // empty container
		"abfss://c@acct.blob.core.windows.net/p",   // blob host for a dfs scheme
		"wasbs://c@acct.dfs.core.windows.net/p",    // dfs host for a blob scheme
		"abfss://c@acct/p",                         // no service nor suffix
		"az:///p", "s3://b/p", "gs://b/p", "dumps", // no container; other stores
	} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q): no error", bad)
		}
	}
}

func TestWithEnv(t *testing.T) {
	env := map[string]string{"AZURE_STORAGE_ACCOUNT": "acct", "AZURE_STORAGE_KEY": "k", "AZURE_STORAGE_SAS_TOKEN": "?sv=1&sig=s", "AZURE_STORAGE_CONNECTION_STRING": "cs"}
	got := Config{}.WithEnv(func(k string) string { return env[k] })
	if want := (Config{Account: "acct", Key: "k", SASToken: "sv=1&sig=s", ConnectionString: "cs"}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	// An explicit secret is not mixed with the environment's.
	got = Config{SASToken: "mine"}.WithEnv(func(k string) string { return env[k] })
	if want := (Config{Account: "acct", SASToken: "mine"}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// TestNoSecretPrinted: a Config printed by any verb and an error scrubbed
// with it carry none of its secrets.
func TestNoSecretPrinted(t *testing.T) {
	cfg := Config{Account: "acct", Key: "KEY-SECRET-1", SASToken: "sv=2024&sig=SIG%2BSECRET", ConnectionString: "AccountKey=CS-SECRET"}
	secrets := []string{"KEY-SECRET-1", "SIG%2BSECRET", "SIG+SECRET", "CS-SECRET"}
	// A transport error quotes the request URL, SAS included.
	dial := &url.Error{Op: "Put", URL: "https://acct.blob.core.windows.net/c/b?comp=block&" + cfg.SASToken, Err: errors.New("connection refused")}
	for _, out := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), Scrub(dial, cfg).Error(), Scrub(fmt.Errorf("x: %w", dial), cfg).Error()} {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("%q carries secret %q", out, s)
			}
		}
	}
	// A SAS inside a connection string, in a message that is no url.Error.
	csCfg := Config{ConnectionString: "BlobEndpoint=http://h/a;SharedAccessSignature=sv=1&sig=CS%2FSIG"}
	if msg := Scrub(errors.New("bad request to ?sv=1&sig=CS%2FSIG and CS/SIG"), csCfg).Error(); strings.Contains(msg, "SIG") {
		t.Errorf("%q carries the connection string's SAS", msg)
	}
	if !errors.Is(Scrub(dial, cfg), dial.Err) {
		t.Error("Scrub hid the error beneath from errors.Is")
	}
}
