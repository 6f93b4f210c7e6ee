package etcdtest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// TLSFiles are the PEM files of a secure member: the CA that signed everything, and
// a client certificate with its key.
type TLSFiles struct {
	CA, Cert, Key string
}

// StartSecure starts one member that speaks TLS only and requires a client
// certificate, with authentication enabled: user root, password password.
func StartSecure(t testing.TB, password string) (*Member, TLSFiles) {
	t.Helper()
	dir := t.TempDir()
	caKey, caCert, caDER := newCA(t)
	files := TLSFiles{CA: writePEM(t, dir, "ca.pem", "CERTIFICATE", caDER)}
	serverCert, serverKey := leaf(t, caCert, caKey, "etcd-server", x509.ExtKeyUsageServerAuth)
	srv := TLSFiles{Cert: writePEM(t, dir, "server.pem", "CERTIFICATE", serverCert), Key: writePEM(t, dir, "server-key.pem", "EC PRIVATE KEY", serverKey)}
	clientCert, clientKey := leaf(t, caCert, caKey, "root", x509.ExtKeyUsageClientAuth)
	files.Cert = writePEM(t, dir, "client.pem", "CERTIFICATE", clientCert)
	files.Key = writePEM(t, dir, "client-key.pem", "EC PRIVATE KEY", clientKey)

	ports := freePorts(t, 2)
	cfg := embed.NewConfig()
	cfg.Name = "secure"
	cfg.Dir = filepath.Join(dir, "data")
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cu, _ := url.Parse(fmt.Sprintf("https://127.0.0.1:%d", ports[0]))
	pu, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", ports[1]))
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*cu}, []url.URL{*cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*pu}, []url.URL{*pu}
	cfg.InitialCluster = "secure=" + pu.String()
	cfg.ClientTLSInfo = transport.TLSInfo{CertFile: srv.Cert, KeyFile: srv.Key, TrustedCAFile: files.CA, ClientCertAuth: true}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("etcdtest: %v", err)
	}
	m := &Member{Name: cfg.Name, ClientURL: cu.String(), etcd: e}
	t.Cleanup(m.Stop)
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		t.Fatal("etcdtest: secure member not ready within 60s")
	}

	info := transport.TLSInfo{CertFile: files.Cert, KeyFile: files.Key, TrustedCAFile: files.CA}
	tc, err := info.ClientConfig()
	if err != nil {
		t.Fatalf("etcdtest: %v", err)
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{m.ClientURL}, TLS: tc, DialTimeout: 10 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatalf("etcdtest: %v", err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, step := range []func() error{
		func() error { _, err := cli.UserAdd(ctx, "root", password); return err },
		func() error { _, err := cli.RoleAdd(ctx, "root"); return err },
		func() error { _, err := cli.UserGrantRole(ctx, "root", "root"); return err },
		func() error { _, err := cli.AuthEnable(ctx); return err },
	} {
		if err := step(); err != nil {
			t.Fatalf("etcdtest: enabling authentication: %v", err)
		}
	}
	return m, files
}

func newCA(t testing.TB) (*ecdsa.PrivateKey, *x509.Certificate, []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "guard test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return key, cert, der
}

func leaf(t testing.TB, ca *x509.Certificate, caKey *ecdsa.PrivateKey, cn string, usage x509.ExtKeyUsage) (certDER, keyDER []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"}}
	certDER, err = x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err = x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return certDER, keyDER
}

func writePEM(t testing.TB, dir, name, kind string, der []byte) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
