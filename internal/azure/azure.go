// Package azure adapts Azure Blob Storage and ADLS Gen2 for sparkdx: the
// abfss://, abfs://, wasbs://, wasb:// and az:// URLs Spark (Hadoop's ABFS
// and WASB drivers) and Python/Rust tools name containers with, one
// configuration with its Azure-environment defaults, and one client
// constructor. ADLS Gen2 accounts serve the Blob API beside the DFS one
// (multi-protocol access), so abfss:// paths are written through the Blob
// endpoint of the same account.
package azure

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
)

// Config says how to reach an account. Empty fields default from the Azure
// environment variables (WithEnv); with none of ConnectionString, Key and
// SASToken the credential is azidentity's default chain: a service
// principal from AZURE_CLIENT_ID/AZURE_TENANT_ID/AZURE_CLIENT_SECRET,
// workload identity (AKS), managed identity, then the Azure CLI's login.
type Config struct {
	// Account is the storage account of az:// URLs, which do not name one.
	Account string
	// ConnectionString names the account, its key or SAS and its Blob
	// endpoint; it wins over the URL's host (Azurite, sovereign clouds).
	ConnectionString string
	Key              string // shared key of the account
	SASToken         string // a SAS token (sv=…&sig=…), without "?"
	// Retries is how often one request is retried (default 10, as the
	// S3 path does: 0.2 s doubling to 1 s between tries).
	Retries int
}

// WithEnv fills empty fields from AZURE_STORAGE_ACCOUNT,
// AZURE_STORAGE_CONNECTION_STRING, AZURE_STORAGE_KEY and
// AZURE_STORAGE_SAS_TOKEN (the Azure CLI's names) as returned by getenv
// (os.Getenv when nil). An explicit secret is never mixed with another from
// the environment.
func (c Config) WithEnv(getenv func(string) string) Config {
	if getenv == nil {
		getenv = os.Getenv
	}
	if c.Account == "" {
		c.Account = getenv("AZURE_STORAGE_ACCOUNT")
	}
	if c.ConnectionString == "" && c.Key == "" && c.SASToken == "" {
		c.ConnectionString = getenv("AZURE_STORAGE_CONNECTION_STRING")
		c.Key = getenv("AZURE_STORAGE_KEY")
		c.SASToken = strings.TrimPrefix(getenv("AZURE_STORAGE_SAS_TOKEN"), "?")
	}
	return c
}

// String names the account and which credential is set, never a secret:
// a Config printed by mistake leaks nothing.
func (c Config) String() string {
	auth := "default credential chain"
	switch {
	case c.ConnectionString != "":
		auth = "connection string"
	case c.Key != "":
		auth = "shared key"
	case c.SASToken != "":
		auth = "SAS token"
	}
	return fmt.Sprintf("azure account %q (%s)", c.Account, auth)
}

// GoString keeps %#v as safe as %v.
func (c Config) GoString() string { return c.String() }

// secrets are the values no message may carry.
func (c Config) secrets() []string {
	var s []string
	for _, v := range []string{c.ConnectionString, c.Key, c.SASToken} {
		if v != "" {
			s = append(s, v)
		}
	}
	sas := []string{c.SASToken}
	for _, part := range strings.Split(c.ConnectionString, ";") {
		k, v, _ := strings.Cut(part, "=")
		switch strings.TrimSpace(k) {
		case "AccountKey":
			s = append(s, v)
		case "SharedAccessSignature":
			s = append(s, v)
			sas = append(sas, v)
		}
	}
	for _, token := range sas {
		if q, err := url.ParseQuery(token); err == nil && q.Get("sig") != "" {
			s = append(s, q.Get("sig"), url.QueryEscape(q.Get("sig")))
		}
	}
	return s
}

// Location is a container path in an account.
type Location struct {
	Scheme    string // as written: abfss, abfs, wasbs, wasb or az
	Account   string // empty for az://
	Suffix    string // endpoint suffix after the service: core.windows.net
	Container string
	Path      string // without leading or trailing /
}

var schemes = map[string]string{"abfss": "dfs", "abfs": "dfs", "wasbs": "blob", "wasb": "blob", "az": ""}

// IsURL reports whether name has one of the schemes Parse reads.
func IsURL(name string) bool {
	scheme, _, ok := strings.Cut(name, "://")
	_, known := schemes[scheme]
	return ok && known
}

// Parse reads abfss://container@account.dfs.core.windows.net/path (and
// abfs://, same form), wasbs://container@account.blob.core.windows.net/path
// (and wasb://) and az://container/path.
func Parse(name string) (Location, error) {
	scheme, rest, ok := strings.Cut(name, "://")
	service, known := schemes[scheme]
	if !ok || !known {
		return Location{}, fmt.Errorf("%s: not an abfss://, wasbs:// or az:// URL", name)
	}
	host, p, _ := strings.Cut(rest, "/")
	loc := Location{Scheme: scheme, Path: strings.Trim(p, "/")}
	if service == "" {
		loc.Container = host
	} else {
		var at bool
		loc.Container, host, at = strings.Cut(host, "@")
		account, suffix, _ := strings.Cut(host, ".")
		svc, suffix, _ := strings.Cut(suffix, ".")
		if !at || account == "" || svc != service || suffix == "" {
			return Location{}, fmt.Errorf("%s: want %s://container@account.%s.core.windows.net/path", name, scheme, service)
		}
		loc.Account, loc.Suffix = account, suffix
	}
	if loc.Container == "" {
		return Location{}, fmt.Errorf("%s: no container", name)
	}
	return loc, nil
}

// URL is the name of key in l's container, in the scheme l was given in.
func (l Location) URL(key string) string {
	if l.Account == "" {
		return l.Scheme + "://" + l.Container + "/" + key
	}
	return fmt.Sprintf("%s://%s@%s.%s.%s/%s", l.Scheme, l.Container, l.Account, schemes[l.Scheme], l.Suffix, key)
}

// NewClient returns a Blob service client for l's account (no request is
// made yet).
func NewClient(l Location, cfg Config) (*service.Client, error) {
	opts := &azblob.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{
		MaxRetries: int32(cmp.Or(cfg.Retries, 10)), RetryDelay: 200 * time.Millisecond, MaxRetryDelay: time.Second}}}
	if cfg.ConnectionString != "" {
		c, err := azblob.NewClientFromConnectionString(cfg.ConnectionString, opts)
		if err != nil {
			// The SDK's message may quote the string: say only what is wrong.
			return nil, errors.New("azure: AZURE_STORAGE_CONNECTION_STRING: not a valid connection string")
		}
		return c.ServiceClient(), nil
	}
	account := cmp.Or(l.Account, cfg.Account)
	if account == "" {
		return nil, fmt.Errorf("azure: %s names no account: set AZURE_STORAGE_ACCOUNT", l.URL(l.Path))
	}
	endpoint := fmt.Sprintf("https://%s.blob.%s/", account, cmp.Or(l.Suffix, "core.windows.net"))
	var (
		c   *azblob.Client
		err error
	)
	switch {
	case cfg.Key != "":
		var cred *azblob.SharedKeyCredential
		if cred, err = azblob.NewSharedKeyCredential(account, cfg.Key); err != nil {
			return nil, errors.New("azure: AZURE_STORAGE_KEY: not a base64 account key")
		}
		c, err = azblob.NewClientWithSharedKeyCredential(endpoint, cred, opts)
	case cfg.SASToken != "":
		c, err = azblob.NewClientWithNoCredential(endpoint+"?"+cfg.SASToken, opts)
	default:
		var cred *azidentity.DefaultAzureCredential
		if cred, err = azidentity.NewDefaultAzureCredential(nil); err != nil {
			return nil, fmt.Errorf("azure credentials: %w", err)
		}
		c, err = azblob.NewClient(endpoint, cred, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("azure %s: %w", endpoint, Scrub(err, cfg))
	}
	return c.ServiceClient(), nil
}
