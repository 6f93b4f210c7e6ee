package etcd

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// guard speaks etcd's gRPC API itself, over net/http's HTTP/2, rather than through
// go.etcd.io/etcd/client/v3: that client's gRPC and protobuf packages run their
// start-up work in every guard process, 2.5 ms of the 7 ms `guard version` took,
// paid by every hook and agent call whether or not the project has a backend. guard
// needs ten calls of the API (range, txn, lease grant, revoke, keep-alive, time to
// live, watch, authenticate); this file connects, stream.go frames a call, calls.go
// makes them and wire.go encodes their messages.
// (etcd's JSON gateway would have been simpler, but it refuses a client certificate
// that has a common name, which mutual TLS setups have.)

// client is a connection to one etcd cluster.
type client struct {
	endpoints []*url.URL
	http      *http.Client
	user      string
	password  string

	mu    sync.Mutex
	next  int    // the endpoint that answered last
	token string // the auth token, once authenticated
}

// clientConfig is what newClient needs.
type clientConfig struct {
	Endpoints   []string
	DialTimeout time.Duration
	Username    string
	Password    string
	CA          string
	Cert, Key   string
}

func newClient(c clientConfig) (*client, error) {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: c.DialTimeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout: c.DialTimeout,
	}
	// gRPC is HTTP/2 only: with TLS as negotiated, without it from the first byte.
	var protos http.Protocols
	protos.SetHTTP2(true)
	protos.SetUnencryptedHTTP2(true)
	tr.Protocols = &protos
	// A watch can last hours (guard run): a connection that died without a word is
	// found by a ping after 30 s of silence, and the watch is made again.
	tr.HTTP2 = &http.HTTP2Config{SendPingTimeout: 30 * time.Second, PingTimeout: 15 * time.Second}
	if c.CA != "" || c.Cert != "" {
		tc, err := tlsConfig(c.CA, c.Cert, c.Key)
		if err != nil {
			return nil, err
		}
		tr.TLSClientConfig = tc
	}
	cl := &client{http: &http.Client{Transport: tr}, user: c.Username, password: c.Password}
	for _, e := range c.Endpoints {
		u, err := url.Parse(strings.TrimRight(e, "/"))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("endpoint %q is not a URL such as http://127.0.0.1:2379", e)
		}
		cl.endpoints = append(cl.endpoints, u)
	}
	if len(cl.endpoints) == 0 {
		return nil, errors.New("no endpoint")
	}
	return cl, nil
}

// tlsConfig trusts ca (a PEM file; none: the system's roots) and presents cert/key.
func tlsConfig(ca, cert, key string) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, NextProtos: []string{"h2"}}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("TLS files: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("TLS files: %s holds no PEM certificate", ca)
		}
		tc.RootCAs = pool
	}
	if cert != "" || key != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("TLS files: %w", err)
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	return tc, nil
}

func (c *client) close() { c.http.CloseIdleConnections() }

// unary calls method (e.g. "etcdserverpb.KV/Range") with req and returns the answer.
func (c *client) unary(ctx context.Context, method string, req []byte) ([]byte, error) {
	s, err := c.open(ctx, method, req, false, false)
	if err != nil {
		return nil, err
	}
	defer s.close()
	msg, err := s.recv()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("etcd %s: no answer", method)
		}
		return nil, err
	}
	return msg, nil
}

// open starts a call of method on the first endpoint that answers (the one that
// answered last first), authenticated when a user is configured. With streaming the
// request body stays open (for the caller to close). With leader, etcd refuses the
// call while its member has no leader (clientv3's WithRequireLeader), so that a
// watch on a member cut off from the others does not wait forever.
func (c *client) open(ctx context.Context, method string, req []byte, streaming, leader bool) (*stream, error) {
	token, err := c.authToken(ctx)
	if err != nil {
		return nil, err
	}
	s, err := c.start(ctx, method, req, token, streaming, leader)
	var ae *apiError
	if errors.As(err, &ae) && ae.Code == codeUnauthenticated && c.user != "" {
		// The token expired (etcd's simple tokens last five minutes idle): once more
		// with a fresh one.
		c.mu.Lock()
		c.token = ""
		c.mu.Unlock()
		if token, err = c.authToken(ctx); err != nil {
			return nil, err
		}
		s, err = c.start(ctx, method, req, token, streaming, leader)
	}
	return s, err
}

func (c *client) start(ctx context.Context, method string, req []byte, token string, streaming, leader bool) (*stream, error) {
	// While the cluster elects a leader (a member stopped, a partition healed) every
	// member may answer "unavailable" for a second or two. A call is tried on every
	// member, and the round again after a pause, as long as no member may have
	// applied it: a read, or any call that reached no member at all (the dial
	// failed). A transaction etcd may have applied is not sent twice; its caller
	// judges again. Retries stop with ctx, or after retryFor when ctx has no deadline.
	give := time.Now().Add(retryFor)
	if d, ok := ctx.Deadline(); ok {
		give = d
	}
	pause := 50 * time.Millisecond
	for {
		s, errs, again := c.round(ctx, method, req, token, streaming, leader)
		if s != nil || !again || time.Now().Add(pause).After(give) {
			if s != nil {
				return s, nil
			}
			return nil, errs
		}
		select {
		case <-ctx.Done():
			return nil, errs
		case <-time.After(pause):
		}
		pause = min(2*pause, 800*time.Millisecond)
	}
}

// retryFor bounds the retries of a call whose context has no deadline.
const retryFor = 5 * time.Second

// repeatable are the calls whose effect is the same however often they are made.
var repeatable = map[string]bool{
	"etcdserverpb.KV/Range": true, "etcdserverpb.Lease/LeaseTimeToLive": true,
	"etcdserverpb.Lease/LeaseKeepAlive": true, "etcdserverpb.Lease/LeaseRevoke": true,
	"etcdserverpb.Watch/Watch": true, "etcdserverpb.Auth/Authenticate": true,
}

// round tries the call on each member once, starting with the one that answered
// last, and stops at the first member that may have applied a call that is not
// repeatable. again says whether every failure leaves the call safe to make again.
func (c *client) round(ctx context.Context, method string, req []byte, token string, streaming, leader bool) (*stream, error, bool) {
	c.mu.Lock()
	first := c.next
	c.mu.Unlock()
	var errs []error
	for i := range c.endpoints {
		n := (first + i) % len(c.endpoints)
		s, err := c.startAt(ctx, c.endpoints[n], method, req, token, streaming, leader)
		if err == nil {
			c.mu.Lock()
			c.next = n
			c.mu.Unlock()
			return s, nil, false
		}
		if ctx.Err() != nil {
			return nil, err, false
		}
		var ae *apiError
		var oe *net.OpError
		switch {
		case errors.As(err, &ae) && ae.Code != codeUnavailable:
			return nil, err, false // etcd's answer, not the member's absence
		case errors.As(err, &oe) && oe.Op == "dial", errors.As(err, &ae) && ae.Message == "etcdserver: no leader":
			// Never sent, or refused before it was proposed: safe to send again.
		case !repeatable[method]:
			// The member may have applied it ("request timed out", a connection
			// that broke after the request went out): not to the next member
			// either, or a release applied here is judged "deleted before the
			// release" there, and a claim made twice.
			errs = append(errs, fmt.Errorf("%s: %w", c.endpoints[n].Host, err))
			return nil, errors.Join(errs...), false
		}
		errs = append(errs, fmt.Errorf("%s: %w", c.endpoints[n].Host, err))
	}
	// Every failure left the call unapplied (a dial that failed, or a call that is
	// repeatable).
	return nil, errors.Join(errs...), true
}

func (c *client) startAt(ctx context.Context, ep *url.URL, method string, req []byte, token string, streaming, leader bool) (*stream, error) {
	ctx, cancel := context.WithCancel(ctx)
	u := *ep
	u.Path = "/" + method
	var body io.Reader
	var send *io.PipeWriter
	if streaming {
		pr, pw := io.Pipe()
		body, send = pr, pw
		go func() {
			if _, err := pw.Write(frame(req)); err != nil {
				pw.CloseWithError(err)
			}
		}()
	} else {
		body = bytes.NewReader(frame(req))
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), body)
	if err != nil {
		cancel()
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/grpc")
	hr.Header.Set("Te", "trailers")
	if token != "" {
		hr.Header.Set("Token", token)
	}
	if leader {
		hr.Header.Set("Hasleader", "true")
	}
	res, err := c.http.Do(hr)
	if err != nil {
		cancel()
		if send != nil {
			send.Close()
		}
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		cancel()
		if send != nil {
			send.Close()
		}
		return nil, &apiError{Code: codeUnavailable, Message: fmt.Sprintf("HTTP %s from %s", res.Status, ep.Host)}
	}
	if st := status(res.Header); st != nil {
		// A call that failed at once answers with its status in the headers.
		res.Body.Close()
		cancel()
		if send != nil {
			send.Close()
		}
		return nil, st
	}
	return &stream{res: res, send: send, cancel: cancel}, nil
}

// authToken authenticates once, when a user is configured.
func (c *client) authToken(ctx context.Context) (string, error) {
	if c.user == "" {
		return "", nil
	}
	c.mu.Lock()
	token := c.token
	c.mu.Unlock()
	if token != "" {
		return token, nil
	}
	s, err := c.start(ctx, "etcdserverpb.Auth/Authenticate", authenticateRequest(c.user, c.password), "", false, false)
	if err == nil {
		defer s.close()
		var msg []byte
		if msg, err = s.recv(); err == nil {
			token, err = decodeToken(msg)
		}
	}
	if err != nil || token == "" {
		if err == nil || errors.Is(err, io.EOF) {
			err = errors.New("no token in etcd's answer")
		}
		return "", fmt.Errorf("authenticating as %s: %w", c.user, err)
	}
	c.mu.Lock()
	c.token = token
	c.mu.Unlock()
	return token, nil
}
