// The gmsm peer of guomi's interop suite: one JSON request per line on stdin, one JSON
// reply per line on stdout. Byte fields are hex strings. See tests/interop/README.md.
package main

import (
	"bufio"
	"bytes"
	"crypto"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/hmac"
	"crypto/rand"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/emmansun/gmsm/cbcmac"
	gmcipher "github.com/emmansun/gmsm/cipher"
	"github.com/emmansun/gmsm/ecdh"
	"github.com/emmansun/gmsm/padding"
	"github.com/emmansun/gmsm/pkcs"
	"github.com/emmansun/gmsm/pkcs7"
	"github.com/emmansun/gmsm/pkcs8"
	"github.com/emmansun/gmsm/sm2"
	"github.com/emmansun/gmsm/sm3"
	"github.com/emmansun/gmsm/sm4"
	"github.com/emmansun/gmsm/sm9"
	"github.com/emmansun/gmsm/smx509"
	"github.com/emmansun/gmsm/zuc"
)

type req map[string]any

func (r req) str(k string) string {
	v, ok := r[k]
	if !ok || v == nil {
		return ""
	}
	s, _ := v.(string)
	return s
}

func (r req) has(k string) bool { v, ok := r[k]; return ok && v != nil }

func (r req) hex(k string) []byte {
	b, err := hex.DecodeString(r.str(k))
	if err != nil {
		panic(fmt.Errorf("field %s: %v", k, err))
	}
	return b
}

// hexOr returns the field's bytes, or nil when the field is absent.
func (r req) hexOr(k string) []byte {
	if !r.has(k) {
		return nil
	}
	return r.hex(k)
}

func (r req) int(k string, def int) int {
	v, ok := r[k]
	if !ok || v == nil {
		return def
	}
	return int(v.(float64))
}

func (r req) bool(k string) bool { v, _ := r[k].(bool); return v }

func (r req) list(k string) [][]byte {
	v, _ := r[k].([]any)
	out := make([][]byte, 0, len(v))
	for _, x := range v {
		b, err := hex.DecodeString(x.(string))
		must(err)
		out = append(out, b)
	}
	return out
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func h(b []byte) string { return hex.EncodeToString(b) }

type res map[string]any

var (
	sessions   = map[int]any{}
	sessionsMu sync.Mutex
	nextHandle = 1
)

func store(v any) int {
	sessionsMu.Lock()
	defer sessionsMu.Unlock()
	n := nextHandle
	nextHandle++
	sessions[n] = v
	return n
}

func take(n int) any {
	sessionsMu.Lock()
	defer sessionsMu.Unlock()
	v := sessions[n]
	delete(sessions, n)
	return v
}

func gmsmVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/emmansun/gmsm" {
				return d.Version
			}
		}
	}
	return "unknown"
}

func sm2Priv(r req, k string) *sm2.PrivateKey {
	key, err := sm2.NewPrivateKey(r.hex(k))
	must(err)
	return key
}

func sm2Pub(r req, k string) *ecdsa.PublicKey {
	pub, err := sm2.NewPublicKey(r.hex(k))
	must(err)
	return pub
}

func pubBytes(p *ecdsa.PublicKey) []byte {
	b := make([]byte, 65)
	b[0] = 4
	p.X.FillBytes(b[1:33])
	p.Y.FillBytes(b[33:])
	return b
}

// uid: absent = the default ID (gmsm's nil); present = these bytes (gmsm turns an
// empty one into the default too).
func uid(r req) []byte { return r.hexOr("uid") }

func sm4Block(key []byte) cipher.Block {
	b, err := sm4.NewCipher(key)
	must(err)
	return b
}

func opSM4(r req) res {
	mode, enc := r.str("mode"), r.bool("encrypt")
	key, data := r.hex("key"), r.hex("data")
	pad := padding.NewPKCS7Padding(sm4.BlockSize)
	out := []byte{}
	switch mode {
	case "ecb", "cbc":
		b := sm4Block(key)
		in := data
		if enc && r.str("padding") != "none" {
			in = pad.Pad(data)
		}
		out = make([]byte, len(in))
		var bm cipher.BlockMode
		switch {
		case mode == "ecb" && enc:
			bm = gmcipher.NewECBEncrypter(b)
		case mode == "ecb":
			bm = gmcipher.NewECBDecrypter(b)
		case enc:
			bm = cipher.NewCBCEncrypter(b, r.hex("iv"))
		default:
			bm = cipher.NewCBCDecrypter(b, r.hex("iv"))
		}
		bm.CryptBlocks(out, in)
		if !enc && r.str("padding") != "none" {
			var err error
			out, err = pad.Unpad(out)
			must(err)
		}
	case "ctr", "ofb", "cfb":
		b := sm4Block(key)
		var s cipher.Stream
		switch {
		case mode == "ctr":
			s = cipher.NewCTR(b, r.hex("iv"))
		case mode == "ofb":
			s = cipher.NewOFB(b, r.hex("iv"))
		case enc:
			s = cipher.NewCFBEncrypter(b, r.hex("iv"))
		default:
			s = cipher.NewCFBDecrypter(b, r.hex("iv"))
		}
		out = make([]byte, len(data))
		s.XORKeyStream(out, data)
	case "gcm", "ccm":
		b := sm4Block(key)
		nonce := r.hex("nonce")
		var a cipher.AEAD
		var err error
		if mode == "gcm" {
			a, err = cipher.NewGCMWithNonceSize(b, len(nonce))
		} else {
			a, err = gmcipher.NewCCMWithNonceAndTagSize(b, len(nonce), r.int("tag_len", 16))
		}
		must(err)
		if enc {
			out = a.Seal(nil, nonce, data, r.hexOr("aad"))
		} else {
			out, err = a.Open(nil, nonce, data, r.hexOr("aad"))
			must(err)
		}
	case "xts":
		var bm cipher.BlockMode
		var err error
		k1, k2, tweak := key[:16], key[16:], r.hex("tweak")
		gb := r.str("standard") != "ieee"
		switch {
		case gb && enc:
			bm, err = gmcipher.NewGBXTSEncrypter(sm4.NewCipher, k1, k2, tweak)
		case gb:
			bm, err = gmcipher.NewGBXTSDecrypter(sm4.NewCipher, k1, k2, tweak)
		case enc:
			bm, err = gmcipher.NewXTSEncrypter(sm4.NewCipher, k1, k2, tweak)
		default:
			bm, err = gmcipher.NewXTSDecrypter(sm4.NewCipher, k1, k2, tweak)
		}
		must(err)
		out = make([]byte, len(data))
		bm.CryptBlocks(out, data)
	default:
		panic("unknown mode " + mode)
	}
	return res{"data": h(out)}
}

func opSM2Encrypt(r req) res {
	pub := sm2Pub(r, "pub")
	data := r.hex("data")
	var ct []byte
	var err error
	format := r.str("format")
	if format == "der" {
		ct, err = sm2.EncryptASN1(rand.Reader, pub, data)
	} else {
		order := sm2.C1C3C2
		if format == "c1c2c3" {
			order = sm2.C1C2C3
		}
		point := sm2.MarshalUncompressed
		switch r.str("point") {
		case "compressed":
			point = sm2.MarshalCompressed
		case "hybrid":
			point = sm2.MarshalHybrid
		}
		ct, err = sm2.Encrypt(rand.Reader, pub, data, sm2.NewPlainEncrypterOpts(point, order))
	}
	must(err)
	return res{"ct": h(ct)}
}

func opSM2Decrypt(r req) res {
	priv := sm2Priv(r, "priv")
	ct := r.hex("ct")
	var pt []byte
	var err error
	if r.str("format") == "c1c2c3" {
		pt, err = priv.Decrypt(nil, ct, sm2.NewPlainDecrypterOpts(sm2.C1C2C3))
	} else {
		pt, err = sm2.Decrypt(priv, ct)
	}
	must(err)
	return res{"data": h(pt)}
}

func pbesOpts(r req) *pkcs.PBES2Opts {
	c := pkcs.Cipher(pkcs.SM4CBC)
	switch r.str("cipher") {
	case "aes-256-cbc":
		c = pkcs.AES256CBC
	case "aes-128-cbc":
		c = pkcs.AES128CBC
	case "sm4-gcm":
		c = pkcs.SM4GCM
	}
	iters := r.int("iterations", 2048)
	var kdf pkcs.PBKDF2Opts
	switch r.str("prf") {
	case "hmac-sha256":
		kdf = pkcs.NewPBKDF2Opts(pkcs.SHA256, 16, iters)
	case "hmac-sm3":
		// PKCS#5 PBKDF2 OID with the hmacWithSM3 PRF (1.2.156.10197.1.401.2)
		kdf = pkcs.NewPBKDF2Opts(pkcs.SM3, 16, iters)
	case "sm-pbkdf":
		// GM/T 0091's own KDF OID 1.2.156.10197.6.4.1.5.1 (PBKDF2 with HMAC-SM3 implied)
		kdf = pkcs.NewSMPBKDF2Opts(16, iters)
	default:
		panic("unknown prf " + r.str("prf"))
	}
	return &pkcs.PBES2Opts{Cipher: c, KDFOpts: kdf}
}

func opSM2KeyExport(r req) res {
	priv := sm2Priv(r, "priv")
	var der []byte
	var err error
	switch r.str("format") {
	case "pkcs8":
		der, err = smx509.MarshalPKCS8PrivateKey(priv)
	case "sec1":
		der, err = smx509.MarshalSM2PrivateKey(priv)
	case "spki":
		der, err = smx509.MarshalPKIXPublicKey(&priv.PublicKey)
	case "pkcs8_encrypted":
		der, err = pkcs8.MarshalPrivateKey(priv, []byte(r.str("password")), pbesOpts(r))
	default:
		err = errors.New("unknown format")
	}
	must(err)
	return res{"der": h(der)}
}

func opSM2KeyImport(r req) res {
	der := r.hex("der")
	switch r.str("format") {
	case "spki":
		p, err := smx509.ParsePKIXPublicKey(der)
		must(err)
		return res{"pub": h(pubBytes(p.(*ecdsa.PublicKey)))}
	case "sec1":
		k, err := smx509.ParseSM2PrivateKey(der)
		must(err)
		return res{"priv": h(k.D.FillBytes(make([]byte, 32))), "pub": h(pubBytes(&k.PublicKey))}
	case "pkcs8_encrypted":
		k, err := pkcs8.ParsePKCS8PrivateKeySM2(der, []byte(r.str("password")))
		must(err)
		return res{"priv": h(k.D.FillBytes(make([]byte, 32))), "pub": h(pubBytes(&k.PublicKey))}
	default:
		k, err := smx509.ParsePKCS8PrivateKey(der)
		must(err)
		p := k.(*sm2.PrivateKey)
		return res{"priv": h(p.D.FillBytes(make([]byte, 32))), "pub": h(pubBytes(&p.PublicKey))}
	}
}

// SM2 key exchange (GB/T 32918.3) without confirmation, through gmsm's ecdh package
// (v0.44.0 has no confirmation step).
func opSM2KexEphemeral(r req) res {
	e, err := ecdh.P256().GenerateKey(rand.Reader)
	must(err)
	return res{"handle": store(e), "R": h(e.PublicKey().Bytes())}
}

func opSM2KexFinish(r req) res {
	e := take(r.int("handle", 0)).(*ecdh.PrivateKey)
	static, err := ecdh.P256().NewPrivateKey(r.hex("priv"))
	must(err)
	peer, err := ecdh.P256().NewPublicKey(r.hex("peer_pub"))
	must(err)
	peerR, err := ecdh.P256().NewPublicKey(r.hex("peer_R"))
	must(err)
	uv, err := static.SM2MQV(e, peer, peerR)
	must(err)
	id, peerID := r.hexOr("uid"), r.hexOr("peer_uid")
	if id == nil {
		id = []byte("1234567812345678")
	}
	if peerID == nil {
		peerID = []byte("1234567812345678")
	}
	key, err := uv.SM2SharedKey(r.bool("responder"), r.int("key_length", 16), static.PublicKey(), peer, id, peerID)
	must(err)
	return res{"key": h(key)}
}

func opZUC(r req) res {
	switch r.str("op") {
	case "zuc_eea3":
		s, err := zuc.NewEEACipher(r.hex("key"), uint32(r.int("count", 0)), uint32(r.int("bearer", 0)), uint32(r.int("direction", 0)))
		must(err)
		data := r.hex("data")
		out := make([]byte, len(data))
		s.XORKeyStream(out, data)
		return res{"data": h(out)}
	case "zuc_eia3":
		m, err := zuc.NewEIAHash(r.hex("key"), uint32(r.int("count", 0)), uint32(r.int("bearer", 0)), uint32(r.int("direction", 0)))
		must(err)
		data := r.hex("data")
		bits := r.int("length_bits", 8*len(data))
		m.Write(data[:bits/8])
		var tag []byte
		if bits%8 != 0 {
			tag = m.Finish(data[bits/8:bits/8+1], bits%8)
		} else {
			tag = m.Sum(nil)
		}
		return res{"mac": h(tag)}
	case "zuc256_keystream":
		s, err := zuc.NewCipher(r.hex("key"), r.hex("iv"))
		must(err)
		out := make([]byte, 4*r.int("words", 1))
		s.XORKeyStream(out, out)
		return res{"keystream": h(out)}
	case "zuc256_mac":
		m, err := zuc.NewHash256(r.hex("key"), r.hex("iv"), r.int("tag_bits", 32)/8)
		must(err)
		m.Write(r.hex("data"))
		return res{"mac": h(m.Sum(nil))}
	case "zuc128_keystream":
		s, err := zuc.NewCipher(r.hex("key"), r.hex("iv"))
		must(err)
		out := make([]byte, 4*r.int("words", 1))
		s.XORKeyStream(out, out)
		return res{"keystream": h(out)}
	}
	panic("unknown zuc op")
}

func sm9Hid(r req, def int) byte { return byte(r.int("hid", def)) }

func sm9EncOpts(name string) sm9.EncrypterOpts {
	switch name {
	case "", "kdf":
		return sm9.DefaultEncrypterOpts
	case "sm4-cbc", "sm4":
		return sm9.SM4CBCEncrypterOpts
	case "sm4-ecb":
		return sm9.SM4ECBEncrypterOpts
	case "sm4-cfb":
		return sm9.SM4CFBEncrypterOpts
	case "sm4-ofb":
		return sm9.SM4OFBEncrypterOpts
	}
	panic("unknown sm9 cipher " + name)
}

func sm9SignMaster(r req) *sm9.SignMasterPrivateKey {
	var b []byte
	b = append([]byte{0x02, 0x21, 0x00}, r.hex("master")...)
	if r.hex("master")[0] < 0x80 {
		b = append([]byte{0x02, 0x20}, r.hex("master")...)
	}
	m, err := sm9.UnmarshalSignMasterPrivateKeyASN1(b)
	must(err)
	return m
}

func sm9EncMaster(r req) *sm9.EncryptMasterPrivateKey {
	var b []byte
	b = append([]byte{0x02, 0x21, 0x00}, r.hex("master")...)
	if r.hex("master")[0] < 0x80 {
		b = append([]byte{0x02, 0x20}, r.hex("master")...)
	}
	m, err := sm9.UnmarshalEncryptMasterPrivateKeyASN1(b)
	must(err)
	return m
}

func sm9SignPub(r req) *sm9.SignMasterPublicKey {
	p, err := sm9.UnmarshalSignMasterPublicKeyRaw(r.hex("master_pub"))
	must(err)
	return p
}

func sm9EncPub(r req) *sm9.EncryptMasterPublicKey {
	p, err := sm9.UnmarshalEncryptMasterPublicKeyRaw(r.hex("master_pub"))
	must(err)
	return p
}

func sm9EncUser(r req) *sm9.EncryptPrivateKey {
	k, err := sm9.UnmarshalEncryptPrivateKeyRaw(r.hex("user_key"))
	must(err)
	k.SetMasterPublic(sm9EncPub(r))
	return k
}

func opSM9(r req) res {
	switch r.str("op") {
	case "sm9_sign_master_generate":
		m, err := sm9.GenerateSignMasterKey(rand.Reader)
		must(err)
		der, err := m.MarshalASN1()
		must(err)
		pubDer, err := m.PublicKey().MarshalASN1()
		must(err)
		return res{"master": h(m.Bytes()), "master_pub": h(m.PublicKey().Bytes()), "master_der": h(der), "master_pub_der": h(pubDer)}
	case "sm9_enc_master_generate":
		m, err := sm9.GenerateEncryptMasterKey(rand.Reader)
		must(err)
		der, err := m.MarshalASN1()
		must(err)
		pubDer, err := m.PublicKey().MarshalASN1()
		must(err)
		return res{"master": h(m.Bytes()), "master_pub": h(m.PublicKey().Bytes()), "master_der": h(der), "master_pub_der": h(pubDer)}
	case "sm9_sign_user_key":
		m := sm9SignMaster(r)
		k, err := m.GenerateUserKey(r.hex("uid"), sm9Hid(r, 1))
		must(err)
		der, err := k.MarshalASN1()
		must(err)
		return res{"user_key": h(k.Bytes()), "user_key_der": h(der), "master_pub": h(m.PublicKey().Bytes())}
	case "sm9_enc_user_key":
		m := sm9EncMaster(r)
		k, err := m.GenerateUserKey(r.hex("uid"), sm9Hid(r, 3))
		must(err)
		der, err := k.MarshalASN1()
		must(err)
		return res{"user_key": h(k.Bytes()), "user_key_der": h(der), "master_pub": h(m.PublicKey().Bytes())}
	case "sm9_sign":
		k, err := sm9.UnmarshalSignPrivateKeyRaw(r.hex("user_key"))
		must(err)
		k.SetMasterPublic(sm9SignPub(r))
		hh, s, err := sm9.Sign(rand.Reader, k, r.hex("data"))
		must(err)
		der, err := sm9.SignASN1(rand.Reader, k, r.hex("data"))
		must(err)
		return res{"h": h(hh.FillBytes(make([]byte, 32))), "s": h(s), "der": h(der)}
	case "sm9_verify":
		pub := sm9SignPub(r)
		if r.has("der") {
			return res{"valid": sm9.VerifyASN1(pub, r.hex("uid"), sm9Hid(r, 1), r.hex("data"), r.hex("der"))}
		}
		hh := new(big.Int).SetBytes(r.hex("h"))
		return res{"valid": sm9.Verify(pub, r.hex("uid"), sm9Hid(r, 1), r.hex("data"), hh, r.hex("s"))}
	case "sm9_encrypt":
		pub := sm9EncPub(r)
		var ct []byte
		var err error
		if r.str("format") == "der" {
			ct, err = sm9.EncryptASN1(rand.Reader, pub, r.hex("uid"), sm9Hid(r, 3), r.hex("data"), sm9EncOpts(r.str("cipher")))
		} else {
			ct, err = sm9.Encrypt(rand.Reader, pub, r.hex("uid"), sm9Hid(r, 3), r.hex("data"), sm9EncOpts(r.str("cipher")))
		}
		must(err)
		return res{"ct": h(ct)}
	case "sm9_decrypt":
		k := sm9EncUser(r)
		var pt []byte
		var err error
		if r.str("format") == "der" {
			pt, err = sm9.DecryptASN1(k, r.hex("uid"), r.hex("ct"))
		} else {
			pt, err = sm9.Decrypt(k, r.hex("uid"), r.hex("ct"), sm9EncOpts(r.str("cipher")))
		}
		must(err)
		return res{"data": h(pt)}
	case "sm9_kem_encapsulate":
		key, c, err := sm9.WrapKey(rand.Reader, sm9EncPub(r), r.hex("uid"), sm9Hid(r, 3), r.int("key_length", 16))
		must(err)
		return res{"key": h(key), "c": h(c)}
	case "sm9_kem_decapsulate":
		key, err := sm9.UnwrapKey(sm9EncUser(r), r.hex("uid"), r.hex("c"), r.int("key_length", 16))
		must(err)
		return res{"key": h(key)}
	case "sm9_kex_new":
		k := sm9EncUser(r)
		ke := k.NewKeyExchange(r.hex("uid"), r.hex("peer_uid"), r.int("key_length", 16), r.bool("confirm"))
		return res{"handle": store(ke)}
	}
	panic("unknown sm9 op")
}

func peek(r req) any {
	sessionsMu.Lock()
	defer sessionsMu.Unlock()
	return sessions[r.int("handle", 0)]
}

func parseCert(b []byte) *smx509.Certificate {
	if bytes.HasPrefix(b, []byte("-----")) {
		c, err := smx509.ParseCertificatePEM(b)
		must(err)
		return c
	}
	c, err := smx509.ParseCertificate(b)
	must(err)
	return c
}

func errText(err error) any {
	if err == nil {
		return nil
	}
	return err.Error()
}

func opX509(r req) res {
	switch r.str("op") {
	case "x509_cert_verify":
		c, issuer := parseCert(r.hex("cert")), parseCert(r.hex("issuer"))
		err := c.CheckSignatureFrom(issuer)
		return res{"valid": err == nil, "error": errText(err), "subject": c.Subject.String()}
	case "x509_chain_verify":
		leaf := parseCert(r.hex("cert"))
		roots, inter := smx509.NewCertPool(), smx509.NewCertPool()
		for _, c := range r.list("roots") {
			roots.AddCert(parseCert(c))
		}
		for _, c := range r.list("intermediates") {
			inter.AddCert(parseCert(c))
		}
		_, err := leaf.Verify(smx509.VerifyOptions{Roots: roots, Intermediates: inter, KeyUsages: []smx509.ExtKeyUsage{smx509.ExtKeyUsageAny}})
		return res{"valid": err == nil, "error": errText(err)}
	case "x509_csr_verify":
		csr, err := smx509.ParseCertificateRequest(r.hex("csr"))
		must(err)
		err = csr.CheckSignature()
		return res{"valid": err == nil, "error": errText(err), "subject": csr.Subject.String(), "pub": h(pubBytes(csr.PublicKey.(*ecdsa.PublicKey)))}
	case "x509_csr_create":
		priv := sm2Priv(r, "priv")
		der, err := smx509.CreateCertificateRequest(rand.Reader, &smx509.CertificateRequest{Subject: pkix.Name{CommonName: r.str("subject_cn")}}, priv)
		must(err)
		return res{"csr": h(der)}
	case "x509_cert_create":
		issuerKey := sm2Priv(r, "issuer_priv")
		pub := sm2Pub(r, "pub")
		now := time.Now().Add(-time.Hour)
		tmpl := &smx509.Certificate{SerialNumber: big.NewInt(int64(r.int("serial", 1))), Subject: pkix.Name{CommonName: r.str("subject_cn")},
			NotBefore: now, NotAfter: now.Add(30 * 24 * time.Hour), BasicConstraintsValid: true, IsCA: r.bool("ca")}
		if r.bool("ca") {
			tmpl.KeyUsage = smx509.KeyUsageCertSign | smx509.KeyUsageCRLSign | smx509.KeyUsageDigitalSignature
		} else {
			tmpl.KeyUsage = smx509.KeyUsageDigitalSignature
		}
		parent := tmpl
		if r.has("issuer_cert") {
			parent = parseCert(r.hex("issuer_cert"))
		}
		der, err := smx509.CreateCertificate(rand.Reader, tmpl, parent, pub, issuerKey)
		must(err)
		return res{"cert": h(der)}
	case "x509_crl_create":
		issuer := parseCert(r.hex("issuer_cert"))
		now := time.Now().Add(-time.Hour)
		tmpl := &smx509.RevocationList{Number: big.NewInt(int64(r.int("number", 1))), ThisUpdate: now, NextUpdate: now.Add(7 * 24 * time.Hour)}
		for _, s := range r.list("serials") {
			tmpl.RevokedCertificateEntries = append(tmpl.RevokedCertificateEntries, smx509.RevocationListEntry{SerialNumber: new(big.Int).SetBytes(s), RevocationTime: now})
		}
		der, err := smx509.CreateRevocationList(rand.Reader, tmpl, issuer, sm2Priv(r, "issuer_priv"))
		must(err)
		return res{"crl": h(der)}
	case "x509_crl_verify":
		crl, err := smx509.ParseRevocationList(r.hex("crl"))
		must(err)
		err = crl.CheckSignatureFrom(parseCert(r.hex("issuer")))
		serials := []string{}
		for _, e := range crl.RevokedCertificateEntries {
			serials = append(serials, h(e.SerialNumber.Bytes()))
		}
		return res{"valid": err == nil, "error": errText(err), "serials": serials}
	}
	panic("unknown x509 op")
}

func pkcsCipher(name string) pkcs.Cipher {
	switch name {
	case "", "sm4-cbc":
		return pkcs.SM4CBC
	case "sm4-gcm":
		return pkcs.SM4GCM
	case "sm4-ecb":
		return pkcs.SM4ECB
	case "sm4":
		return pkcs.SM4
	case "aes-128-cbc":
		return pkcs.AES128CBC
	}
	panic("unknown cipher " + name)
}

func opPKCS7(r req) res {
	switch r.str("op") {
	case "pkcs7_sign":
		cert := parseCert(r.hex("cert"))
		var sd *pkcs7.SignedData
		var err error
		if r.str("flavour") == "std" {
			// PKCS #7 content-type OIDs, SM3 digest (NewSignedData's default SHA-1 does not verify with SM2)
			sd, err = pkcs7.NewSignedData(r.hex("data"))
			sd.SetDigestAlgorithm(pkcs7.OIDDigestAlgorithmSM3)
		} else {
			sd, err = pkcs7.NewSMSignedData(r.hex("data"))
		}
		must(err)
		must(sd.AddSigner(cert, sm2Priv(r, "priv"), pkcs7.SignerInfoConfig{}))
		if r.bool("detached") {
			sd.Detach()
		}
		der, err := sd.Finish()
		must(err)
		return res{"der": h(der)}
	case "pkcs7_verify":
		p7, err := pkcs7.Parse(r.hex("der"))
		must(err)
		if r.has("data") {
			p7.Content = r.hex("data")
		}
		if len(r.list("roots")) > 0 {
			pool := smx509.NewCertPool()
			for _, c := range r.list("roots") {
				pool.AddCert(parseCert(c))
			}
			err = p7.VerifyWithChain(pool)
		} else {
			err = p7.Verify()
		}
		return res{"valid": err == nil, "error": errText(err), "content": h(p7.Content)}
	case "pkcs7_envelope":
		certs := []*smx509.Certificate{}
		for _, c := range r.list("certs") {
			certs = append(certs, parseCert(c))
		}
		var der []byte
		var err error
		switch r.str("flavour") {
		case "std":
			der, err = pkcs7.Encrypt(pkcsCipher(r.str("cipher")), r.hex("data"), certs)
		case "cfca":
			der, err = pkcs7.EncryptCFCA(pkcsCipher(r.str("cipher")), r.hex("data"), certs)
		case "cfca_asn1":
			der, err = pkcs7.EnvelopeMessageCFCA(pkcsCipher(r.str("cipher")), r.hex("data"), certs)
		default:
			der, err = pkcs7.EncryptSM(pkcsCipher(r.str("cipher")), r.hex("data"), certs)
		}
		must(err)
		return res{"der": h(der)}
	case "pkcs7_decrypt":
		p7, err := pkcs7.Parse(r.hex("der"))
		must(err)
		var pt []byte
		if r.str("flavour") == "cfca" {
			pt, err = p7.DecryptCFCA(parseCert(r.hex("cert")), sm2Priv(r, "priv"))
		} else {
			pt, err = p7.Decrypt(parseCert(r.hex("cert")), sm2Priv(r, "priv"))
		}
		must(err)
		return res{"data": h(pt)}
	}
	panic("unknown pkcs7 op")
}

func opCBCMAC(r req) res {
	key, size := r.hex("key"), r.int("size", 16)
	var m interface{ MAC([]byte) []byte }
	switch r.str("variant") {
	case "cbcmac":
		m = cbcmac.NewCBCMAC(sm4Block(key), size)
	case "emac":
		m = cbcmac.NewEMAC(sm4.NewCipher, key, r.hex("key2"), size)
	case "ansi_retail":
		m = cbcmac.NewANSIRetailMAC(sm4.NewCipher, key, r.hex("key2"), size)
	case "macdes":
		m = cbcmac.NewMACDES(sm4.NewCipher, key, r.hex("key2"), size)
	case "cmac":
		m = cbcmac.NewCMAC(sm4Block(key), size)
	case "lmac":
		m = cbcmac.NewLMAC(sm4.NewCipher, key, size)
	case "trcbcmac":
		m = cbcmac.NewTRCBCMAC(sm4Block(key), size)
	case "cbcrmac":
		m = cbcmac.NewCBCRMAC(sm4Block(key), size)
	default:
		panic("unknown cbcmac variant")
	}
	return res{"mac": h(m.MAC(r.hex("data")))}
}

func handle(r req) (out res) {
	op := r.str("op")
	switch op {
	case "version":
		return res{"library": "github.com/emmansun/gmsm", "version": gmsmVersion(), "runtime": runtime.Version()}
	case "sm3":
		d := sm3.Sum(r.hex("data"))
		return res{"digest": h(d[:])}
	case "hmac_sm3":
		m := hmac.New(sm3.New, r.hex("key"))
		m.Write(r.hex("data"))
		return res{"mac": h(m.Sum(nil))}
	case "sm4":
		return opSM4(r)
	case "sm2_generate":
		k, err := sm2.GenerateKey(rand.Reader)
		must(err)
		return res{"priv": h(k.D.FillBytes(make([]byte, 32))), "pub": h(pubBytes(&k.PublicKey))}
	case "sm2_sign":
		priv := sm2Priv(r, "priv")
		data := r.hex("data")
		if len(data) == 0 {
			// priv.Sign refuses an empty message ("hash cannot be empty"): sign e = SM3(Z || M).
			e, err := sm2.CalculateSM2Hash(&priv.PublicKey, data, uid(r))
			must(err)
			sig, err := sm2.SignASN1(rand.Reader, priv, e, nil)
			must(err)
			return res{"sig": h(sig), "note": "empty message signed through CalculateSM2Hash + SignASN1"}
		}
		sig, err := priv.Sign(rand.Reader, data, sm2.NewSM2SignerOption(true, uid(r)))
		must(err)
		return res{"sig": h(sig)}
	case "sm2_verify":
		return res{"valid": sm2.VerifyASN1WithSM2(sm2Pub(r, "pub"), uid(r), r.hex("data"), r.hex("sig"))}
	case "sm2_encrypt":
		return opSM2Encrypt(r)
	case "sm2_decrypt":
		return opSM2Decrypt(r)
	case "sm2_key_export":
		return opSM2KeyExport(r)
	case "sm2_key_import":
		return opSM2KeyImport(r)
	case "sm2_kex_ephemeral":
		return opSM2KexEphemeral(r)
	case "sm2_kex_finish":
		return opSM2KexFinish(r)
	case "zuc_eea3", "zuc_eia3", "zuc256_keystream", "zuc256_mac", "zuc128_keystream":
		return opZUC(r)
	case "sm9_kex_init":
		ke := peek(r).(sm9KeyExchange)
		R, err := ke.InitKeyExchange(rand.Reader, sm9Hid(r, 2))
		must(err)
		return res{"R": h(R)}
	case "sm9_kex_respond":
		ke := peek(r).(sm9KeyExchange)
		R, S, err := ke.RespondKeyExchange(rand.Reader, sm9Hid(r, 2), r.hex("peer_R"))
		must(err)
		return res{"R": h(R), "S": h(S)}
	case "sm9_kex_confirm_responder":
		ke := take(r.int("handle", 0)).(sm9KeyExchange)
		key, S, err := ke.ConfirmResponder(r.hex("peer_R"), r.hexOr("peer_S"))
		must(err)
		return res{"key": h(key), "S": h(S)}
	case "sm9_kex_confirm_initiator":
		ke := take(r.int("handle", 0)).(sm9KeyExchange)
		key, err := ke.ConfirmInitiator(r.hexOr("peer_S"))
		must(err)
		return res{"key": h(key)}
	case "cbcmac":
		return opCBCMAC(r)
	}
	switch {
	case len(op) > 4 && op[:4] == "sm9_":
		return opSM9(r)
	case len(op) > 5 && op[:5] == "x509_":
		return opX509(r)
	case len(op) > 6 && op[:6] == "pkcs7_":
		return opPKCS7(r)
	}
	panic("unknown op " + op)
}

type sm9KeyExchange interface {
	InitKeyExchange(rand io.Reader, hid byte) ([]byte, error)
	RespondKeyExchange(rand io.Reader, hid byte, peerData []byte) ([]byte, []byte, error)
	ConfirmResponder(rB, sB []byte) ([]byte, []byte, error)
	ConfirmInitiator(peerData []byte) ([]byte, error)
}

var _ crypto.Signer = (*sm2.PrivateKey)(nil)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for in.Scan() {
		var r req
		var reply res
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			reply = res{"ok": false, "error": "bad request: " + err.Error()}
		} else {
			func() {
				defer func() {
					if e := recover(); e != nil {
						reply = res{"ok": false, "error": fmt.Sprint(e)}
					}
				}()
				reply = handle(r)
				reply["ok"] = true
			}()
		}
		must(enc.Encode(reply))
		must(out.Flush())
	}
}
