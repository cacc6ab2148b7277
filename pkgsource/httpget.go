package pkgsource

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

// httpResult is one bounded GET.
type httpResult struct {
	Status int
	Body   []byte
}

// getBounded GETs url with a per-request timeout and reads at most limit
// bytes of body; a longer body is ErrTooLarge. Transport failures are
// returned as *transportError so callers can classify them.
func getBounded(ctx context.Context, client *http.Client, url, accept string, limit int64, timeout time.Duration) (httpResult, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return httpResult{}, fmt.Errorf("request %q: %w", url, err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	req.Header.Set("User-Agent", "dshaudit (+https://github.com/dshaudit/dshaudit)")
	resp, err := client.Do(req)
	if err != nil {
		return httpResult{}, &transportError{URL: url, Err: err, Timeout: timeout}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// Drain a little so the connection can be reused; never more.
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return httpResult{Status: resp.StatusCode}, nil
	}
	if resp.ContentLength > limit {
		return httpResult{}, fmt.Errorf("%w: %q announces %d bytes, the limit is %d", ErrTooLarge, url, resp.ContentLength, limit)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return httpResult{}, &transportError{URL: url, Err: err, Timeout: timeout}
	}
	if int64(len(body)) > limit {
		return httpResult{}, fmt.Errorf("%w: %q sent more than %d bytes", ErrTooLarge, url, limit)
	}
	return httpResult{Status: resp.StatusCode, Body: body}, nil
}

// transportError is a failure to get any HTTP answer.
type transportError struct {
	URL     string
	Err     error
	Timeout time.Duration
}

func (e *transportError) Error() string {
	return fmt.Sprintf("GET %q: %s", e.URL, e.Class())
}

func (e *transportError) Unwrap() error { return e.Err }

// Class names the failure in a few stable words, without the resolver
// addresses and ports that make raw net errors differ between machines.
func (e *transportError) Class() string {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recErr tls.RecordHeaderError
	switch {
	case errors.Is(e.Err, context.DeadlineExceeded) || os.IsTimeout(e.Err):
		return fmt.Sprintf("timed out after %s", e.Timeout)
	case errors.Is(e.Err, context.Canceled):
		return "canceled"
	case errors.As(e.Err, &dnsErr):
		if dnsErr.IsNotFound {
			return fmt.Sprintf("DNS: no such host %q", dnsErr.Name)
		}
		return fmt.Sprintf("DNS lookup of %q failed", dnsErr.Name)
	case errors.As(e.Err, &certErr), errors.As(e.Err, &unknownAuth), errors.As(e.Err, &hostErr), errors.As(e.Err, &recErr):
		return "TLS: " + firstLine(e.Err.Error())
	case errors.As(e.Err, &opErr) && opErr.Op == "dial":
		return "connection failed: " + firstLine(opErr.Err.Error())
	default:
		return firstLine(e.Err.Error())
	}
}

// readBoundedFile reads a local file of at most limit bytes.
func readBoundedFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > limit {
		return nil, fmt.Errorf("%w: %q is %d bytes, the limit is %d", ErrTooLarge, path, st.Size(), limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: %q is larger than %d bytes", ErrTooLarge, path, limit)
	}
	return b, nil
}
