"""Derives the affine maps that express the SM4 S-box through field inversion.

Run: python3 derive_affine.py  (prints the constants used by soft.rs, x86_avx2.rs and
x86_avx512.rs, after checking each representation against the S-box table of
GB/T 32907-2016 §6.2 for all 256 inputs).

Facts used: the SM4 S-box is affine-equivalent to inversion in GF(2^8)
(S(x) = A·(A·x + C)^-1 + C over GF(2)[x]/(x^8+x^7+x^6+x^5+x^4+x^2+1), found below by
search), and every GF(2^8) is isomorphic to the AES field GF(2)[x]/(x^8+x^4+x^3+x+1).
"""

SBOX = [
    0xD6,
    0x90,
    0xE9,
    0xFE,
    0xCC,
    0xE1,
    0x3D,
    0xB7,
    0x16,
    0xB6,
    0x14,
    0xC2,
    0x28,
    0xFB,
    0x2C,
    0x05,
    0x2B,
    0x67,
    0x9A,
    0x76,
    0x2A,
    0xBE,
    0x04,
    0xC3,
    0xAA,
    0x44,
    0x13,
    0x26,
    0x49,
    0x86,
    0x06,
    0x99,
    0x9C,
    0x42,
    0x50,
    0xF4,
    0x91,
    0xEF,
    0x98,
    0x7A,
    0x33,
    0x54,
    0x0B,
    0x43,
    0xED,
    0xCF,
    0xAC,
    0x62,
    0xE4,
    0xB3,
    0x1C,
    0xA9,
    0xC9,
    0x08,
    0xE8,
    0x95,
    0x80,
    0xDF,
    0x94,
    0xFA,
    0x75,
    0x8F,
    0x3F,
    0xA6,
    0x47,
    0x07,
    0xA7,
    0xFC,
    0xF3,
    0x73,
    0x17,
    0xBA,
    0x83,
    0x59,
    0x3C,
    0x19,
    0xE6,
    0x85,
    0x4F,
    0xA8,
    0x68,
    0x6B,
    0x81,
    0xB2,
    0x71,
    0x64,
    0xDA,
    0x8B,
    0xF8,
    0xEB,
    0x0F,
    0x4B,
    0x70,
    0x56,
    0x9D,
    0x35,
    0x1E,
    0x24,
    0x0E,
    0x5E,
    0x63,
    0x58,
    0xD1,
    0xA2,
    0x25,
    0x22,
    0x7C,
    0x3B,
    0x01,
    0x21,
    0x78,
    0x87,
    0xD4,
    0x00,
    0x46,
    0x57,
    0x9F,
    0xD3,
    0x27,
    0x52,
    0x4C,
    0x36,
    0x02,
    0xE7,
    0xA0,
    0xC4,
    0xC8,
    0x9E,
    0xEA,
    0xBF,
    0x8A,
    0xD2,
    0x40,
    0xC7,
    0x38,
    0xB5,
    0xA3,
    0xF7,
    0xF2,
    0xCE,
    0xF9,
    0x61,
    0x15,
    0xA1,
    0xE0,
    0xAE,
    0x5D,
    0xA4,
    0x9B,
    0x34,
    0x1A,
    0x55,
    0xAD,
    0x93,
    0x32,
    0x30,
    0xF5,
    0x8C,
    0xB1,
    0xE3,
    0x1D,
    0xF6,
    0xE2,
    0x2E,
    0x82,
    0x66,
    0xCA,
    0x60,
    0xC0,
    0x29,
    0x23,
    0xAB,
    0x0D,
    0x53,
    0x4E,
    0x6F,
    0xD5,
    0xDB,
    0x37,
    0x45,
    0xDE,
    0xFD,
    0x8E,
    0x2F,
    0x03,
    0xFF,
    0x6A,
    0x72,
    0x6D,
    0x6C,
    0x5B,
    0x51,
    0x8D,
    0x1B,
    0xAF,
    0x92,
    0xBB,
    0xDD,
    0xBC,
    0x7F,
    0x11,
    0xD9,
    0x5C,
    0x41,
    0x1F,
    0x10,
    0x5A,
    0xD8,
    0x0A,
    0xC1,
    0x31,
    0x88,
    0xA5,
    0xCD,
    0x7B,
    0xBD,
    0x2D,
    0x74,
    0xD0,
    0x12,
    0xB8,
    0xE5,
    0xB4,
    0xB0,
    0x89,
    0x69,
    0x97,
    0x4A,
    0x0C,
    0x96,
    0x77,
    0x7E,
    0x65,
    0xB9,
    0xF1,
    0x09,
    0xC5,
    0x6E,
    0xC6,
    0x84,
    0x18,
    0xF0,
    0x7D,
    0xEC,
    0x3A,
    0xDC,
    0x4D,
    0x20,
    0x79,
    0xEE,
    0x5F,
    0x3E,
    0xD7,
    0xCB,
    0x39,
    0x48,
]

SM4_POLY = 0x1F5  # x^8+x^7+x^6+x^5+x^4+x^2+1
AES_POLY = 0x11B  # x^8+x^4+x^3+x+1


def gmul(a, b, poly):
    r = 0
    while b:
        if b & 1:
            r ^= a
        b >>= 1
        a <<= 1
        if a & 0x100:
            a ^= poly
    return r


def ginv(a, poly):
    if a == 0:
        return 0
    r = 1
    for _ in range(254):
        r = gmul(r, a, poly)
    return r


# A matrix is a list of 8 row bitmasks: output bit i = parity(row[i] & x).
def apply(m, x):
    return sum((bin(m[i] & x).count("1") & 1) << i for i in range(8))


def from_fn(f):
    """Matrix of the linear map f (columns are f(1<<j))."""
    cols = [f(1 << j) for j in range(8)]
    return [sum(((cols[j] >> i) & 1) << j for j in range(8)) for i in range(8)]


def compose(a, b):  # a after b
    return from_fn(lambda x: apply(a, apply(b, x)))


def invert(m):
    table = {apply(m, x): x for x in range(256)}
    assert len(table) == 256
    return from_fn(lambda y: table[y])


def circulant(row):
    # output bit i uses input bits (i + k) of `row` rotated
    return [((row << i) | (row >> (8 - i))) & 0xFF for i in range(8)]


# 1. S(x) = A·inv(A·x + C) + C in the SM4 field, A circulant: find A and C.
found = None
for row in range(256):
    a = circulant(row)
    if len({apply(a, x) for x in range(256)}) != 256:
        continue
    for c in range(256):
        if apply(a, ginv(c, SM4_POLY)) ^ c != SBOX[0]:
            continue
        if all(apply(a, ginv(apply(a, x) ^ c, SM4_POLY)) ^ c == SBOX[x] for x in range(256)):
            found = (a, c)
            break
    if found:
        break
A, C = found


# 2. Field isomorphism T: SM4 field -> AES field (x -> beta, beta a root of SM4_POLY).
def poly_eval_aes(p, beta):
    acc, power = 0, 1
    for i in range(9):
        if (p >> i) & 1:
            acc ^= power
        power = gmul(power, beta, AES_POLY)
    return acc


beta = next(b for b in range(2, 256) if poly_eval_aes(SM4_POLY, b) == 0)
powers = [1]
for _ in range(7):
    powers.append(gmul(powers[-1], beta, AES_POLY))
T = from_fn(
    lambda x: (
        [p for j, p in enumerate(powers) if (x >> j) & 1]
        and __import__("functools").reduce(
            lambda u, v: u ^ v, [p for j, p in enumerate(powers) if (x >> j) & 1], 0
        )
    )
)
Tinv = invert(T)
for x in range(256):
    assert apply(T, ginv(x, SM4_POLY)) == ginv(apply(T, x), AES_POLY)

# 3. S(x) = M2·invAES(M1·x + c1) + c2 (GFNI: gf2p8affineqb then gf2p8affineinvqb).
M1 = compose(T, A)
c1 = apply(T, C)
M2 = compose(A, Tinv)
c2 = C
for x in range(256):
    assert apply(M2, ginv(apply(M1, x) ^ c1, AES_POLY)) ^ c2 == SBOX[x]

# 4. AES-NI: SubBytes(y) = Aaes·inv(y) + 0x63, so inv(y) = Aaes^-1·(SubBytes(y) + 0x63)
#    and S(x) = M3·SubBytes(M1·x + c1) + c3.
AAES = from_fn(
    lambda x: (
        x
        ^ ((x << 1 | x >> 7) & 0xFF)
        ^ ((x << 2 | x >> 6) & 0xFF)
        ^ ((x << 3 | x >> 5) & 0xFF)
        ^ ((x << 4 | x >> 4) & 0xFF)
    )
)


def aes_sub(y):
    return apply(AAES, ginv(y, AES_POLY)) ^ 0x63


assert aes_sub(0) == 0x63 and aes_sub(0x53) == 0xED
M3 = compose(M2, invert(AAES))
c3 = apply(M3, 0x63) ^ c2
for x in range(256):
    assert apply(M3, aes_sub(apply(M1, x) ^ c1)) ^ c3 == SBOX[x]


def gfni_qword(m):
    # vgf2p8affineqb: output bit i = parity(byte[7 - i] of the qword & x).
    return sum(m[i] << (8 * (7 - i)) for i in range(8))


def nibble_tables(m, c):
    lo = [apply(m, n) for n in range(16)]
    hi = [apply(m, n << 4) ^ c for n in range(16)]
    return lo, hi


print("SM4 field: A rows", [hex(r) for r in A], "C", hex(C))
print("T (SM4->AES) beta", hex(beta))
print(f"GFNI pre  matrix 0x{gfni_qword(M1):016x} const 0x{c1:02x}")
print(f"GFNI post matrix 0x{gfni_qword(M2):016x} const 0x{c2:02x}")
for name, (m, c) in {"AESNI pre": (M1, c1), "AESNI post": (M3, c3)}.items():
    lo, hi = nibble_tables(m, c)
    print(name, "lo", ", ".join(f"0x{v:02x}" for v in lo))
    print(name, "hi", ", ".join(f"0x{v:02x}" for v in hi))
print("soft: A rows (bit masks)", ", ".join(f"0x{r:02x}" for r in A), "C", hex(C))


# 5. Portable (soft.rs): inversion in a tower field GF((2^4)^2), which costs a fraction of
#    the gates of x^254. GF(16) = GF(2)[z]/(z^4 + z + 1); GF(256) = GF(16)[y]/(y^2 + y + λ);
#    an element a·y + b is stored with b in bits 0..3 and a in bits 4..7.
def g16mul(a, b):
    r = 0
    for i in range(4):
        if (b >> i) & 1:
            r ^= a << i
    for k in (6, 5, 4):
        if (r >> k) & 1:
            r ^= (1 << k) | (0b11 << (k - 4))
    return r


def g16inv(a):
    r = 1
    for _ in range(14):
        r = g16mul(r, a)
    return r


LAMBDA = next(c for c in range(1, 16) if all(g16mul(v, v) ^ v != c for v in range(16)))


def tmul(x, w):
    a1, b1, a2, b2 = x >> 4, x & 15, w >> 4, w & 15
    aa = g16mul(a1, a2)
    hi = aa ^ g16mul(a1, b2) ^ g16mul(a2, b1)
    lo = g16mul(aa, LAMBDA) ^ g16mul(b1, b2)
    return (hi << 4) | lo


def tinv(x):
    a, b = x >> 4, x & 15
    delta = g16mul(g16mul(a, a), LAMBDA) ^ g16mul(a, b) ^ g16mul(b, b)
    d = g16inv(delta)
    return (g16mul(a, d) << 4) | g16mul(a ^ b, d)


for x in range(1, 256):
    assert tmul(x, tinv(x)) == 1


def tpow(x, e):
    r = 1
    for _ in range(e):
        r = tmul(r, x)
    return r


def teval(poly, g):
    acc = 0
    for i in range(9):
        if (poly >> i) & 1:
            acc ^= tpow(g, i)
    return acc


gamma = next(g for g in range(2, 256) if teval(SM4_POLY, g) == 0)
PHI = from_fn(
    lambda x: __import__("functools").reduce(
        lambda u, v: u ^ v, [tpow(gamma, j) for j in range(8) if (x >> j) & 1], 0
    )
)
PHI_INV = invert(PHI)
for x in range(256):
    assert apply(PHI, ginv(x, SM4_POLY)) == tinv(apply(PHI, x))
TIN = compose(PHI, A)
TIN_C = apply(PHI, C)
TOUT = compose(A, PHI_INV)
for x in range(256):
    assert apply(TOUT, tinv(apply(TIN, x) ^ TIN_C)) ^ C == SBOX[x]
print("tower: lambda", hex(LAMBDA), "gamma", hex(gamma))
print("tower in rows", ", ".join(f"0x{r:02x}" for r in TIN), "const", hex(TIN_C))
print("tower out rows", ", ".join(f"0x{r:02x}" for r in TOUT), "const", hex(C))


# 6. The serial (one block at a time) AES-NI path of x86_avx2.rs keeps the state in another
#    basis, so that a round is `aesenclast` followed by one linear map on 32 bits.
#    With L(s) = s ^ s<<<2 ^ s<<<10 ^ s<<<18 ^ s<<<24 and the bytewise linear maps M1, M3
#    above: G = L·M3 and N = M1·L·M3 (both commute with rotations by whole bytes, so each
#    is the XOR of four bytewise maps of x, x<<<8, x<<<16, x<<<24). The state words are
#    V_j = G^-1(X_j), the input of round i's S-boxes is y_i = N(V_{i+1}^V_{i+2}^V_{i+3}^rho_i)
#    with rho_i = G^-1(rk_i) ^ N^-1(c1 in every byte), and
#        z'_i = SubBytes(y_i) ^ kk_i,  kk_i = V_i ^ V_{i+2} ^ V_{i+3} ^ rho_{i+1} ^ kappa,
#        y_{i+1} = N(z'_i),  V_{i+4} = z'_i ^ V_{i+2} ^ V_{i+3} ^ rho_{i+1}
#    (kappa = M3^-1·c3 in every byte; the last round takes kk = V_31 ^ kappa, so that
#    z' = V_35), and the output words are X_j = G(V_j).
def rol32(x, k):
    return ((x << k) | (x >> (32 - k))) & 0xFFFFFFFF


def bytewise(f, w):
    return sum(f((w >> (8 * j)) & 0xFF) << (8 * j) for j in range(4))


def L32(s):
    return s ^ rol32(s, 2) ^ rol32(s, 10) ^ rol32(s, 18) ^ rol32(s, 24)


def G32(v):
    return L32(bytewise(lambda b: apply(M3, b), v))


def N32(v):
    return bytewise(lambda b: apply(M1, b), G32(v))


def inverse32(f):
    # Gaussian elimination over GF(2) on the 32 columns f(1 << j).
    rows = [[(f(1 << c) >> r) & 1 for c in range(32)] + [int(r == k) for k in range(32)] for r in range(32)]
    for c in range(32):
        p = next(r for r in range(c, 32) if rows[r][c])
        rows[c], rows[p] = rows[p], rows[c]
        for r in range(32):
            if r != c and rows[r][c]:
                rows[r] = [u ^ v for u, v in zip(rows[r], rows[c], strict=True)]
    cols = [sum(rows[r][32 + k] << r for r in range(32)) for k in range(32)]
    return lambda y: __import__("functools").reduce(
        lambda u, k: u ^ (cols[k] if (y >> k) & 1 else 0), range(32), 0
    )


G32_INV = inverse32(G32)
N32_INV = inverse32(N32)


def byte_maps(f):
    # f(x) = XOR over d of rol32(C_d(x bytewise), 8d), C_d read off single-byte inputs.
    maps = [[(f(b) >> (8 * d)) & 0xFF for b in range(256)] for d in range(4)]
    for w in (0x01234567, 0x89ABCDEF, 0xDEADBEEF, 0x0F1E2D3C):
        acc = 0
        for d in range(4):
            acc ^= (
                rol32(bytewise(lambda b, d=d: maps[d][b], w), 8 * d)
                if d
                else bytewise(lambda b: maps[0][b], w)
            )
        assert acc == f(w)
    return maps


def sm4_rounds_reference(rk, x):
    x = list(x)
    for i in range(32):
        t = x[i + 1] ^ x[i + 2] ^ x[i + 3] ^ rk[i]
        x.append(x[i] ^ L32(bytewise(lambda b: SBOX[b], t)))
    return x[35], x[34], x[33], x[32]


KAPPA = apply(invert(M3), c3)
RHO_C = N32_INV(c1 * 0x01010101)


def sm4_rounds_basis(rk, x):
    rho = [G32_INV(r) ^ RHO_C for r in rk]
    kappa = KAPPA * 0x01010101
    v = [G32_INV(w) for w in x]
    y = N32(v[1] ^ v[2] ^ v[3] ^ rho[0])
    for i in range(32):
        u = v[i + 2] ^ v[i + 3] ^ rho[i + 1] if i < 31 else 0
        kk = u ^ v[i] ^ kappa
        z = bytewise(aes_sub, y) ^ kk
        v.append(z ^ u)
        y = N32(z)
    return tuple(G32(v[j]) for j in (35, 34, 33, 32))


_state = 0x2545F491
for _ in range(16):
    words = []
    for _ in range(36):
        _state = (_state * 6364136223846793005 + 1442695040888963407) & ((1 << 64) - 1)
        words.append(_state >> 32)
    assert sm4_rounds_basis(words[:32], words[32:]) == sm4_rounds_reference(words[:32], words[32:])

for name, f, ds in (("N", N32, (0, 1, 3)), ("G", G32, (0, 1, 3)), ("GINV", G32_INV, (0, 1, 2, 3))):
    maps = byte_maps(f)
    assert maps[1] == maps[2] or 2 in ds
    for d in ds:
        lo, hi = nibble_tables(from_fn(lambda b, d=d, maps=maps: maps[d][b]), 0)
        print(f"serial {name}{d} lo", ", ".join(f"0x{v:02x}" for v in lo))
        print(f"serial {name}{d} hi", ", ".join(f"0x{v:02x}" for v in hi))
print(f"serial kappa 0x{KAPPA:02x} rho constant 0x{RHO_C:08x}")
