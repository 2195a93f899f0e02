//! Peer certificate checks: parsing, key usages, the two paths to one trust anchor,
//! revocation, and the server name.

use crate::config::Trust;
use crate::error::{AlertDescription, Error, Result};
use guomi_core::sm2::PublicKey;
use guomi_formats::x509::{verify_chain_with_crls, Certificate, ChainError, GeneralNameValue};

const DIGITAL_SIGNATURE: u16 = 1 << 0;
const KEY_ENCIPHERMENT: u16 = 1 << 2;
const KEY_AGREEMENT: u16 = 1 << 4;

/// A verified peer: its certificates (as received) and the two public keys.
pub(crate) struct Peer {
    pub certs: Vec<Certificate>,
    pub sign_key: PublicKey,
    pub enc_key: Option<PublicKey>,
}

fn now(trust: &Trust) -> i64 {
    trust.time.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0)
    })
}

fn chain_alert(e: &ChainError) -> AlertDescription {
    if e.reason.contains("revoked") {
        AlertDescription::CertificateRevoked
    } else if e.reason.contains("expired") || e.reason.contains("not yet valid") {
        AlertDescription::CertificateExpired
    } else if e.reason.contains("issuer") || e.reason.contains("trust") {
        AlertDescription::UnknownCa
    } else {
        AlertDescription::BadCertificate
    }
}

fn usage(c: &Certificate, bits: u16, role: &str, need: &str) -> Result<()> {
    match c.key_usage() {
        Ok(Some(ku)) if ku.0 & bits == 0 => Err(Error::cert(
            AlertDescription::UnsupportedCertificate,
            format!(
                "{role} certificate \"{}\" does not allow {need}",
                c.subject()
            ),
        )),
        Ok(_) => Ok(()),
        Err(_) => Err(Error::cert(
            AlertDescription::BadCertificate,
            format!("{role} certificate \"{}\": malformed keyUsage", c.subject()),
        )),
    }
}

/// Checks a received certificate list: signing certificate first; with `need_enc` the
/// encryption certificate second; the rest are intermediates. With `verify`, both
/// certificates must chain to trust (with `trust.crls`) and to the same anchor; key
/// usages are always checked.
pub(crate) fn check_peer(
    ders: &[Vec<u8>],
    need_enc: bool,
    verify: bool,
    trust: &Trust,
    role: &str,
) -> Result<Peer> {
    let certs = ders
        .iter()
        .map(|d| Certificate::from_der(d))
        .collect::<core::result::Result<Vec<_>, _>>()
        .map_err(|e| {
            Error::cert(
                AlertDescription::BadCertificate,
                format!("{role} certificate does not parse: {e}"),
            )
        })?;
    if certs.is_empty() || (need_enc && certs.len() < 2) {
        return Err(Error::cert(
            AlertDescription::BadCertificate,
            format!("{role} must send its signing and encryption certificates"),
        ));
    }
    let sign = &certs[0];
    usage(sign, DIGITAL_SIGNATURE, "signing", "digitalSignature")?;
    let (enc, rest) = if need_enc {
        usage(
            &certs[1],
            KEY_ENCIPHERMENT | KEY_AGREEMENT,
            "encryption",
            "keyEncipherment or keyAgreement",
        )?;
        (Some(&certs[1]), &certs[2..])
    } else {
        (None, &certs[1..])
    };
    if verify {
        let at = now(trust);
        let path = |c: &Certificate| {
            verify_chain_with_crls(
                c,
                rest,
                &trust.roots,
                at,
                None,
                &trust.crls,
                trust.require_crls,
            )
            .map_err(|e| Error::cert(chain_alert(&e), format!("{role}: {e}")))
        };
        let sign_path = path(sign)?;
        if let Some(enc) = enc {
            let enc_path = path(enc)?;
            let (a, b) = (sign_path.last(), enc_path.last());
            if a.map(|c| c.to_der()) != b.map(|c| c.to_der()) {
                return Err(Error::cert(
                    AlertDescription::BadCertificate,
                    format!("{role}: signing and encryption certificates chain to different trust anchors"),
                ));
            }
        }
    }
    let key = |c: &Certificate| {
        c.public_key().map_err(|_| {
            Error::cert(
                AlertDescription::UnsupportedCertificate,
                format!(
                    "{role} certificate \"{}\" has no SM2 public key",
                    c.subject()
                ),
            )
        })
    };
    let sign_key = key(sign)?;
    let enc_key = match enc {
        Some(c) => Some(key(c)?),
        None => None,
    };
    Ok(Peer {
        sign_key,
        enc_key,
        certs,
    })
}

/// RFC 6125 matching of `name` against the certificate's subjectAltName: dNSName
/// (case-insensitive; a `*` only as the whole left-most label, matching one label) or
/// iPAddress when `name` is an IP address. The subject CN is not consulted; a
/// certificate without subjectAltName fails.
pub(crate) fn check_hostname(cert: &Certificate, name: &str) -> Result<()> {
    let fail = |why: &str| {
        Err(Error::cert(
            AlertDescription::BadCertificate,
            format!(
                "server certificate \"{}\" does not match \"{name}\": {why}",
                cert.subject()
            ),
        ))
    };
    let sans = match cert.subject_alt_names() {
        Ok(Some(s)) => s,
        Ok(None) => return fail("no subjectAltName"),
        Err(_) => return fail("malformed subjectAltName"),
    };
    let ip: Option<Vec<u8>> = name.parse::<std::net::IpAddr>().ok().map(|a| match a {
        std::net::IpAddr::V4(v) => v.octets().to_vec(),
        std::net::IpAddr::V6(v) => v.octets().to_vec(),
    });
    for san in &sans {
        match (san, &ip) {
            (GeneralNameValue::Ip(b), Some(want)) if b == want => return Ok(()),
            (GeneralNameValue::Dns(d), None) if dns_matches(d, name) => return Ok(()),
            _ => {}
        }
    }
    fail("no subjectAltName entry matches")
}

fn dns_matches(pattern: &str, name: &str) -> bool {
    let name = name.strip_suffix('.').unwrap_or(name);
    let pattern = pattern.strip_suffix('.').unwrap_or(pattern);
    if name.is_empty() || pattern.is_empty() {
        return false;
    }
    if let Some(suffix) = pattern.strip_prefix("*.") {
        // One whole label, and the rest must have at least two labels.
        if suffix.contains('*') || !suffix.contains('.') {
            return false;
        }
        match name.split_once('.') {
            Some((first, rest)) => !first.is_empty() && rest.eq_ignore_ascii_case(suffix),
            None => false,
        }
    } else {
        !pattern.contains('*') && pattern.eq_ignore_ascii_case(name)
    }
}

#[cfg(test)]
mod tests {
    use super::dns_matches;

    #[test]
    fn dns_patterns() {
        assert!(dns_matches("gw.example.cn", "GW.example.cn"));
        assert!(dns_matches("*.example.cn", "gw.example.cn"));
        assert!(!dns_matches("*.example.cn", "a.gw.example.cn"));
        assert!(!dns_matches("*.example.cn", "example.cn"));
        assert!(!dns_matches("*.cn", "example.cn"));
        assert!(!dns_matches("g*.example.cn", "gw.example.cn"));
        assert!(!dns_matches("gw.example.cn", "gw.example.com"));
    }
}
