// The BouncyCastle peer of guomi's interop suite: one JSON request per line on stdin, one
// JSON reply per line on stdout. Byte fields are hex strings. See tests/interop/README.md.

import java.io.*;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.*;
import java.security.cert.CertificateFactory;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.security.spec.*;
import java.util.*;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.*;

import org.bouncycastle.asn1.*;
import org.bouncycastle.asn1.gm.GMNamedCurves;
import org.bouncycastle.asn1.gm.GMObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.*;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.cert.*;
import org.bouncycastle.cert.jcajce.*;
import org.bouncycastle.cms.*;
import org.bouncycastle.cms.jcajce.*;
import org.bouncycastle.crypto.*;
import org.bouncycastle.crypto.agreement.SM2KeyExchange;
import org.bouncycastle.crypto.digests.SM3Digest;
import org.bouncycastle.crypto.engines.*;
import org.bouncycastle.crypto.macs.*;
import org.bouncycastle.crypto.modes.*;
import org.bouncycastle.crypto.paddings.*;
import org.bouncycastle.crypto.params.*;
import org.bouncycastle.crypto.signers.*;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.math.ec.ECPoint;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8DecryptorProviderBuilder;
import org.bouncycastle.operator.*;
import org.bouncycastle.operator.jcajce.*;
import org.bouncycastle.pkcs.*;
import org.bouncycastle.pkcs.jcajce.*;
import org.bouncycastle.util.encoders.Hex;

public class Peer {
    static final X9ECParameters SM2 = GMNamedCurves.getByName("sm2p256v1");
    static final ECDomainParameters DOMAIN = new ECDomainParameters(SM2.getCurve(), SM2.getG(), SM2.getN(), SM2.getH());
    static final byte[] DEFAULT_UID = "1234567812345678".getBytes(StandardCharsets.US_ASCII);
    static final SecureRandom RNG = new SecureRandom();
    static final Map<Integer, Object> SESSIONS = new HashMap<>();
    static int nextHandle = 1;

    // ---- a small JSON reader/writer: objects of strings, numbers, booleans, null, arrays ----
    static final class Json {
        final String s; int i;
        Json(String s) { this.s = s; }
        void ws() { while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++; }
        Object value() {
            ws();
            char c = s.charAt(i);
            if (c == '{') { i++; Map<String, Object> m = new LinkedHashMap<>(); ws();
                if (s.charAt(i) == '}') { i++; return m; }
                while (true) { ws(); String k = (String) value(); ws(); i++; m.put(k, value()); ws();
                    if (s.charAt(i++) == '}') return m; } }
            if (c == '[') { i++; List<Object> l = new ArrayList<>(); ws();
                if (s.charAt(i) == ']') { i++; return l; }
                while (true) { l.add(value()); ws(); if (s.charAt(i++) == ']') return l; } }
            if (c == '"') { i++; StringBuilder b = new StringBuilder();
                while (s.charAt(i) != '"') { char d = s.charAt(i++);
                    if (d == '\\') { char e = s.charAt(i++);
                        switch (e) { case 'n': b.append('\n'); break; case 't': b.append('\t'); break;
                            case 'u': b.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; break;
                            default: b.append(e); } }
                    else b.append(d); }
                i++; return b.toString(); }
            if (s.startsWith("true", i)) { i += 4; return Boolean.TRUE; }
            if (s.startsWith("false", i)) { i += 5; return Boolean.FALSE; }
            if (s.startsWith("null", i)) { i += 4; return null; }
            int j = i; while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
            return Long.parseLong(s.substring(j, i));
        }
        static String quote(String v) {
            StringBuilder b = new StringBuilder("\"");
            for (char c : v.toCharArray()) {
                if (c == '"' || c == '\\') b.append('\\').append(c);
                else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                else b.append(c);
            }
            return b.append('"').toString();
        }
        static String write(Object o) {
            if (o == null) return "null";
            if (o instanceof String) return quote((String) o);
            if (o instanceof Boolean || o instanceof Number) return o.toString();
            if (o instanceof byte[]) return quote(Hex.toHexString((byte[]) o));
            if (o instanceof List) { StringJoiner j = new StringJoiner(",", "[", "]");
                for (Object x : (List<?>) o) j.add(write(x)); return j.toString(); }
            Map<?, ?> m = (Map<?, ?>) o; StringJoiner j = new StringJoiner(",", "{", "}");
            for (Map.Entry<?, ?> e : m.entrySet()) j.add(quote(e.getKey().toString()) + ":" + write(e.getValue()));
            return j.toString();
        }
    }

    static final class Req {
        final Map<String, Object> m;
        Req(Map<String, Object> m) { this.m = m; }
        boolean has(String k) { return m.get(k) != null; }
        String str(String k) { Object v = m.get(k); return v == null ? "" : v.toString(); }
        byte[] hex(String k) { if (!has(k)) throw new IllegalArgumentException("missing field " + k); return Hex.decode(str(k)); }
        byte[] hexOr(String k, byte[] d) { return has(k) ? hex(k) : d; }
        int num(String k, int d) { return has(k) ? ((Long) m.get(k)).intValue() : d; }
        boolean bool(String k) { return Boolean.TRUE.equals(m.get(k)); }
        List<byte[]> list(String k) { List<byte[]> out = new ArrayList<>();
            if (has(k)) for (Object o : (List<?>) m.get(k)) out.add(Hex.decode((String) o)); return out; }
    }

    static Map<String, Object> res(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }

    // ---- keys ----
    static ECPrivateKeyParameters privParams(byte[] d) { return new ECPrivateKeyParameters(new BigInteger(1, d), DOMAIN); }
    static ECPublicKeyParameters pubParams(byte[] point) { return new ECPublicKeyParameters(SM2.getCurve().decodePoint(point), DOMAIN); }
    static byte[] scalar(BigInteger d) { byte[] b = d.toByteArray(), out = new byte[32];
        System.arraycopy(b, Math.max(0, b.length - 32), out, Math.max(0, 32 - b.length), Math.min(32, b.length)); return out; }
    static byte[] pointOf(byte[] d) { return DOMAIN.getG().multiply(new BigInteger(1, d)).normalize().getEncoded(false); }

    static KeyFactory kf() throws Exception { return KeyFactory.getInstance("EC", "BC"); }
    // The named-curve spec, so that getEncoded() writes the sm2p256v1 OID (not explicit parameters).
    static final org.bouncycastle.jce.spec.ECNamedCurveParameterSpec SPEC = org.bouncycastle.jce.ECNamedCurveTable.getParameterSpec("sm2p256v1");
    static PrivateKey jcaPriv(byte[] d) throws Exception {
        org.bouncycastle.jce.spec.ECParameterSpec spec = SPEC;
        return kf().generatePrivate(new org.bouncycastle.jce.spec.ECPrivateKeySpec(new BigInteger(1, d), spec));
    }
    static PublicKey jcaPub(byte[] point) throws Exception {
        org.bouncycastle.jce.spec.ECParameterSpec spec = SPEC;
        return kf().generatePublic(new org.bouncycastle.jce.spec.ECPublicKeySpec(SM2.getCurve().decodePoint(point), spec));
    }
    static byte[] privOf(PrivateKey k) { return scalar(((java.security.interfaces.ECPrivateKey) k).getS()); }
    static byte[] pubOf(PublicKey k) { return ((org.bouncycastle.jce.interfaces.ECPublicKey) k).getQ().getEncoded(false); }

    static X509Certificate cert(byte[] b) throws Exception {
        return (X509Certificate) CertificateFactory.getInstance("X.509", "BC").generateCertificate(new ByteArrayInputStream(b));
    }

    // ---- symmetric ----
    static Map<String, Object> sm4(Req r) throws Exception {
        String mode = r.str("mode");
        boolean enc = r.bool("encrypt");
        byte[] key = r.hex("key"), data = r.hex("data");
        if (mode.equals("gcm") || mode.equals("ccm")) {
            AEADBlockCipher c = mode.equals("gcm") ? GCMBlockCipher.newInstance(new SM4Engine()) : CCMBlockCipher.newInstance(new SM4Engine());
            c.init(enc, new AEADParameters(new KeyParameter(key), 8 * r.num("tag_len", 16), r.hex("nonce"), r.hexOr("aad", null)));
            byte[] out = new byte[c.getOutputSize(data.length)];
            int n = c.processBytes(data, 0, data.length, out, 0);
            n += c.doFinal(out, n);
            return res("data", Arrays.copyOf(out, n));
        }
        String pad = (mode.equals("ecb") || mode.equals("cbc")) && !r.str("padding").equals("none") ? "PKCS5Padding" : "NoPadding";
        Cipher c = Cipher.getInstance("SM4/" + mode.toUpperCase() + "/" + pad, "BC");
        SecretKeySpec k = new SecretKeySpec(key, "SM4");
        int m = enc ? Cipher.ENCRYPT_MODE : Cipher.DECRYPT_MODE;
        if (mode.equals("ecb")) c.init(m, k); else c.init(m, k, new IvParameterSpec(r.hex("iv")));
        return res("data", c.doFinal(data));
    }

    static Map<String, Object> mac(Req r) throws Exception {
        String v = r.str("variant");
        byte[] key = r.hex("key"), data = r.hex("data");
        org.bouncycastle.crypto.Mac m;
        int bits = 8 * r.num("size", 16);
        switch (v) {
            case "cmac": m = new CMac(new SM4Engine(), bits); break;
            case "cbcmac": m = new CBCBlockCipherMac(new SM4Engine(), bits); break;
            case "cbcmac_iso7816": m = new CBCBlockCipherMac(new SM4Engine(), bits, new ISO7816d4Padding()); break;
            case "gmac": m = new GMac(GCMBlockCipher.newInstance(new SM4Engine()), bits); break;
            default: throw new IllegalArgumentException("unknown mac variant " + v);
        }
        if (v.equals("gmac")) m.init(new ParametersWithIV(new KeyParameter(key), r.hex("nonce")));
        else m.init(new KeyParameter(key));
        m.update(data, 0, data.length);
        byte[] out = new byte[m.getMacSize()];
        m.doFinal(out, 0);
        return res("mac", out);
    }

    static Map<String, Object> zuc(Req r) {
        String op = r.str("op");
        byte[] key = r.hex("key"), iv = r.hex("iv");
        if (op.equals("zuc128_keystream") || op.equals("zuc256_keystream") || op.equals("zuc128_xor")) {
            StreamCipher c = op.equals("zuc256_keystream") ? new Zuc256Engine() : new Zuc128Engine();
            c.init(true, new ParametersWithIV(new KeyParameter(key), iv));
            byte[] in = op.equals("zuc128_xor") ? r.hex("data") : new byte[4 * r.num("words", 1)];
            byte[] out = new byte[in.length];
            c.processBytes(in, 0, in.length, out, 0);
            return res(op.equals("zuc128_xor") ? "data" : "keystream", out);
        }
        org.bouncycastle.crypto.Mac m = op.equals("zuc256_mac") ? new Zuc256Mac(r.num("tag_bits", 32)) : new Zuc128Mac();
        m.init(new ParametersWithIV(new KeyParameter(key), iv));
        byte[] data = r.hex("data");
        m.update(data, 0, data.length);
        byte[] out = new byte[m.getMacSize()];
        m.doFinal(out, 0);
        return res("mac", out);
    }

    // ---- SM2 ----
    static Map<String, Object> sm2(Req r) throws Exception {
        switch (r.str("op")) {
            case "sm2_generate": {
                KeyPairGenerator g = KeyPairGenerator.getInstance("EC", "BC");
                g.initialize(new ECGenParameterSpec("sm2p256v1"));
                KeyPair kp = g.generateKeyPair();
                return res("priv", privOf(kp.getPrivate()), "pub", pubOf(kp.getPublic()),
                    "pkcs8", kp.getPrivate().getEncoded(), "spki", kp.getPublic().getEncoded());
            }
            case "sm2_sign": {
                SM2Signer s = new SM2Signer(r.str("format").equals("raw") ? PlainDSAEncoding.INSTANCE : StandardDSAEncoding.INSTANCE);
                s.init(true, new ParametersWithID(new ParametersWithRandom(privParams(r.hex("priv")), RNG), r.hexOr("uid", DEFAULT_UID)));
                byte[] d = r.hex("data"); s.update(d, 0, d.length);
                return res("sig", s.generateSignature());
            }
            case "sm2_verify": {
                SM2Signer s = new SM2Signer(r.str("format").equals("raw") ? PlainDSAEncoding.INSTANCE : StandardDSAEncoding.INSTANCE);
                s.init(false, new ParametersWithID(pubParams(r.hex("pub")), r.hexOr("uid", DEFAULT_UID)));
                byte[] d = r.hex("data"); s.update(d, 0, d.length);
                boolean ok;
                try { ok = s.verifySignature(r.hex("sig")); } catch (RuntimeException e) { ok = false; }
                return res("valid", ok);
            }
            case "sm2_jca_sign": {  // the JCA "SM3withSM2" Signature (DER), for the record
                Signature s = Signature.getInstance("SM3withSM2", "BC");
                if (r.has("uid")) s.setParameter(new org.bouncycastle.jcajce.spec.SM2ParameterSpec(r.hex("uid")));
                s.initSign(jcaPriv(r.hex("priv"))); s.update(r.hex("data"));
                return res("sig", s.sign());
            }
            case "sm2_jca_verify": {
                Signature s = Signature.getInstance("SM3withSM2", "BC");
                if (r.has("uid")) s.setParameter(new org.bouncycastle.jcajce.spec.SM2ParameterSpec(r.hex("uid")));
                s.initVerify(jcaPub(r.hex("pub"))); s.update(r.hex("data"));
                return res("valid", s.verify(r.hex("sig")));
            }
            case "sm2_encrypt": {
                SM2Engine e = new SM2Engine(r.str("format").equals("c1c2c3") ? SM2Engine.Mode.C1C2C3 : SM2Engine.Mode.C1C3C2);
                e.init(true, new ParametersWithRandom(pubParams(r.hex("pub")), RNG));
                byte[] d = r.hex("data");
                return res("ct", e.processBlock(d, 0, d.length));
            }
            case "sm2_decrypt": {
                SM2Engine e = new SM2Engine(r.str("format").equals("c1c2c3") ? SM2Engine.Mode.C1C2C3 : SM2Engine.Mode.C1C3C2);
                e.init(false, privParams(r.hex("priv")));
                byte[] c = r.hex("ct");
                return res("data", e.processBlock(c, 0, c.length));
            }
            case "sm2_jce_encrypt": {  // Cipher "SM2": C1C2C3
                Cipher c = Cipher.getInstance("SM2", "BC");
                c.init(Cipher.ENCRYPT_MODE, jcaPub(r.hex("pub")));
                return res("ct", c.doFinal(r.hex("data")));
            }
            case "sm2_jce_decrypt": {
                Cipher c = Cipher.getInstance("SM2", "BC");
                c.init(Cipher.DECRYPT_MODE, jcaPriv(r.hex("priv")));
                return res("data", c.doFinal(r.hex("ct")));
            }
            case "sm2_key_export": {
                PrivateKey k = jcaPriv(r.hex("priv"));
                switch (r.str("format")) {
                    case "pkcs8": return res("der", k.getEncoded());
                    case "spki": return res("der", jcaPub(pointOf(r.hex("priv"))).getEncoded());
                    case "sec1": return res("der", PrivateKeyInfo.getInstance(k.getEncoded()).parsePrivateKey().toASN1Primitive().getEncoded("DER"));
                    case "pkcs8_encrypted": {
                        ASN1ObjectIdentifier enc = r.str("cipher").equals("aes-256-cbc") ? org.bouncycastle.asn1.nist.NISTObjectIdentifiers.id_aes256_CBC : GMObjectIdentifiers.sms4_cbc;
                        JcePKCSPBEOutputEncryptorBuilder b = new JcePKCSPBEOutputEncryptorBuilder(enc).setProvider("BC").setIterationCount(r.num("iterations", 2048));
                        if (r.str("prf").equals("hmac-sm3")) b.setPRF(new AlgorithmIdentifier(GMObjectIdentifiers.hmac_sm3, DERNull.INSTANCE));
                        else b.setPRF(new AlgorithmIdentifier(org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers.id_hmacWithSHA256, DERNull.INSTANCE));
                        PKCS8EncryptedPrivateKeyInfo info = new JcaPKCS8EncryptedPrivateKeyInfoBuilder(k).build(b.build(r.str("password").toCharArray()));
                        return res("der", info.getEncoded());
                    }
                    default: throw new IllegalArgumentException("unknown format");
                }
            }
            case "sm2_key_import": {
                byte[] der = r.hex("der");
                switch (r.str("format")) {
                    case "spki": return res("pub", pubOf(kf().generatePublic(new X509EncodedKeySpec(der))));
                    case "sec1": {
                        org.bouncycastle.asn1.sec.ECPrivateKey ec = org.bouncycastle.asn1.sec.ECPrivateKey.getInstance(der);
                        byte[] d = scalar(ec.getKey());
                        return res("priv", d, "pub", pointOf(d));
                    }
                    case "pkcs8_encrypted": {
                        PKCS8EncryptedPrivateKeyInfo info = new PKCS8EncryptedPrivateKeyInfo(der);
                        PrivateKeyInfo pki = info.decryptPrivateKeyInfo(new JceOpenSSLPKCS8DecryptorProviderBuilder().setProvider("BC").build(r.str("password").toCharArray()));
                        byte[] d = privOf(kf().generatePrivate(new PKCS8EncodedKeySpec(pki.getEncoded())));
                        return res("priv", d, "pub", pointOf(d));
                    }
                    default: {
                        byte[] d = privOf(kf().generatePrivate(new PKCS8EncodedKeySpec(der)));
                        return res("priv", d, "pub", pointOf(d));
                    }
                }
            }
            case "sm2_pem_import": {  // bcpkix PEMParser: PRIVATE KEY, EC PRIVATE KEY, ENCRYPTED PRIVATE KEY, PUBLIC KEY
                Object o = new org.bouncycastle.openssl.PEMParser(new StringReader(r.str("pem"))).readObject();
                org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter conv = new org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter().setProvider("BC");
                if (o instanceof PKCS8EncryptedPrivateKeyInfo)
                    o = ((PKCS8EncryptedPrivateKeyInfo) o).decryptPrivateKeyInfo(new JceOpenSSLPKCS8DecryptorProviderBuilder().setProvider("BC").build(r.str("password").toCharArray()));
                if (o instanceof org.bouncycastle.asn1.x509.SubjectPublicKeyInfo)
                    return res("pub", pubOf(conv.getPublicKey((org.bouncycastle.asn1.x509.SubjectPublicKeyInfo) o)), "type", "spki");
                PrivateKey k = o instanceof org.bouncycastle.openssl.PEMKeyPair ? conv.getKeyPair((org.bouncycastle.openssl.PEMKeyPair) o).getPrivate()
                    : conv.getPrivateKey((PrivateKeyInfo) o);
                byte[] d = privOf(k);
                return res("priv", d, "pub", pointOf(d), "type", o.getClass().getSimpleName());
            }
            case "sm2_pem_export": {  // bcpkix JcaPEMWriter
                StringWriter sw = new StringWriter();
                try (org.bouncycastle.openssl.jcajce.JcaPEMWriter w = new org.bouncycastle.openssl.jcajce.JcaPEMWriter(sw)) {
                    switch (r.str("format")) {
                        case "spki": w.writeObject(jcaPub(pointOf(r.hex("priv")))); break;
                        case "sec1": w.writeObject(jcaPriv(r.hex("priv"))); break;  // JcaMiscPEMGenerator: EC PRIVATE KEY
                        default: w.writeObject(new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(jcaPriv(r.hex("priv")), null));
                    }
                }
                return res("pem", sw.toString());
            }
            case "sm2_kex_ephemeral": {
                BigInteger d = BigIntegers(r);
                int h = nextHandle++;
                SESSIONS.put(h, d);
                return res("handle", h, "R", DOMAIN.getG().multiply(d).normalize().getEncoded(false));
            }
            case "sm2_kex_finish": {
                BigInteger e = (BigInteger) SESSIONS.remove(r.num("handle", 0));
                boolean responder = r.bool("responder");
                SM2KeyExchange x = new SM2KeyExchange();
                x.init(new ParametersWithID(new SM2KeyExchangePrivateParameters(!responder, privParams(r.hex("priv")),
                    new ECPrivateKeyParameters(e, DOMAIN)), r.hexOr("uid", DEFAULT_UID)));
                CipherParameters peer = new ParametersWithID(new SM2KeyExchangePublicParameters(pubParams(r.hex("peer_pub")),
                    pubParams(r.hex("peer_R"))), r.hexOr("peer_uid", DEFAULT_UID));
                int bits = 8 * r.num("key_length", 16);
                if (!r.bool("confirm")) return res("key", x.calculateKey(bits, peer));
                // Initiator: give S_B as peer_S, get (K, S_A). Responder: no peer_S, get (K, S_B, expected S_A).
                byte[][] out = x.calculateKeyWithConfirmation(bits, r.hexOr("peer_S", null), peer);
                Map<String, Object> m = res("key", out[0], "S", out[1]);
                if (out.length > 2) m.put("expected_peer_S", out[2]);
                return m;
            }
        }
        throw new IllegalArgumentException("unknown op");
    }

    static BigInteger BigIntegers(Req r) {
        BigInteger n = DOMAIN.getN();
        while (true) {
            BigInteger d = new BigInteger(256, RNG);
            if (d.signum() > 0 && d.compareTo(n) < 0) return d;
        }
    }

    // ---- X.509, CRL, CMS ----
    static ContentSigner signer(byte[] d) throws Exception {
        return new JcaContentSignerBuilder("SM3withSM2").setProvider("BC").build(jcaPriv(d));
    }

    static Map<String, Object> x509(Req r) throws Exception {
        switch (r.str("op")) {
            case "x509_cert_verify": {
                X509Certificate c = cert(r.hex("cert"));
                X509CertificateHolder h = new X509CertificateHolder(c.getEncoded());
                boolean ok = h.isSignatureValid(new JcaContentVerifierProviderBuilder().setProvider("BC").build(cert(r.hex("issuer")).getPublicKey()));
                String jca = null;
                try { c.verify(cert(r.hex("issuer")).getPublicKey(), "BC"); } catch (Exception e) { jca = e.toString(); }
                return res("valid", ok, "jca_error", jca, "subject", c.getSubjectX500Principal().getName(), "sig_alg", c.getSigAlgOID());
            }
            case "x509_chain_verify": {  // PKIX CertPathValidator (provider BC), no revocation checking
                List<X509Certificate> path = new ArrayList<>();
                path.add(cert(r.hex("cert")));
                for (byte[] c : r.list("intermediates")) path.add(cert(c));
                Set<java.security.cert.TrustAnchor> anchors = new HashSet<>();
                for (byte[] c : r.list("roots")) anchors.add(new java.security.cert.TrustAnchor(cert(c), null));
                java.security.cert.PKIXParameters params = new java.security.cert.PKIXParameters(anchors);
                params.setRevocationEnabled(false);
                java.security.cert.CertPath cp = CertificateFactory.getInstance("X.509", "BC").generateCertPath(path);
                try {
                    java.security.cert.CertPathValidator.getInstance("PKIX", "BC").validate(cp, params);
                    return res("valid", true, "error", null);
                } catch (java.security.cert.CertPathValidatorException e) {
                    return res("valid", false, "error", e.toString());
                }
            }
            case "x509_csr_verify": {
                PKCS10CertificationRequest csr = new PKCS10CertificationRequest(r.hex("csr"));
                boolean ok = csr.isSignatureValid(new JcaContentVerifierProviderBuilder().setProvider("BC").build(csr.getSubjectPublicKeyInfo()));
                return res("valid", ok, "subject", csr.getSubject().toString(),
                    "pub", csr.getSubjectPublicKeyInfo().getPublicKeyData().getBytes());
            }
            case "x509_csr_create": {
                PKCS10CertificationRequestBuilder b = new JcaPKCS10CertificationRequestBuilder(new X500Name("CN=" + r.str("subject_cn")), jcaPub(pointOf(r.hex("priv"))));
                return res("csr", b.build(signer(r.hex("priv"))).getEncoded());
            }
            case "x509_cert_create": {
                X500Name subject = new X500Name("CN=" + r.str("subject_cn"));
                X500Name issuer = r.has("issuer_cert") ? new X509CertificateHolder(cert(r.hex("issuer_cert")).getEncoded()).getSubject() : subject;
                Date now = new Date(System.currentTimeMillis() - 3600_000L);
                X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(r.num("serial", 1)), now,
                    new Date(now.getTime() + 30L * 86400_000L), subject, jcaPub(r.hex("pub")));
                if (r.bool("ca")) {
                    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
                    b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
                } else {
                    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
                    b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment | KeyUsage.dataEncipherment));
                }
                return res("cert", b.build(signer(r.hex("issuer_priv"))).getEncoded());
            }
            case "x509_crl_create": {
                X509CertificateHolder issuer = new X509CertificateHolder(cert(r.hex("issuer_cert")).getEncoded());
                Date now = new Date(System.currentTimeMillis() - 3600_000L);
                X509v2CRLBuilder b = new X509v2CRLBuilder(issuer.getSubject(), now);
                b.setNextUpdate(new Date(now.getTime() + 7L * 86400_000L));
                for (byte[] s : r.list("serials")) b.addCRLEntry(new BigInteger(1, s), now, CRLReason.keyCompromise);
                b.addExtension(Extension.cRLNumber, false, new CRLNumber(BigInteger.valueOf(r.num("number", 1))));
                return res("crl", b.build(signer(r.hex("issuer_priv"))).getEncoded());
            }
            case "x509_crl_verify": {
                X509CRLHolder crl = new X509CRLHolder(r.hex("crl"));
                boolean ok = crl.isSignatureValid(new JcaContentVerifierProviderBuilder().setProvider("BC").build(cert(r.hex("issuer")).getPublicKey()));
                List<Object> serials = new ArrayList<>();
                for (Object o : crl.getRevokedCertificates()) serials.add(((X509CRLEntryHolder) o).getSerialNumber().toString(16));
                return res("valid", ok, "serials", serials);
            }
        }
        throw new IllegalArgumentException("unknown op");
    }

    // ---- SM9 (lightweight API: SM9Signer, SM9Engine, SM9KEMGenerator/Extractor, SM9KeyExchange) ----
    static SM9SigMasterPublicKeyParameters sigMpk(Req r) { return SM9SigMasterPublicKeyParameters.fromEncoded(r.hex("master_pub")); }
    static SM9EncMasterPublicKeyParameters encMpk(Req r) { return SM9EncMasterPublicKeyParameters.fromEncoded(r.hex("master_pub")); }
    static SM9EncPrivateKeyParameters encUser(Req r, int usage) {
        return SM9EncPrivateKeyParameters.fromEncoded(r.hex("user_key"), encMpk(r), r.hex("uid"), (byte) r.num("hid", 3), usage);
    }

    static Map<String, Object> sm9(Req r) throws Exception {
        switch (r.str("op")) {
            case "sm9_sign_user_key": {
                SM9SigMasterPrivateKeyParameters m = SM9SigMasterPrivateKeyParameters.fromEncoded(r.hex("master"));
                return res("user_key", m.generateUserKey(r.hex("uid")).getEncoded(), "master_pub", m.getPublicKeyParameters().getEncoded());
            }
            case "sm9_enc_user_key": {
                SM9EncMasterPrivateKeyParameters m = SM9EncMasterPrivateKeyParameters.fromEncoded(r.hex("master"));
                SM9EncPrivateKeyParameters k = r.num("hid", 3) == 2 ? m.generateExchangeKey(r.hex("uid")) : m.generateUserKey(r.hex("uid"), (byte) r.num("hid", 3));
                return res("user_key", k.getEncoded(), "master_pub", m.getPublicKeyParameters().getEncoded());
            }
            case "sm9_sign": {
                SM9Signer s = new SM9Signer();
                SM9SigPrivateKeyParameters k = SM9SigPrivateKeyParameters.fromEncoded(r.hex("user_key"), sigMpk(r), r.hex("uid"));
                s.init(true, new ParametersWithRandom(k, RNG));
                byte[] d = r.hex("data"); s.update(d, 0, d.length);
                return res("sig", s.generateSignature());
            }
            case "sm9_verify": {
                SM9Signer s = new SM9Signer();
                s.init(false, new ParametersWithID(sigMpk(r), r.hex("uid")));
                byte[] d = r.hex("data"); s.update(d, 0, d.length);
                boolean ok;
                try { ok = s.verifySignature(r.hex("sig")); } catch (RuntimeException e) { ok = false; }
                return res("valid", ok);
            }
            case "sm9_encrypt": {
                SM9Engine e = new SM9Engine(r.str("mode").equals("sm4") ? SM9Engine.Mode.SM4 : SM9Engine.Mode.STREAM);
                e.init(true, new ParametersWithRandom(encMpk(r).getUserPublicKey(r.hex("uid")), RNG));
                byte[] d = r.hex("data");
                return res("ct", e.processBlock(d, 0, d.length));
            }
            case "sm9_decrypt": {
                SM9Engine e = new SM9Engine(r.str("mode").equals("sm4") ? SM9Engine.Mode.SM4 : SM9Engine.Mode.STREAM);
                e.init(false, encUser(r, SM9EncPrivateKeyParameters.USAGE_DECRYPTION));
                byte[] c = r.hex("ct");
                return res("data", e.processBlock(c, 0, c.length));
            }
            case "sm9_kem_encapsulate": {
                SecretWithEncapsulation sw = new org.bouncycastle.crypto.kems.SM9KEMGenerator(8 * r.num("key_length", 16), RNG)
                    .generateEncapsulated(encMpk(r).getUserPublicKey(r.hex("uid")));
                return res("key", sw.getSecret(), "c", sw.getEncapsulation());
            }
            case "sm9_kem_decapsulate": {
                return res("key", new org.bouncycastle.crypto.kems.SM9KEMExtractor(encUser(r, SM9EncPrivateKeyParameters.USAGE_KEM),
                    8 * r.num("key_length", 16)).extractSecret(r.hex("c")));  // bits
            }
            case "sm9_kex_new": {
                SM9EncPrivateKeyParameters k = SM9EncPrivateKeyParameters.fromEncodedExchangeKey(r.hex("user_key"), encMpk(r), r.hex("uid"));
                org.bouncycastle.crypto.agreement.SM9KeyExchange x = new org.bouncycastle.crypto.agreement.SM9KeyExchange(k, r.hex("peer_uid"), r.bool("initiator"));
                byte[] R = x.generateEphemeral(RNG).getEncoded(false);
                int h = nextHandle++;
                SESSIONS.put(h, new Object[] {x, encMpk(r), r.hex("uid")});
                return res("handle", h, "R", R);
            }
            case "sm9_kex_finish": {
                Object[] st = (Object[]) SESSIONS.remove(r.num("handle", 0));
                org.bouncycastle.crypto.agreement.SM9KeyExchange x = (org.bouncycastle.crypto.agreement.SM9KeyExchange) st[0];
                ECPoint peerR = ((SM9EncMasterPublicKeyParameters) st[1]).recipientPoint((byte[]) st[2]).getCurve().decodePoint(r.hex("peer_R"));
                byte[] key = x.calculateKey(8 * r.num("key_length", 16), peerR);  // bits
                return res("key", key, "S_A", x.getInitiatorConfirmation(), "S_B", x.getResponderConfirmation());
            }
        }
        throw new IllegalArgumentException("unknown op");
    }

    static final ASN1ObjectIdentifier SM2_SIGN_301_1 = new ASN1ObjectIdentifier("1.2.156.10197.1.301.1");

    static Map<String, Object> cms(Req r) throws Exception {
        switch (r.str("op")) {
            case "cms_sign": {
                X509Certificate c = cert(r.hex("cert"));
                CMSSignedDataGenerator g = new CMSSignedDataGenerator();
                DigestCalculatorProvider dp = new JcaDigestCalculatorProviderBuilder().setProvider("BC").build();
                JcaSignerInfoGeneratorBuilder sb = new JcaSignerInfoGeneratorBuilder(dp);
                if (r.str("sig_oid").equals("1.2.156.10197.1.301.1")) {
                    sb = new JcaSignerInfoGeneratorBuilder(dp, new CMSSignatureEncryptionAlgorithmFinder() {
                        public AlgorithmIdentifier findEncryptionAlgorithm(AlgorithmIdentifier sigAlg) { return new AlgorithmIdentifier(SM2_SIGN_301_1); }
                    });
                }
                if (r.bool("no_attributes")) sb.setDirectSignature(true);
                g.addSignerInfoGenerator(sb.build(signer(r.hex("priv")), c));
                g.addCertificate(new X509CertificateHolder(c.getEncoded()));
                CMSSignedData sd = g.generate(new CMSProcessableByteArray(r.hex("data")), !r.bool("detached"));
                return res("der", sd.getEncoded("DER"));
            }
            case "cms_verify": {
                CMSSignedData sd = r.has("data") ? new CMSSignedData(new CMSProcessableByteArray(r.hex("data")), r.hex("der")) : new CMSSignedData(r.hex("der"));
                boolean all = true; List<Object> algs = new ArrayList<>(); String error = null;
                for (SignerInformation si : sd.getSignerInfos().getSigners()) {
                    X509Certificate c = r.has("cert") ? cert(r.hex("cert")) : new JcaX509CertificateConverter().setProvider("BC")
                        .getCertificate((X509CertificateHolder) sd.getCertificates().getMatches(si.getSID()).iterator().next());
                    algs.add(si.getEncryptionAlgOID());
                    try {
                        all &= si.verify(new JcaSimpleSignerInfoVerifierBuilder().setProvider("BC").build(c));
                    } catch (CMSException e) { all = false; error = e.toString(); }
                }
                Object content = sd.getSignedContent() == null ? null : (byte[]) sd.getSignedContent().getContent();
                return res("valid", all, "error", error, "content", content, "sig_algs", algs);
            }
            case "cms_envelope": {
                CMSEnvelopedDataGenerator g = new CMSEnvelopedDataGenerator();
                for (byte[] c : r.list("certs")) {
                    // SM2 key transport: the GM/T 0010 OID 1.2.156.10197.1.301.3, mapped to the JCE cipher "SM2"
                    // (BouncyCastle's JCE SM2 cipher writes C1C2C3).
                    JceKeyTransRecipientInfoGenerator rg = new JceKeyTransRecipientInfoGenerator(cert(c), new AlgorithmIdentifier(GMObjectIdentifiers.sm2encrypt));
                    rg.setAlgorithmMapping(GMObjectIdentifiers.sm2encrypt, "SM2");
                    g.addRecipientInfoGenerator(rg.setProvider("BC"));
                }
                ASN1ObjectIdentifier alg = r.str("cipher").equals("sm4-gcm") ? GMObjectIdentifiers.sms4_gcm : GMObjectIdentifiers.sms4_cbc;
                CMSEnvelopedData ed = g.generate(new CMSProcessableByteArray(r.hex("data")), new JceCMSContentEncryptorBuilder(alg).setProvider("BC").build());
                return res("der", ed.getEncoded());
            }
            case "cms_decrypt": {
                CMSEnvelopedData ed = new CMSEnvelopedData(r.hex("der"));
                RecipientInformation ri = ed.getRecipientInfos().getRecipients().iterator().next();
                JceKeyTransEnvelopedRecipient rec = new JceKeyTransEnvelopedRecipient(jcaPriv(r.hex("priv")));
                rec.setAlgorithmMapping(GMObjectIdentifiers.sm2encrypt, "SM2");
                return res("data", ri.getContent(rec.setProvider("BC")),
                    "key_alg", ri.getKeyEncryptionAlgOID(), "content_alg", ed.getEncryptionAlgOID());
            }
            case "pkcs12_create": {
                X509Certificate c = cert(r.hex("cert"));
                char[] pw = r.str("password").toCharArray();
                PKCS12SafeBagBuilder certBag = new JcaPKCS12SafeBagBuilder(c);
                org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils eu = new org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils();
                DEROctetString localKeyId = new DEROctetString(eu.createSubjectKeyIdentifier(c.getPublicKey()).getKeyIdentifier());
                certBag.addBagAttribute(org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers.pkcs_9_at_localKeyId, localKeyId);
                certBag.addBagAttribute(org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers.pkcs_9_at_friendlyName, new DERBMPString(r.str("name")));
                ASN1ObjectIdentifier enc = r.str("cipher").equals("aes-256-cbc") ? org.bouncycastle.asn1.nist.NISTObjectIdentifiers.id_aes256_CBC : GMObjectIdentifiers.sms4_cbc;
                JcePKCSPBEOutputEncryptorBuilder eb = new JcePKCSPBEOutputEncryptorBuilder(enc).setProvider("BC").setIterationCount(r.num("iterations", 2048));
                if (r.str("prf").equals("hmac-sm3")) eb.setPRF(new AlgorithmIdentifier(GMObjectIdentifiers.hmac_sm3, DERNull.INSTANCE));
                else eb.setPRF(new AlgorithmIdentifier(org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers.id_hmacWithSHA256, DERNull.INSTANCE));
                PKCS12SafeBagBuilder keyBag = new JcaPKCS12SafeBagBuilder(jcaPriv(r.hex("priv")), eb.build(pw));
                keyBag.addBagAttribute(org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers.pkcs_9_at_friendlyName, new DERBMPString(r.str("name")));
                keyBag.addBagAttribute(org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers.pkcs_9_at_localKeyId, localKeyId);
                PKCS12PfxPduBuilder pb = new PKCS12PfxPduBuilder();
                pb.addData(keyBag.build());
                pb.addEncryptedData(eb.build(pw), certBag.build());
                ASN1ObjectIdentifier macDigest = r.str("mac").equals("sm3") ? GMObjectIdentifiers.sm3
                    : org.bouncycastle.asn1.nist.NISTObjectIdentifiers.id_sha256;
                PKCS12PfxPdu pfx = pb.build(new JcePKCS12MacCalculatorBuilder(macDigest).setProvider("BC"), pw);
                return res("der", pfx.getEncoded("DER"));
            }
            case "pkcs12_read": {
                char[] pw = r.str("password").toCharArray();
                KeyStore ks = KeyStore.getInstance("PKCS12", "BC");
                ks.load(new ByteArrayInputStream(r.hex("der")), pw);
                List<Object> aliases = new ArrayList<>(); byte[] d = null, c = null;
                for (String a : Collections.list(ks.aliases())) {
                    aliases.add(a);
                    if (ks.isKeyEntry(a)) { d = privOf((PrivateKey) ks.getKey(a, pw)); if (ks.getCertificate(a) != null) c = ks.getCertificate(a).getEncoded(); }
                    else if (c == null && ks.getCertificate(a) != null) c = ks.getCertificate(a).getEncoded();
                }
                return res("aliases", aliases, "priv", d, "cert", c);
            }
        }
        throw new IllegalArgumentException("unknown op");
    }

    static Map<String, Object> handle(Req r) throws Exception {
        String op = r.str("op");
        switch (op) {
            case "version": return res("library", "bouncycastle bcprov/bcpkix-jdk18on", "version", new BouncyCastleProvider().getVersionStr(),
                "runtime", "java " + System.getProperty("java.version"));
            case "sm3": { MessageDigest md = MessageDigest.getInstance("SM3", "BC"); return res("digest", md.digest(r.hex("data"))); }
            case "hmac_sm3": { Mac m = Mac.getInstance("HMACSM3", "BC"); m.init(new SecretKeySpec(r.hex("key"), "HMACSM3")); return res("mac", m.doFinal(r.hex("data"))); }
            case "sm4": return sm4(r);
            case "sm4_mac": return mac(r);
        }
        if (op.startsWith("zuc")) return zuc(r);
        if (op.startsWith("sm2_")) return sm2(r);
        if (op.startsWith("sm9_")) return sm9(r);
        if (op.startsWith("x509_")) return x509(r);
        if (op.startsWith("cms_") || op.startsWith("pkcs12_")) return cms(r);
        throw new IllegalArgumentException("unknown op " + op);
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        Security.addProvider(new BouncyCastleProvider());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            Map<String, Object> reply;
            try {
                reply = handle(new Req((Map<String, Object>) new Json(line).value()));
                reply.put("ok", true);
            } catch (Throwable e) {
                reply = res("ok", false, "error", e.toString());
            }
            out.println(Json.write(reply));
            out.flush();
        }
    }
}
