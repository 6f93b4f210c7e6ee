package etcd

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The frames of a gRPC call over HTTP/2: length-prefixed messages, then the
// status in the trailers.

// apiError is an error etcd answered with: its gRPC status code and message
// ("etcdserver: requested lease not found").
type apiError struct {
	Code    int
	Message string
}

func (e *apiError) Error() string { return e.Message }

// gRPC status codes guard tells apart.
const (
	codeNotFound        = 5
	codeUnavailable     = 14
	codeUnauthenticated = 16
)

// isLeaseNotFound reports an answer that the lease no longer exists.
func isLeaseNotFound(err error) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.Code == codeNotFound && strings.Contains(ae.Message, "lease not found")
}

// stream is one call's response: its messages, then its status.
type stream struct {
	res    *http.Response
	send   *io.PipeWriter // the request body, open while the call streams
	cancel context.CancelFunc
	buf    [5]byte
}

// recv returns the next message; at the end of the call it returns the call's error
// status, or io.EOF when the call succeeded.
func (s *stream) recv() ([]byte, error) {
	if _, err := io.ReadFull(s.res.Body, s.buf[:]); err != nil {
		if errors.Is(err, io.EOF) {
			if st := status(s.res.Trailer); st != nil {
				return nil, st
			}
			return nil, io.EOF
		}
		return nil, err
	}
	if s.buf[0] != 0 {
		return nil, errors.New("etcd sent a compressed message")
	}
	n := binary.BigEndian.Uint32(s.buf[1:])
	if n > 64<<20 {
		return nil, fmt.Errorf("etcd sent a message of %d bytes", n)
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(s.res.Body, msg); err != nil {
		return nil, err
	}
	return msg, nil
}

func (s *stream) close() {
	if s.send != nil {
		s.send.Close()
	}
	s.cancel()
	s.res.Body.Close()
}

// status is the gRPC status in h (headers of a call that failed at once, or the
// trailers), nil for OK or none.
func status(h http.Header) error {
	code := h.Get("Grpc-Status")
	if code == "" || code == "0" {
		return nil
	}
	n, err := strconv.Atoi(code)
	if err != nil {
		n = -1
	}
	msg, _ := url.PathUnescape(h.Get("Grpc-Message"))
	if msg == "" {
		msg = "gRPC status " + code
	}
	return &apiError{Code: n, Message: msg}
}

// frame is msg with gRPC's length prefix.
func frame(msg []byte) []byte {
	out := make([]byte, 5, 5+len(msg))
	binary.BigEndian.PutUint32(out[1:], uint32(len(msg)))
	return append(out, msg...)
}
