//! Certification-path validation (RFC 5280 §6.1, the parts an SM2 PKI relies on).
//!
//! A path is built from the leaf upwards: each next certificate is one whose subject is
//! the current certificate's issuer (exact Name match) and whose key verifies the current
//! certificate's SM2-with-SM3 signature, taken from the trust roots first, then from the
//! untrusted intermediates; dead ends are backtracked. Every certificate on the path must
//! be within its validity period at the given time; every issuer must have
//! basicConstraints cA=TRUE, keyCertSign when it has a keyUsage extension, and a
//! pathLenConstraint not smaller than the number of intermediate CA certificates below it
//! (§6.1.4 (l)-(n)); no certificate may carry a critical extension guomi does not
//! understand (§6.1.3... (o)). With a purpose, a leaf extKeyUsage must list it (or
//! anyExtendedKeyUsage).
//!
//! Not checked: revocation (CRL/OCSP), name constraints and certificate policies (a
//! critical one fails the path as unsupported).

use super::cert::Certificate;
use super::oid;
use der::asn1::ObjectIdentifier;
use std::fmt;

/// Why a path does not validate, naming the certificate at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainError {
    /// Subject (RFC 4514) of the failing certificate.
    pub subject: String,
    /// What is wrong.
    pub reason: String,
    /// Position on the path being built: 0 = leaf, 1 = its issuer, ...
    pub depth: usize,
}

impl fmt::Display for ChainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "certificate \"{}\": {}", self.subject, self.reason)
    }
}

impl std::error::Error for ChainError {}

const MAX_DEPTH: usize = 16;

fn fail(c: &Certificate, depth: usize, reason: impl Into<String>) -> ChainError {
    ChainError {
        subject: c.subject(),
        reason: reason.into(),
        depth,
    }
}

fn date(secs: i64) -> String {
    match super::cert::x509_time(secs) {
        Ok(t) => t.to_date_time().to_string(),
        Err(_) => format!("{secs} (Unix time)"),
    }
}

const KNOWN_EXTENSIONS: [&str; 6] = [
    "2.5.29.19", // basicConstraints
    "2.5.29.15", // keyUsage
    "2.5.29.37", // extKeyUsage
    "2.5.29.17", // subjectAltName
    "2.5.29.14", // subjectKeyIdentifier
    "2.5.29.35", // authorityKeyIdentifier
];

/// Checks that hold for every certificate on the path: validity at `at`, no unknown
/// critical extension, extensions that parse.
fn check_common(c: &Certificate, depth: usize, at: i64) -> Result<(), ChainError> {
    if at < c.not_before() {
        return Err(fail(
            c,
            depth,
            format!("not yet valid (valid from {})", date(c.not_before())),
        ));
    }
    if at > c.not_after() {
        return Err(fail(
            c,
            depth,
            format!("expired (valid until {})", date(c.not_after())),
        ));
    }
    for e in c.raw_extensions() {
        let id = e.extn_id.to_string();
        if e.critical && !KNOWN_EXTENSIONS.contains(&id.as_str()) {
            return Err(fail(
                c,
                depth,
                format!("unsupported critical extension {id}"),
            ));
        }
    }
    for r in [
        c.basic_constraints().map(|_| ()),
        c.key_usage().map(|_| ()),
        c.extended_key_usage().map(|_| ()),
    ] {
        r.map_err(|_| fail(c, depth, "malformed or repeated extension"))?;
    }
    Ok(())
}

/// Checks that hold for an issuer at `depth` (>= 1) of the path.
fn check_issuer(c: &Certificate, depth: usize) -> Result<(), ChainError> {
    match c.basic_constraints() {
        Ok(Some((true, path_len))) => {
            // Intermediate CA certificates below this one: depth - 1 (the leaf excluded).
            if let Some(n) = path_len {
                if depth - 1 > n as usize {
                    return Err(fail(
                        c,
                        depth,
                        format!(
                            "path length constraint exceeded (pathLenConstraint {n}, \
                             {} intermediate CA certificate(s) below it)",
                            depth - 1
                        ),
                    ));
                }
            }
        }
        _ => return Err(fail(
            c,
            depth,
            "is not a CA certificate (basicConstraints cA is not TRUE) but issued a certificate",
        )),
    }
    if let Ok(Some(ku)) = c.key_usage() {
        if !ku.key_cert_sign() {
            return Err(fail(c, depth, "keyUsage does not allow keyCertSign"));
        }
    }
    Ok(())
}

struct Search<'a> {
    intermediates: &'a [Certificate],
    roots: &'a [Certificate],
    at: i64,
    best: Option<ChainError>,
}

impl<'a> Search<'a> {
    fn note(&mut self, e: ChainError) {
        if self.best.as_ref().is_none_or(|b| e.depth >= b.depth) {
            self.best = Some(e);
        }
    }

    fn extend(&mut self, path: &mut Vec<&'a Certificate>) -> bool {
        let cur = *path.last().expect("path starts with the leaf");
        let depth = path.len() - 1;
        if self.roots.iter().any(|r| r == cur) {
            return true;
        }
        if path.len() > MAX_DEPTH {
            self.note(fail(cur, depth, "certification path too long"));
            return false;
        }
        let candidates: Vec<(&'a Certificate, bool)> = self
            .roots
            .iter()
            .map(|c| (c, true))
            .chain(self.intermediates.iter().map(|c| (c, false)))
            .filter(|(c, _)| c.name() == cur.issuer_name() && !path.contains(c))
            .collect();
        if candidates.is_empty() {
            let reason = if cur.is_self_issued() && cur.verify_signature(cur).is_ok() {
                "self-signed certificate is not among the trust roots".to_string()
            } else {
                format!(
                    "issuer \"{}\" not found among the intermediates and trust roots",
                    cur.issuer()
                )
            };
            self.note(fail(cur, depth, reason));
            return false;
        }
        for (cand, is_root) in candidates {
            let key = match cand.public_key() {
                Ok(k) => k,
                Err(_) => {
                    self.note(fail(cand, depth + 1, "public key is not an SM2 key"));
                    continue;
                }
            };
            if let Err(e) = cur.verify_signature_with(&key) {
                let reason = match e {
                    crate::Error::UnsupportedFormat(m) => m.to_string(),
                    _ => format!(
                        "signature does not verify with the key of issuer \"{}\"",
                        cand.subject()
                    ),
                };
                self.note(fail(cur, depth, reason));
                continue;
            }
            if let Err(e) = check_common(cand, depth + 1, self.at) {
                self.note(e);
                continue;
            }
            if let Err(e) = check_issuer(cand, depth + 1) {
                self.note(e);
                continue;
            }
            path.push(cand);
            if is_root || self.extend(path) {
                return true;
            }
            path.pop();
        }
        false
    }
}

/// Validates `leaf` up to one of `roots` at Unix time `at`, using `intermediates` as
/// needed. Returns the path, leaf first, trust root last.
pub fn verify_chain(
    leaf: &Certificate,
    intermediates: &[Certificate],
    roots: &[Certificate],
    at: i64,
    purpose: Option<ObjectIdentifier>,
) -> Result<Vec<Certificate>, ChainError> {
    if roots.is_empty() {
        return Err(fail(leaf, 0, "no trust roots given"));
    }
    check_common(leaf, 0, at)?;
    if let Some(p) = purpose {
        match leaf.extended_key_usage() {
            Ok(Some(ekus))
                if !ekus.contains(&p) && !ekus.contains(&oid::ANY_EXTENDED_KEY_USAGE) =>
            {
                return Err(fail(
                    leaf,
                    0,
                    format!("extKeyUsage does not allow {}", super::eku_name(&p)),
                ));
            }
            _ => {}
        }
    }
    let mut search = Search {
        intermediates,
        roots,
        at,
        best: None,
    };
    let mut path = vec![leaf];
    if search.extend(&mut path) {
        return Ok(path.into_iter().cloned().collect());
    }
    Err(search
        .best
        .unwrap_or_else(|| fail(leaf, 0, "no certification path to a trust root")))
}
