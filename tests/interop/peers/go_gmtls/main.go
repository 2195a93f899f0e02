// The TLCP (GM/T 0024, "GMTLS") peer of guomi's interop suite, on tjfoc/gmsm's gmtls.
//
//	gmtls-peer version
//	gmtls-peer server -port N -sign-cert F -sign-key F -enc-cert F -enc-key F
//	                  [-host 127.0.0.1] [-ca F] [-client-auth none|request|require|verify]
//	                  [-suites e013,...] [-once]
//	gmtls-peer client -port N [-host 127.0.0.1] [-ca F] [-cert F -key F]
//	                  [-suites e013,...] [-server-name S] [-message TEXT]
//
// Keys are unencrypted PKCS#8 PEM ("PRIVATE KEY"; tjfoc reads encrypted PKCS#8 only with
// AES-CBC, not GmSSL's SM4-CBC). Certificates are PEM; the server sends exactly two,
// signing first, encryption second.
//
// Every event is one JSON object per line on stdout:
//
//	{"event":"listening","port":N}                                  server, once bound
//	{"event":"handshake","version":"0x0101","suite":"0xe013","peer_certs":K}
//	{"event":"echo","bytes":B}                                      server, per line echoed
//	{"event":"reply","data":"..."}                                  client, the echoed line
//	{"event":"error","error":"..."}                                 then exit code 1 (client)
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/tjfoc/gmsm/gmtls"
	"github.com/tjfoc/gmsm/x509"
)

// The pinned library version; reported by "version" and checked by the harness.
const libVersion = "v1.4.1"

func emit(fields map[string]any) {
	b, _ := json.Marshal(fields)
	os.Stdout.Write(append(b, '\n'))
}

func fail(err error) {
	emit(map[string]any{"event": "error", "error": err.Error()})
	os.Exit(1)
}

func readPool(path string) *x509.CertPool {
	pem, err := os.ReadFile(path)
	if err != nil {
		fail(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		fail(fmt.Errorf("%s: no certificate", path))
	}
	return pool
}

func parseSuites(s string) []uint16 {
	if s == "" {
		return nil
	}
	var out []uint16
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(part)), "0x"), 16, 16)
		if err != nil {
			fail(fmt.Errorf("cipher suite %q: %v", part, err))
		}
		out = append(out, uint16(v))
	}
	return out
}

func handshakeEvent(c *gmtls.Conn) {
	st := c.ConnectionState()
	emit(map[string]any{
		"event":      "handshake",
		"version":    fmt.Sprintf("0x%04x", st.Version),
		"suite":      fmt.Sprintf("0x%04x", st.CipherSuite),
		"peer_certs": len(st.PeerCertificates),
	})
}

func server(args []string) {
	fs := flag.NewFlagSet("server", flag.ExitOnError)
	host := fs.String("host", "127.0.0.1", "address to listen on")
	port := fs.Int("port", 0, "port (0: any free port)")
	signCert := fs.String("sign-cert", "", "signing certificate (PEM)")
	signKey := fs.String("sign-key", "", "signing key (PKCS#8 PEM)")
	encCert := fs.String("enc-cert", "", "encryption certificate (PEM)")
	encKey := fs.String("enc-key", "", "encryption key (PKCS#8 PEM)")
	ca := fs.String("ca", "", "CA certificates for client authentication (PEM)")
	auth := fs.String("client-auth", "none", "none, request, require (any cert) or verify")
	suites := fs.String("suites", "", "cipher suites, hex, comma separated (default e013)")
	once := fs.Bool("once", false, "exit after the first connection")
	fs.Parse(args)

	sign, err := gmtls.LoadX509KeyPair(*signCert, *signKey)
	if err != nil {
		fail(fmt.Errorf("signing pair: %v", err))
	}
	enc, err := gmtls.LoadX509KeyPair(*encCert, *encKey)
	if err != nil {
		fail(fmt.Errorf("encryption pair: %v", err))
	}
	// The Certificate message carries every certificate of both pairs in order: keep the
	// leaves only, so that the peer finds the encryption certificate second (GM/T 0024).
	sign.Certificate, enc.Certificate = sign.Certificate[:1], enc.Certificate[:1]
	cfg := &gmtls.Config{
		GMSupport:    gmtls.NewGMSupport(),
		Certificates: []gmtls.Certificate{sign, enc},
		// tjfoc v1.4.1's ECDHE_SM4_CBC_SM3 (0xe011) server side is a stub that panics:
		// the default offers only ECC_SM4_CBC_SM3.
		CipherSuites:           []uint16{gmtls.GMTLS_SM2_WITH_SM4_SM3},
		SessionTicketsDisabled: true,
	}
	if s := parseSuites(*suites); s != nil {
		cfg.CipherSuites = s
	}
	switch *auth {
	case "none":
		cfg.ClientAuth = gmtls.NoClientCert
	case "request":
		cfg.ClientAuth = gmtls.RequestClientCert
	case "require":
		cfg.ClientAuth = gmtls.RequireAnyClientCert
	case "verify":
		cfg.ClientAuth = gmtls.RequireAndVerifyClientCert
	default:
		fail(fmt.Errorf("-client-auth %q", *auth))
	}
	if *ca != "" {
		cfg.ClientCAs = readPool(*ca)
	}
	ln, err := gmtls.Listen("tcp", net.JoinHostPort(*host, strconv.Itoa(*port)), cfg)
	if err != nil {
		fail(err)
	}
	emit(map[string]any{"event": "listening", "port": ln.Addr().(*net.TCPAddr).Port})
	for {
		conn, err := ln.Accept()
		if err != nil {
			fail(err)
		}
		serve(conn.(*gmtls.Conn))
		if *once {
			return
		}
	}
}

func serve(c *gmtls.Conn) {
	defer c.Close()
	if err := c.Handshake(); err != nil {
		emit(map[string]any{"event": "error", "error": "handshake: " + err.Error()})
		return
	}
	handshakeEvent(c)
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if _, werr := c.Write(line); werr != nil {
				emit(map[string]any{"event": "error", "error": "write: " + werr.Error()})
				return
			}
			emit(map[string]any{"event": "echo", "bytes": len(line)})
		}
		if err != nil {
			if err != io.EOF {
				emit(map[string]any{"event": "error", "error": "read: " + err.Error()})
			}
			return
		}
	}
}

func client(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	host := fs.String("host", "127.0.0.1", "server address")
	port := fs.Int("port", 0, "server port")
	ca := fs.String("ca", "", "CA certificates to verify the server with (PEM; none: no verification)")
	cert := fs.String("cert", "", "client signing certificate (PEM), for client authentication")
	key := fs.String("key", "", "client signing key (PKCS#8 PEM)")
	suites := fs.String("suites", "", "cipher suites, hex, comma separated (default e013)")
	serverName := fs.String("server-name", "localhost", "name to verify the server certificate against")
	message := fs.String("message", "hello from gmtls", "the line to send")
	fs.Parse(args)

	cfg := &gmtls.Config{
		GMSupport:    gmtls.NewGMSupport(),
		CipherSuites: []uint16{gmtls.GMTLS_SM2_WITH_SM4_SM3},
		ServerName:   *serverName,
	}
	if s := parseSuites(*suites); s != nil {
		cfg.CipherSuites = s
	}
	if *ca != "" {
		cfg.RootCAs = readPool(*ca)
	} else {
		cfg.InsecureSkipVerify = true
	}
	if *cert != "" {
		pair, err := gmtls.LoadX509KeyPair(*cert, *key)
		if err != nil {
			fail(fmt.Errorf("client pair: %v", err))
		}
		cfg.Certificates = []gmtls.Certificate{pair}
	}
	c, err := gmtls.Dial("tcp", net.JoinHostPort(*host, strconv.Itoa(*port)), cfg)
	if err != nil {
		fail(err)
	}
	defer c.Close()
	if err := c.Handshake(); err != nil {
		fail(fmt.Errorf("handshake: %v", err))
	}
	handshakeEvent(c)
	if _, err := c.Write([]byte(*message + "\n")); err != nil {
		fail(fmt.Errorf("write: %v", err))
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		fail(fmt.Errorf("read: %v", err))
	}
	emit(map[string]any{"event": "reply", "data": strings.TrimSuffix(line, "\n")})
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gmtls-peer version|server|client [options]")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "version":
		emit(map[string]any{"library": "github.com/tjfoc/gmsm/gmtls", "version": libVersion, "runtime": runtime.Version()})
	case "server":
		server(os.Args[2:])
	case "client":
		client(os.Args[2:])
	default:
		fmt.Fprintf(os.Stderr, "unknown mode %q\n", os.Args[1])
		os.Exit(2)
	}
}
