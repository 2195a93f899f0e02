// The TLCP (GM/T 0024, "GMTLS") peer of guomi's interop suite, on tjfoc/gmsm's gmtls.
//
//	gmtls-peer version
//	gmtls-peer server -port N -sign-cert F -sign-key F -enc-cert F -enc-key F
//	                  [-host 127.0.0.1] [-ca F] [-client-auth none|request|require|verify]
//	                  [-suites e013,...] [-once] [-bulk]
//	gmtls-peer client -port N [-host 127.0.0.1] [-ca F] [-cert F -key F]
//	                  [-suites e013,...] [-server-name S] [-message TEXT]
//	                  [-count N [-duration S] [-bulk B]]
//
// For benches/tls.py (loopback benchmark), neither changes the default behaviour:
//   - client -count N: after one untimed exchange, N sequential exchanges (a new
//     connection each: handshake, the line, its echo, close), stopping early after
//     -duration seconds; one "loop" event with the count and the elapsed time.
//   - client -count N -bulk B: one connection; N times: send B bytes (16 KiB writes, the
//     last byte a newline) and read the server's count, then ask for B bytes ("g<B>\n")
//     and read them; one "bulk" event per direction and round.
//   - server -bulk: instead of echoing lines, counts the bytes received up to a newline
//     and answers "<count>\n"; a line "g<B>" is answered with B bytes (16 KiB writes).
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
//	{"event":"loop","count":N,"seconds":S,"cpu_seconds":C,"suite":"0xe013"}  client -count
//	{"event":"bulk","dir":"up"|"down","bytes":B,"seconds":S}         client -bulk
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
	"syscall"
	"time"

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
	bulk := fs.Bool("bulk", false, "bulk mode (benchmark): count bytes up to a newline, serve g<B> requests")
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
		if *bulk {
			serveBulk(conn.(*gmtls.Conn))
		} else {
			serve(conn.(*gmtls.Conn))
		}
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

// The benchmark's record size: writes of 16 KiB fill one record each.
const chunk = 16384

func serveBulk(c *gmtls.Conn) {
	defer c.Close()
	if err := c.Handshake(); err != nil {
		emit(map[string]any{"event": "error", "error": "handshake: " + err.Error()})
		return
	}
	buf := make([]byte, 1<<16)
	count := 0
	var cmd []byte
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if count == 0 && (len(cmd) > 0 || buf[0] == 'g') {
				cmd = append(cmd, buf[:n]...)
				if cmd[len(cmd)-1] == '\n' {
					want, perr := strconv.Atoi(strings.TrimSpace(string(cmd[1:])))
					cmd = nil
					if perr != nil || want < 1 {
						emit(map[string]any{"event": "error", "error": "bad request"})
						return
					}
					if werr := sendBytes(c, want); werr != nil {
						emit(map[string]any{"event": "error", "error": "write: " + werr.Error()})
						return
					}
				}
			} else {
				count += n
				if buf[n-1] == '\n' {
					if _, werr := c.Write([]byte(strconv.Itoa(count) + "\n")); werr != nil {
						emit(map[string]any{"event": "error", "error": "write: " + werr.Error()})
						return
					}
					count = 0
				}
			}
		}
		if err != nil {
			if err != io.EOF {
				emit(map[string]any{"event": "error", "error": "read: " + err.Error()})
			}
			return
		}
	}
}

// sendBytes writes n bytes ('x', the last a newline) in 16 KiB writes.
func sendBytes(c *gmtls.Conn, n int) error {
	block := make([]byte, chunk)
	for i := range block {
		block[i] = 'x'
	}
	for left := n; left > 0; {
		m := min(left, chunk)
		out := block[:m]
		if left == m {
			out = append(append([]byte{}, block[:m-1]...), '\n')
		}
		if _, err := c.Write(out); err != nil {
			return err
		}
		left -= m
	}
	return nil
}

// readUntilNewline reads until a read ends with a newline; returns the byte count and
// the last bytes read (up to 32, across reads: gmtls splits its own writes 1/n-1).
func readUntilNewline(c *gmtls.Conn, buf []byte) (int, []byte, error) {
	total := 0
	var tail []byte
	for {
		n, err := c.Read(buf)
		total += n
		tail = append(tail, buf[:n]...)
		if len(tail) > 32 {
			tail = tail[len(tail)-32:]
		}
		if n > 0 && buf[n-1] == '\n' {
			return total, tail, nil
		}
		if err != nil {
			return total, nil, err
		}
	}
}

// exchange is one connection of the -count loop: handshake, the line, its echo, close.
func exchange(addr string, cfg *gmtls.Config, msg []byte, buf []byte) (uint16, error) {
	c, err := gmtls.Dial("tcp", addr, cfg)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	if err := c.Handshake(); err != nil {
		return 0, fmt.Errorf("handshake: %v", err)
	}
	if _, err := c.Write(msg); err != nil {
		return 0, fmt.Errorf("write: %v", err)
	}
	var got []byte
	for len(got) < len(msg) {
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			break
		}
	}
	if string(got) != string(msg) {
		return 0, fmt.Errorf("echo %q, sent %q", got, msg)
	}
	return c.ConnectionState().CipherSuite, nil
}

func loop(addr string, cfg *gmtls.Config, message string, count int, duration float64) {
	msg := []byte(message + "\n")
	buf := make([]byte, 1<<16)
	suite, err := exchange(addr, cfg, msg, buf) // untimed: warms up
	if err != nil {
		fail(err)
	}
	n := 0
	cpu0 := cpuSeconds()
	start := time.Now()
	for n < count && (duration <= 0 || time.Since(start).Seconds() < duration) {
		if suite, err = exchange(addr, cfg, msg, buf); err != nil {
			fail(err)
		}
		n++
	}
	elapsed := time.Since(start).Seconds()
	emit(map[string]any{"event": "loop", "count": n, "seconds": elapsed, "cpu_seconds": cpuSeconds() - cpu0,
		"suite": fmt.Sprintf("0x%04x", suite)})
}

// cpuSeconds is the process's user + system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func bulkRounds(addr string, cfg *gmtls.Config, rounds, size int) {
	c, err := gmtls.Dial("tcp", addr, cfg)
	if err != nil {
		fail(err)
	}
	defer c.Close()
	if err := c.Handshake(); err != nil {
		fail(fmt.Errorf("handshake: %v", err))
	}
	handshakeEvent(c)
	buf := make([]byte, 1<<16)
	for i := 0; i < rounds; i++ {
		start := time.Now()
		if err := sendBytes(c, size); err != nil {
			fail(fmt.Errorf("write: %v", err))
		}
		_, last, err := readUntilNewline(c, buf)
		if err != nil {
			fail(fmt.Errorf("read: %v", err))
		}
		if string(last) != strconv.Itoa(size)+"\n" && !strings.HasSuffix(string(last), "\n"+strconv.Itoa(size)+"\n") {
			fail(fmt.Errorf("the server counted %q bytes, sent %d", last, size))
		}
		emit(map[string]any{"event": "bulk", "dir": "up", "bytes": size, "seconds": time.Since(start).Seconds()})
		start = time.Now()
		if _, err := c.Write([]byte("g" + strconv.Itoa(size) + "\n")); err != nil {
			fail(fmt.Errorf("write: %v", err))
		}
		got, _, err := readUntilNewline(c, buf)
		if err != nil {
			fail(fmt.Errorf("read: %v", err))
		}
		if got != size {
			fail(fmt.Errorf("received %d bytes, asked for %d", got, size))
		}
		emit(map[string]any{"event": "bulk", "dir": "down", "bytes": size, "seconds": time.Since(start).Seconds()})
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
	count := fs.Int("count", 0, "benchmark: N sequential exchanges, each a new connection (0: one, the default)")
	duration := fs.Float64("duration", 0, "with -count: stop after this many seconds (0: no limit)")
	bulk := fs.Int("bulk", 0, "with -count: one connection, N rounds of B bytes up and B bytes down")
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
	addr := net.JoinHostPort(*host, strconv.Itoa(*port))
	if *count > 0 && *bulk > 0 {
		bulkRounds(addr, cfg, *count, *bulk)
		return
	}
	if *count > 0 {
		loop(addr, cfg, *message, *count, *duration)
		return
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
