"""Every argument with a bad value, across the public API, raises a ``GuomiError``,
so ``except guomi.exceptions.GuomiError`` catches them all; argument errors are
``InvalidArgument``, which is also a ``ValueError`` for code written against that."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from typing import Any

import pytest

from guomi import cms, envelope, keys, pkcs12, sm2, sm3, sm4, sm9, x509, zuc
from guomi._fileio import transform_file
from guomi.exceptions import GuomiError, InvalidArgument

KEY16 = bytes(range(16))
PRIV = sm2.PrivateKey.generate()
PUB = PRIV.public_key()
CERT = x509.CertificateBuilder(subject="CN=t").self_sign(PRIV)
CA_CERT = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(PRIV)
SM9_SIGN = sm9.SignMasterKey.generate()


def _same_file() -> None:
    d = tempfile.mkdtemp()
    path = os.path.join(d, "f")
    with open(path, "wb") as f:
        f.write(b"data")
    transform_file(path, path, envelope.Sealer(key=KEY16), force=True)


CASES: dict[str, Callable[[], Any]] = {
    # sm2
    "sm2.verify_many threads=-1": lambda: sm2.verify_many([(PUB, PRIV.sign(b"m"), b"m")], threads=-1),
    "sm2.sign format": lambda: PRIV.sign(b"m", format="pem"),
    "sm2.uid too long": lambda: sm2.compute_z(PUB, bytes(8192)),
    "sm2.convert_ciphertext order": lambda: sm2.convert_ciphertext(PUB.encrypt(b"m"), to="c2c1c3"),
    "sm2.ciphertext_raw_to_der order": lambda: sm2.ciphertext_raw_to_der(PUB.encrypt(b"m"), order="x"),
    "sm2.encapsulate key_length": lambda: sm2.encapsulate(PUB, -1),
    "sm2.encapsulate key_length 0": lambda: sm2.encapsulate(PUB, 0),
    "sm2.decapsulate key_length": lambda: sm2.decapsulate(PRIV, PUB.to_bytes(), -1),
    "sm2.to_pem iterations": lambda: PRIV.to_pem(password="pw", iterations=0),
    "sm2.from_hex": lambda: sm2.PrivateKey.from_hex("zz"),
    # sm3
    "sm3.hash_many threads": lambda: sm3.hash_many([b"a"], threads=-1),
    "sm3.kdf length": lambda: sm3.kdf(b"z", -1),
    "sm3.pbkdf2 iterations": lambda: sm3.pbkdf2_hmac(b"pw", b"salt", 0),
    "sm3.hkdf length": lambda: sm3.hkdf(b"ikm", -1),
    # sm4
    "sm4.encrypt mode": lambda: sm4.encrypt(KEY16, b"m", mode="xyz"),
    "sm4.encrypt padding": lambda: sm4.encrypt(KEY16, b"m", mode="cbc", iv=KEY16, padding="nope"),
    "sm4.encrypt key length": lambda: sm4.encrypt(bytes(15), b"m", mode="ecb"),
    "sm4.cmac tag_length": lambda: sm4.cmac(KEY16, b"m", tag_length=17),
    "sm4.xts standard": lambda: sm4.xts_encrypt(KEY16 + bytes(16), bytes(16), bytes(16), standard="x"),
    "sm4.xts equal halves": lambda: sm4.xts_encrypt(KEY16 + KEY16, bytes(16), bytes(16)),
    # zuc
    "zuc.eea3 bearer": lambda: zuc.eea3(KEY16, 0, 32, 0, b"m"),
    "zuc.eea3 direction": lambda: zuc.eea3(KEY16, 0, 0, 2, b"m"),
    "zuc.eea3 count": lambda: zuc.eea3(KEY16, 1 << 32, 0, 0, b"m"),
    "zuc.keystream words": lambda: zuc.keystream(KEY16, KEY16, -1),
    # sm9
    "sm9.sign format": lambda: SM9_SIGN.extract(b"alice").sign(b"m", format="pem"),
    "sm9.ciphertext_to_der cipher": lambda: sm9.ciphertext_to_der(b"x" * 200, cipher="nope"),
    # envelope and files
    "envelope.Sealer iterations": lambda: envelope.Sealer(password=b"pw", iterations=0),
    "envelope.Sealer chunk_size": lambda: envelope.Sealer(key=KEY16, chunk_size=1000),
    "transform_file same file": _same_file,
    # keys, pkcs12, cms
    "keys.dump_pem_private_key prf": lambda: keys.dump_pem_private_key(PRIV, b"pw", prf="hmac-md5"),
    "keys.dump_pem_private_key iterations": lambda: keys.dump_pem_private_key(PRIV, b"pw", iterations=0),
    "pkcs12.dump iterations": lambda: pkcs12.dump(PRIV, CERT, [], b"pw", iterations=0),
    "pkcs12.dump encryption": lambda: pkcs12.dump(PRIV, CERT, [], b"pw", encryption="des"),
    "cms.sign format": lambda: cms.sign(b"m", PRIV, CERT, format="xml"),
    "cms.encrypt cipher": lambda: cms.encrypt(b"m", [CERT], cipher="rc4"),
    # x509
    "x509.Certificate.from_pem": lambda: x509.Certificate.from_pem("-----BEGIN CERTIFICATE-----\n"),
}

# Argument errors of the x509 builders (a bare ValueError before; InvalidArgument now).
X509_BUILDER_ERRORS: dict[str, Callable[[], Any]] = {
    "x509 san kind": lambda: (
        x509.CertificateBuilder(subject="CN=t").with_subject_alternative_names(["xyz:a"]).self_sign(PRIV)
    ),
    "x509 san form": lambda: (
        x509.CertificateBuilder(subject="CN=t").with_subject_alternative_names(["a"]).self_sign(PRIV)
    ),
    "x509 san ip": lambda: (
        x509.CertificateBuilder(subject="CN=t")
        .with_subject_alternative_names(["ip:300.1.1.1"])
        .self_sign(PRIV)
    ),
    "x509 serial": lambda: x509.CertificateBuilder(subject="CN=t").serial(0).self_sign(PRIV),
    "x509 path_length": lambda: x509.CertificateBuilder(subject="CN=t").ca(256).self_sign(PRIV),
    "x509 no subject": lambda: x509.CertificateBuilder().self_sign(PRIV),
    "x509 crl number": lambda: x509.CRLBuilder(crl_number=-1).sign(CA_CERT, PRIV),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_argument_values_raise_guomi_errors(name: str) -> None:
    with pytest.raises(Exception) as info:
        CASES[name]()
    assert isinstance(info.value, GuomiError), (name, type(info.value), info.value)


@pytest.mark.parametrize("name", sorted(X509_BUILDER_ERRORS))
def test_x509_argument_errors(name: str) -> None:
    with pytest.raises(InvalidArgument):
        X509_BUILDER_ERRORS[name]()


def test_invalid_argument_is_still_a_value_error() -> None:
    assert issubclass(InvalidArgument, ValueError)
    assert issubclass(InvalidArgument, GuomiError)
    with pytest.raises(ValueError):
        sm2.verify_many([], threads=-1)
