package azure

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
)

// BlockSize is the default block of Upload: 16 MiB, as the S3 path's parts;
// 50,000 blocks hold 781 GiB.
const BlockSize = 16 << 20

const maxBlocks = 50000

// Upload copies size bytes of r (a heap dump's file) to the block blob key
// in l's container: its blocks staged one after another straight from r
// (memory stays one request's buffers whatever the dump's size), each
// request retried by the client's policy, then the block list committed in
// one call — the blob appears whole or not at all; blocks of an upload
// killed midway are never visible and the service drops them within a
// week. blockSize 0 is BlockSize.
func Upload(ctx context.Context, c *service.Client, l Location, key string, r io.ReaderAt, size int64, contentType string, blockSize int64, cfg Config) error {
	if blockSize <= 0 {
		blockSize = BlockSize
	}
	blockSize = max(blockSize, (size+maxBlocks-1)/maxBlocks)
	bb := c.NewContainerClient(l.Container).NewBlockBlobClient(key)
	var ids []string
	for off := int64(0); off < size; off += blockSize {
		// Fixed-width ids: the service wants every id of a blob the same length.
		id := base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "sparkdx-%08d", len(ids)))
		body := io.NewSectionReader(r, off, min(blockSize, size-off))
		if _, err := bb.StageBlock(ctx, id, nopCloser{body}, nil); err != nil {
			return fmt.Errorf("block %d at offset %d: %w", len(ids), off, Scrub(err, cfg))
		}
		ids = append(ids, id)
	}
	_, err := bb.CommitBlockList(ctx, ids, &blockblob.CommitBlockListOptions{HTTPHeaders: &blob.HTTPHeaders{BlobContentType: &contentType}})
	if err != nil {
		return fmt.Errorf("commit %d blocks: %w", len(ids), Scrub(err, cfg))
	}
	return nil
}

type nopCloser struct{ io.ReadSeeker }

func (nopCloser) Close() error { return nil }

// scrubbed is an error whose message was made safe to show; errors.Is and
// errors.As still see the error beneath.
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// Scrub returns err with a message that carries no secret of cfg: a
// service error as its status and code only (the SDK's message quotes the
// response, which for a failed signature quotes what was signed), any
// other without the query of the URL it quotes (a transport error quotes
// the request's, a SAS token included) and with cfg's secrets cut out.
func Scrub(err error, cfg Config) error {
	if err == nil {
		return nil
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		msg := fmt.Sprintf("azure: %d %s", re.StatusCode, re.ErrorCode)
		if re.StatusCode == 401 || re.StatusCode == 403 {
			msg += " (check AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN, AZURE_STORAGE_CONNECTION_STRING or the identity's role on the container)"
		}
		return &scrubbed{msg: msg, err: err}
	}
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil && u.RawQuery != "" {
			u.RawQuery = "…"
			msg = strings.ReplaceAll(msg, ue.URL, u.String())
		}
	}
	for _, s := range cfg.secrets() {
		msg = strings.ReplaceAll(msg, s, "[redacted]")
	}
	return &scrubbed{msg: msg, err: err}
}
