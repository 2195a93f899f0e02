"""A small SM2 PKI for the TLS tests: a CA, a server's and a client's double certificates
(signing: digitalSignature; encryption: keyEncipherment + keyAgreement), all for
``localhost`` / 127.0.0.1, made with guomi's builders."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from guomi import sm2, x509


@dataclasses.dataclass
class Identity:
    sign_cert: x509.Certificate
    sign_key: sm2.PrivateKey
    enc_cert: x509.Certificate
    enc_key: sm2.PrivateKey


@dataclasses.dataclass
class Pki:
    ca: x509.Certificate
    ca_key: sm2.PrivateKey
    server: Identity
    client: Identity

    def issue(
        self,
        cn: str,
        usages: Sequence[str],
        san: Sequence[str] = ("dns:localhost", "ip:127.0.0.1"),
        days: int = 30,
        issuer: x509.Certificate | None = None,
        issuer_key: sm2.PrivateKey | None = None,
    ) -> tuple[x509.Certificate, sm2.PrivateKey]:
        key = sm2.PrivateKey.generate()
        b = x509.CertificateBuilder(subject=f"CN={cn},O=guomi tls tests", public_key=key.public_key())
        b = b.with_key_usage(list(usages)).valid_for_days(days)
        if san:
            b = b.with_subject_alternative_names(list(san))
        return b.sign(issuer or self.ca, issuer_key or self.ca_key), key

    def identity(self, cn: str) -> Identity:
        sc, sk = self.issue(cn, ["digitalSignature"])
        ec, ek = self.issue(cn, ["keyEncipherment", "keyAgreement"])
        return Identity(sc, sk, ec, ek)


def make_pki(name: str = "guomi TLS test CA") -> Pki:
    ca_key = sm2.PrivateKey.generate()
    ca = (
        x509.CertificateBuilder(subject=f"CN={name}")
        .ca()
        .with_key_usage(["keyCertSign", "cRLSign"])
        .valid_for_days(30)
        .self_sign(ca_key)
    )
    pki = Pki(ca, ca_key, None, None)  # type: ignore[arg-type]
    pki.server = pki.identity("localhost")
    pki.client = pki.identity("client")
    return pki
