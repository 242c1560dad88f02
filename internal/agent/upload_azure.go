package agent

import (
	"context"
	"fmt"
	"io"
	"path"
	"path/filepath"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/sparkdx/sparkdx/internal/azure"
)

// azureStore copies heap dumps to a container of Azure Blob Storage or
// ADLS Gen2 (abfss://, wasbs://, az://) under its path: staged blocks
// committed at the end (azure.Upload).
type azureStore struct {
	client    *service.Client
	loc       azure.Location
	cfg       azure.Config
	blockSize int64 // 0: azure.BlockSize
}

func newAzureStore(url string, cfg azure.Config) (*azureStore, error) {
	loc, err := azure.Parse(url)
	if err != nil {
		return nil, err
	}
	client, err := azure.NewClient(loc, cfg)
	if err != nil {
		return nil, err
	}
	return &azureStore{client: client, loc: loc, cfg: cfg}, nil
}

func (u *azureStore) put(ctx context.Context, file string) (string, error) {
	key := path.Join(u.loc.Path, filepath.Base(file))
	err := withDump(file, func(r io.ReaderAt, size int64) error {
		return azure.Upload(ctx, u.client, u.loc, key, r, size, hprofType, u.blockSize, u.cfg)
	})
	if err != nil {
		return "", fmt.Errorf("upload %s to %s: %w", file, u.loc.URL(key), err)
	}
	return u.loc.URL(key), nil
}
