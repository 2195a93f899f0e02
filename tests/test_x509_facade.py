"""guomi.x509's certificate, CRL and request classes are the native ones, re-exported (one
facade pattern, as guomi.sm2): same objects, documented once, pickled by DER."""

from __future__ import annotations

import copy
import pickle
from datetime import datetime, timedelta, timezone

import pytest

import guomi._native.x509 as native
from guomi import sm2, x509
from guomi.exceptions import InvalidSignature, UnsupportedFormat

KEY = sm2.PrivateKey.generate()
CA = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(KEY)
CRL = x509.CRLBuilder(crl_number=2).revoke(7, reason="superseded").sign(CA, KEY)
CSR = x509.CertificateSigningRequestBuilder(subject="CN=r", subject_alternative_names=["ip:::1"]).sign(KEY)


@pytest.mark.parametrize("name", ["Certificate", "CertificateRevocationList", "CertificateSigningRequest"])
def test_public_classes_are_the_native_ones(name: str) -> None:
    cls = getattr(x509, name)
    assert cls is getattr(native, name)
    assert (cls.__module__, cls.__qualname__) == ("guomi.x509", name)
    assert cls.__doc__ and ">>>" in cls.__doc__
    with pytest.raises(TypeError):
        cls()
    assert not hasattr(native, "Native" + name)


def test_loaders_are_the_native_ones() -> None:
    assert x509.load_pem_certificates is native.load_pem_certificates
    assert x509.load_pem_crls is native.load_pem_crls
    assert x509.load_pem_certificates(CA.to_pem() + CRL.to_pem()) == [CA]
    assert x509.load_pem_crls(CA.to_pem() + CRL.to_pem()) == [CRL]
    with pytest.raises(TypeError):
        x509.load_pem_certificates(12)  # type: ignore[arg-type]


@pytest.mark.parametrize("obj", [CA, CRL, CSR], ids=["cert", "crl", "csr"])
def test_pickle_and_copy_round_trip_by_der(obj: object) -> None:
    for again in (pickle.loads(pickle.dumps(obj)), copy.copy(obj), copy.deepcopy(obj)):
        assert type(again) is type(obj)
        assert again.to_der() == obj.to_der()  # type: ignore[attr-defined]


def test_value_types_built_by_the_native_getters() -> None:
    assert CA.basic_constraints == x509.BasicConstraints(True, None)
    assert all(isinstance(e, x509.Extension) for e in CA.extensions + CRL.extensions)
    entry = CRL.revoked_certificates[0]
    assert isinstance(entry, x509.RevokedCertificate)
    assert (entry.serial_number, entry.reason, entry.invalidity_date) == (7, "superseded", None)
    assert entry.revocation_date == CRL.last_update
    assert CRL.get_revoked(7) == entry and CRL.get_revoked(8) is None and CRL.get_revoked("7") is None
    assert isinstance(CA.public_key(), sm2.PublicKey) and isinstance(CSR.public_key(), sm2.PublicKey)
    assert CSR.subject_alternative_names == [("ip", "::1")]
    assert CA.key_usage == frozenset({"digitalSignature", "keyCertSign", "cRLSign"})


def test_times_and_bad_arguments() -> None:
    start = CA.not_valid_before
    assert start.tzinfo is timezone.utc
    assert CA.is_valid_at(start) and CA.is_valid_at(start.replace(tzinfo=None))
    assert not CA.is_valid_at(start - timedelta(seconds=1))
    assert CA.is_valid_at(datetime.now(timezone(timedelta(hours=8))))
    with pytest.raises(TypeError):
        CA.is_valid_at(0)  # type: ignore[arg-type]
    for call in (CA.verify_signature, CRL.verify_signature, CRL.is_signature_valid):
        with pytest.raises(TypeError, match="Certificate or an sm2.PublicKey"):
            call(KEY)  # type: ignore[arg-type]
    other = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(sm2.PrivateKey.generate())
    with pytest.raises(InvalidSignature):
        CA.verify_signature(other)
    assert CRL.is_signature_valid(CA.public_key()) and not CRL.is_signature_valid(other)
    with pytest.raises(ValueError):
        CA.fingerprint("no-such-hash")
    with pytest.raises(UnsupportedFormat):
        x509.CertificateSigningRequest.from_der(b"0")
