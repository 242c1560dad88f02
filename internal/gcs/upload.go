package gcs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Upload copies size bytes of r (a heap dump's file) to object in bucket
// through a resumable upload: a session, then chunks sent straight from r
// (memory stays one request's buffers whatever its size). A chunk that
// fails transiently is retried from the offset the service says it kept;
// an upload that fails for good, or whose ctx ends, is cancelled, and the
// object appears only when the last chunk is in — a process killed midway
// leaves nothing visible (the service drops the session within a week).
func (c *Client) Upload(ctx context.Context, bucket, object string, r io.ReaderAt, size int64, contentType string) error {
	session, err := c.start(ctx, bucket, object, contentType, size)
	if err != nil {
		return err
	}
	if err := c.send(ctx, session, r, size); err != nil {
		c.cancel(session)
		return err
	}
	return nil
}

// start opens a resumable session and returns its URI.
func (c *Client) start(ctx context.Context, bucket, object, contentType string, size int64) (string, error) {
	hc, err := c.authed(ctx)
	if err != nil {
		return "", err
	}
	meta, _ := json.Marshal(map[string]string{"name": object, "contentType": contentType})
	u := fmt.Sprintf("%s/upload/storage/v1/b/%s/o?uploadType=resumable&name=%s", c.base, url.PathEscape(bucket), url.QueryEscape(object))
	var session string
	err = c.retry(ctx, func() (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(meta))
		if err != nil {
			return false, err
		}
		req.Header.Set("Content-Type", "application/json; charset=UTF-8")
		req.Header.Set("X-Upload-Content-Type", contentType)
		req.Header.Set("X-Upload-Content-Length", strconv.FormatInt(size, 10))
		resp, err := hc.Do(req)
		if err != nil {
			return true, err
		}
		defer drain(resp)
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
			return transient(resp.StatusCode), statusError("start upload", resp)
		}
		if session = resp.Header.Get("Location"); session == "" {
			return false, errors.New("start upload: no session URI in the response")
		}
		return false, nil
	})
	return session, err
}

// send puts the file's chunks from offset 0 until the service holds them
// all. After a failure it waits, asks what the service kept (it may hold
// part of a chunk) and goes on from there.
func (c *Client) send(ctx context.Context, session string, f io.ReaderAt, size int64) error {
	var off int64
	tries := 0
	for {
		done, kept, err := c.chunk(ctx, session, f, off, size)
		switch {
		case err == nil && done:
			return nil
		case err == nil && kept > off:
			off, tries = kept, 0
			continue
		case err == nil:
			err = &retryErr{fmt.Errorf("gcs kept %d bytes, no more than before", kept)}
		}
		for err != nil {
			if tries >= c.cfg.Retries || !retryable(err) || !c.sleep(ctx, tries) {
				return fmt.Errorf("chunk at offset %d of %d: %w", off, size, err)
			}
			tries++
			done, kept, err = c.status(ctx, session, size)
		}
		if done {
			return nil
		}
		off = kept
	}
}

// chunk sends the chunk at off and returns whether the object is complete
// and otherwise how many bytes the service holds.
func (c *Client) chunk(ctx context.Context, session string, f io.ReaderAt, off, size int64) (bool, int64, error) {
	n := min(c.cfg.ChunkSize, size-off)
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, session, io.NewSectionReader(f, off, n))
	if err != nil {
		return false, 0, err
	}
	req.ContentLength = n
	if n == 0 {
		req.Body = http.NoBody
		req.Header.Set("Content-Range", fmt.Sprintf("bytes */%d", size))
	} else {
		req.Header.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", off, off+n-1, size))
	}
	return c.progress(req)
}

// status asks how much of the upload the service holds.
func (c *Client) status(ctx context.Context, session string, size int64) (bool, int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, session, http.NoBody)
	if err != nil {
		return false, 0, err
	}
	req.Header.Set("Content-Range", fmt.Sprintf("bytes */%d", size))
	return c.progress(req)
}

// progress reads a chunk's or a status query's answer: 200/201 complete,
// 308 with the kept range ("bytes=0-N"; none: nothing kept).
func (c *Client) progress(req *http.Request) (bool, int64, error) {
	resp, err := c.plain.Do(req)
	if err != nil {
		return false, 0, &retryErr{err}
	}
	defer drain(resp)
	switch resp.StatusCode {
	case http.StatusOK, http.StatusCreated:
		return true, 0, nil
	case http.StatusPermanentRedirect:
		r := resp.Header.Get("Range")
		if r == "" {
			return false, 0, nil
		}
		end, err := strconv.ParseInt(strings.TrimPrefix(r[strings.LastIndexByte(r, '-')+1:], "="), 10, 64)
		if err != nil || !strings.HasPrefix(r, "bytes=0-") {
			return false, 0, fmt.Errorf("resumable upload: range %q", r)
		}
		return false, end + 1, nil
	}
	err = statusError("upload chunk", resp)
	if transient(resp.StatusCode) {
		err = &retryErr{err}
	}
	return false, 0, err
}

// cancel ends a session that will not be finished, so that the service
// drops what it holds now; best effort, on its own deadline (ctx may be
// what ended).
func (c *Client) cancel(session string) {
	ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, session, http.NoBody)
	if err != nil {
		return
	}
	if resp, err := c.plain.Do(req); err == nil {
		drain(resp)
	}
}

// retry runs op until it succeeds, fails for good, or Retries are spent.
func (c *Client) retry(ctx context.Context, op func() (again bool, err error)) error {
	for try := 0; ; try++ {
		again, err := op()
		if err == nil || !again || try >= c.cfg.Retries || !c.sleep(ctx, try) {
			return err
		}
	}
}

// sleep waits before try+1: 0.2 s doubling to 1 s. False when ctx ended.
func (c *Client) sleep(ctx context.Context, try int) bool {
	t := time.NewTimer(min(200*time.Millisecond<<min(try, 5), time.Second))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// retryErr marks a failure worth asking the session's state again.
type retryErr struct{ err error }

func (e *retryErr) Error() string { return e.err.Error() }
func (e *retryErr) Unwrap() error { return e.err }

func retryable(err error) bool {
	var r *retryErr
	return errors.As(err, &r) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// transient reports the statuses Google asks clients to retry.
func transient(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500
}

// statusError says what the service answered: its status and its own
// message (a JSON error or text), cut short. The request's headers, the
// token among them, are never part of it.
func statusError(what string, resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		msg = e.Error.Message
	}
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return fmt.Errorf("gcs %s: %s: %s", what, resp.Status, msg)
}

func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}
