/*
 * OpenSSL's side of scripts/insn-count.sh: one operation chosen on the command line, the
 * same operations and arguments as guomi-core's examples/insn_workload.rs, through
 * OpenSSL 3's EVP interface, so that qemu's instruction counts of the two programs can be
 * compared (a run with n = 0 does all the setup and is the baseline to subtract).
 *
 *   openssl_workload <op> <n>
 *
 *   sm4-ecb, sm4-cbc-enc, sm4-ctr  EVP_EncryptUpdate over n zero bytes, no padding
 *   sm4-gcm                        SM4-GCM encryption, 12-byte nonce, no AAD, 16-byte tag
 *   sm3                            EVP_Digest over n zero bytes
 *   sm2-sign                       n signatures of a 64-byte message (EVP_DigestSign with
 *                                  SM3 and the default user ID "1234567812345678", so Z_A
 *                                  and the digest are part of each); a new EVP_MD_CTX and
 *                                  DigestSignInit per signature, as a one-shot caller does
 *   sm2-verify                     n verifications of one such signature (EVP_DigestVerify)
 *
 * Key, IV, nonce and SM2 key pair are the ones the Rust example uses: the GB/T 32907 SM4
 * key, IV 5a..5a, nonce a5..a5, and the GB/T 32918 example private key
 * d = 3945208f...4df7c5b8 with its public key.
 *
 * Build (scripts/insn-count.sh does it): aarch64-linux-gnu-gcc -O2 against the libcrypto
 * of a Debian arm64 root file system (headers from its libssl-dev).
 *
 * OpenSSL picks its SM4 code on aarch64 from OPENSSL_armcap (the SM4 instructions) and
 * from the core's MIDR_EL1 (the NEON bit-sliced "vpsm4" only on Neoverse N1/V1, the
 * AESE-based "vpsm4_ex" only on HiSilicon Kunpeng 920). No qemu model is a Kunpeng 920, so
 * a build linked statically against libcrypto.a with -DOPENSSL_WORKLOAD_STATIC honours
 * OPENSSL_WORKLOAD_MIDR=<hex>: after OpenSSL's CPU detection has run, its recorded MIDR
 * is replaced by that value (the variable is internal to libcrypto, reachable only in a
 * static link). A dynamic build refuses the variable rather than ignore it.
 */
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char KEY[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                                      0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};
static const char *SM2_D = "3945208F7B2144B13F36E38AC6D39F95889393692860B51A42FB81EF4DF7C5B8";
static const char *SM2_PUB =
    "04"
    "09F9DF311E5421A150DD7D161E4BC5C672179FAD1833FC076BB08FF356F35020"
    "CCEA490CE26775A52DC6EA718CC1AA600AED05FBF35E084A6632F6072DA9AD13";
static const char UID[] = "1234567812345678";

#ifdef OPENSSL_WORKLOAD_STATIC
/* libcrypto's record of MIDR_EL1 (crypto/armcap.c), read when an SM4 key is set up. */
extern unsigned int OPENSSL_arm_midr;
#endif

/* Prints OpenSSL's error queue and exits. */
static void die(const char *what)
{
    fprintf(stderr, "openssl_workload: %s failed\n", what);
    ERR_print_errors_fp(stderr);
    exit(1);
}

/* Encrypts n zero bytes with the named SM4 cipher (padding off for the block modes). */
static void sm4_mode(const char *name, size_t n)
{
    unsigned char iv[16], nonce[12], tag[16];
    int outl = 0, fin = 0;
    int gcm = strcmp(name, "SM4-GCM") == 0;
    unsigned char *in = calloc(n + 1, 1), *out = calloc(n + 16, 1);
    EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, name, NULL);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

    memset(iv, 0x5a, sizeof iv);
    memset(nonce, 0xa5, sizeof nonce);
    if (in == NULL || out == NULL || c == NULL || ctx == NULL)
        die("setup");
    if (!EVP_EncryptInit_ex2(ctx, c, KEY, gcm ? nonce : iv, NULL))
        die("EVP_EncryptInit_ex2");
    EVP_CIPHER_CTX_set_padding(ctx, 0);
    if (!EVP_EncryptUpdate(ctx, out, &outl, in, (int)n))
        die("EVP_EncryptUpdate");
    if (!EVP_EncryptFinal_ex(ctx, out + outl, &fin))
        die("EVP_EncryptFinal_ex");
    if (gcm && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, tag))
        die("EVP_CTRL_GCM_GET_TAG");
    if ((size_t)(outl + fin) != n)
        die("length check");
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    free(in);
    free(out);
}

/* SM3 of n zero bytes. */
static void sm3(size_t n)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    unsigned char *in = calloc(n + 1, 1);
    EVP_MD *md_sm3 = EVP_MD_fetch(NULL, "SM3", NULL);

    if (in == NULL || md_sm3 == NULL || !EVP_Digest(in, n, md, &mdlen, md_sm3, NULL))
        die("EVP_Digest");
    EVP_MD_free(md_sm3);
    free(in);
}

/* The fixed SM2 key pair as an EVP_PKEY. */
static EVP_PKEY *sm2_key(void)
{
    BIGNUM *d = NULL;
    unsigned char pub[65];
    long publen = 0;
    unsigned char *p = OPENSSL_hexstr2buf(SM2_PUB, &publen);
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params;
    EVP_PKEY_CTX *kctx = EVP_PKEY_CTX_new_from_name(NULL, "SM2", NULL);
    EVP_PKEY *pkey = NULL;

    if (p == NULL || publen != 65 || !BN_hex2bn(&d, SM2_D) || bld == NULL || kctx == NULL)
        die("SM2 key setup");
    memcpy(pub, p, sizeof pub);
    OPENSSL_free(p);
    if (!OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "SM2", 0)
        || !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof pub)
        || !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, d)
        || (params = OSSL_PARAM_BLD_to_param(bld)) == NULL)
        die("SM2 key parameters");
    if (EVP_PKEY_fromdata_init(kctx) <= 0
        || EVP_PKEY_fromdata(kctx, &pkey, EVP_PKEY_KEYPAIR, params) <= 0)
        die("EVP_PKEY_fromdata");
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    BN_free(d);
    EVP_PKEY_CTX_free(kctx);
    return pkey;
}

/* One SM2 signature (verify = 0) or verification (verify = 1) of msg; returns the
 * signature length (sign) or 1 (a valid signature). */
static size_t sm2_once(EVP_PKEY *pkey, int verify, const unsigned char *msg,
                       unsigned char *sig, size_t siglen)
{
    EVP_MD_CTX *mctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    size_t r;

    if (mctx == NULL)
        die("EVP_MD_CTX_new");
    if (verify) {
        if (EVP_DigestVerifyInit_ex(mctx, &pctx, "SM3", NULL, NULL, pkey, NULL) <= 0
            || EVP_PKEY_CTX_set1_id(pctx, UID, sizeof UID - 1) <= 0)
            die("EVP_DigestVerifyInit_ex");
        if (EVP_DigestVerify(mctx, sig, siglen, msg, 64) != 1)
            die("EVP_DigestVerify");
        r = 1;
    } else {
        r = siglen;
        if (EVP_DigestSignInit_ex(mctx, &pctx, "SM3", NULL, NULL, pkey, NULL) <= 0
            || EVP_PKEY_CTX_set1_id(pctx, UID, sizeof UID - 1) <= 0)
            die("EVP_DigestSignInit_ex");
        if (EVP_DigestSign(mctx, sig, &r, msg, 64) <= 0)
            die("EVP_DigestSign");
    }
    EVP_MD_CTX_free(mctx);
    return r;
}

/* n SM2 signatures or verifications; the key and one signature are made in every run. */
static void sm2(size_t n, int verify)
{
    unsigned char msg[64], sig[128];
    EVP_PKEY *pkey = sm2_key();
    size_t siglen, i;

    memset(msg, 0x61, sizeof msg);
    siglen = sm2_once(pkey, 0, msg, sig, sizeof sig);
    for (i = 0; i < n; i++) {
        if (verify) {
            sm2_once(pkey, 1, msg, sig, siglen);
        } else {
            unsigned char s2[128];
            sm2_once(pkey, 0, msg, s2, sizeof s2);
        }
    }
    EVP_PKEY_free(pkey);
}

int main(int argc, char **argv)
{
    char *end;
    size_t n;
    const char *op;

    if (argc != 3) {
        fprintf(stderr, "usage: openssl_workload "
                        "<sm4-ecb|sm4-cbc-enc|sm4-ctr|sm4-gcm|sm3|sm2-sign|sm2-verify> <n>\n");
        return 2;
    }
    op = argv[1];
    n = strtoul(argv[2], &end, 10);
    if (*end != '\0' || n > (1u << 30))
        die("parsing n");
    if (!OPENSSL_init_crypto(0, NULL))
        die("OPENSSL_init_crypto");
    if (getenv("OPENSSL_WORKLOAD_MIDR") != NULL) {
#ifdef OPENSSL_WORKLOAD_STATIC
        OPENSSL_arm_midr = (unsigned int)strtoul(getenv("OPENSSL_WORKLOAD_MIDR"), &end, 16);
        if (*end != '\0')
            die("parsing OPENSSL_WORKLOAD_MIDR");
        fprintf(stderr, "MIDR forced to %#x\n", OPENSSL_arm_midr);
#else
        die("OPENSSL_WORKLOAD_MIDR (static build only)");
#endif
    }
    fprintf(stderr, "%s\n", OpenSSL_version(OPENSSL_VERSION));
    if (strcmp(op, "sm4-ecb") == 0)
        sm4_mode("SM4-ECB", n);
    else if (strcmp(op, "sm4-cbc-enc") == 0)
        sm4_mode("SM4-CBC", n);
    else if (strcmp(op, "sm4-ctr") == 0)
        sm4_mode("SM4-CTR", n);
    else if (strcmp(op, "sm4-gcm") == 0)
        sm4_mode("SM4-GCM", n);
    else if (strcmp(op, "sm3") == 0)
        sm3(n);
    else if (strcmp(op, "sm2-sign") == 0)
        sm2(n, 0);
    else if (strcmp(op, "sm2-verify") == 0)
        sm2(n, 1);
    else
        die("unknown operation");
    return 0;
}
