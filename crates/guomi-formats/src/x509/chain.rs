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
//!
//! Path building is bounded, whatever the input (in the spirit of RFC 4158):
//! * for each candidate issuer the cheap checks (name match, validity, extensions,
//!   basicConstraints / keyUsage / pathLenConstraint) run before its signature is checked;
//! * each (certificate, issuer public key) signature is checked at most once per call;
//! * a certificate already on the path is not used again, nor is one that repeats the
//!   subject name and public key of an issuer on the path (a loop, RFC 4158 §5.2);
//! * at most [`MAX_CERTIFICATES`] intermediates and roots together, at most
//!   [`MAX_PATH_LEN`] certificates on a path, at most [`MAX_SIGNATURE_CHECKS`] signature
//!   verifications and [`MAX_CANDIDATE_STEPS`] candidate examinations per call. Past a
//!   work cap the call fails with a [`ChainError`] whose reason starts with [`GAVE_UP`].

use super::cert::Certificate;
use super::oid;
use der::asn1::ObjectIdentifier;
use guomi_core::sm2::PublicKey;
use std::collections::{HashMap, HashSet};
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

/// At most this many certificates on a certification path, the leaf and the trust root
/// included.
pub const MAX_PATH_LEN: usize = 16;
/// At most this many certificates in `intermediates` and `roots` together.
pub const MAX_CERTIFICATES: usize = 1024;
/// At most this many SM2 signature verifications per [`verify_chain`] call.
pub const MAX_SIGNATURE_CHECKS: usize = 100;
/// At most this many candidate issuers examined per [`verify_chain`] call.
pub const MAX_CANDIDATE_STEPS: usize = 4096;
/// How the reason of every search cut short by a work cap starts.
pub const GAVE_UP: &str = "certification path building gave up";

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

/// The outcome of one signature check.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Signed {
    Yes,
    /// The issuer's key is not an SM2 key.
    NotSm2Key,
    /// The signature does not verify with the issuer's key.
    No,
    /// The certificate's signature is in a form guomi does not support: why.
    Unsupported(&'static str),
}

/// One certificate the search can use: the leaf (index 0), then the trust roots, then
/// the intermediates, each distinct DER once.
struct Node<'a> {
    cert: &'a Certificate,
    is_root: bool,
    subject: Vec<u8>,
    issuer: Vec<u8>,
    spki: Vec<u8>,
    /// The parsed public key, once needed (`Some(None)`: not an SM2 key).
    key: Option<Option<PublicKey>>,
}

struct Search<'a> {
    nodes: Vec<Node<'a>>,
    /// Subject Name DER -> node indexes (roots first), for issuer lookup.
    by_subject: HashMap<Vec<u8>, Vec<usize>>,
    at: i64,
    /// (child, issuer's SubjectPublicKeyInfo) -> the outcome of the signature check: one
    /// check per certificate and issuer key, however many certificates share that key.
    signatures: HashMap<(usize, Vec<u8>), Signed>,
    signature_checks: usize,
    steps: usize,
    best: Option<ChainError>,
}

impl<'a> Search<'a> {
    fn new(
        leaf: &'a Certificate,
        intermediates: &'a [Certificate],
        roots: &'a [Certificate],
        at: i64,
    ) -> Search<'a> {
        let mut search = Search {
            nodes: Vec::with_capacity(1 + roots.len() + intermediates.len()),
            by_subject: HashMap::new(),
            at,
            signatures: HashMap::new(),
            signature_checks: 0,
            steps: 0,
            best: None,
        };
        let all = std::iter::once((leaf, roots.contains(leaf)))
            .chain(roots.iter().map(|c| (c, true)))
            .chain(intermediates.iter().map(|c| (c, false)));
        let mut seen = HashSet::new();
        for (cert, is_root) in all {
            if !seen.insert(cert.to_der()) {
                continue;
            }
            let (Ok(subject), Ok(issuer), Ok(spki)) =
                (cert.subject_der(), cert.issuer_der(), cert.spki_der())
            else {
                continue;
            };
            let index = search.nodes.len();
            if index > 0 {
                search
                    .by_subject
                    .entry(subject.clone())
                    .or_default()
                    .push(index);
            }
            search.nodes.push(Node {
                cert,
                is_root,
                subject,
                issuer,
                spki,
                key: None,
            });
        }
        search
    }

    fn note(&mut self, e: ChainError) {
        if self.best.as_ref().is_none_or(|b| e.depth >= b.depth) {
            self.best = Some(e);
        }
    }

    fn gave_up(&self, what: String) -> ChainError {
        fail(self.nodes[0].cert, 0, format!("{GAVE_UP}: {what}"))
    }

    /// Whether `cand` is on `path` already, or repeats the subject name and public key
    /// of an issuer on it (a loop, RFC 4158 §5.2).
    fn on_path(&self, path: &[usize], cand: usize) -> bool {
        let c = &self.nodes[cand];
        path.iter().enumerate().any(|(i, &p)| {
            let n = &self.nodes[p];
            p == cand || (i > 0 && n.subject == c.subject && n.spki == c.spki)
        })
    }

    /// Whether `issuer`'s key verifies `child`'s signature: checked once per certificate
    /// and issuer key, within the signature budget. `Err`: the budget is spent.
    fn signed_by(&mut self, child: usize, issuer: usize) -> Result<Signed, ChainError> {
        let memo = (child, self.nodes[issuer].spki.clone());
        if let Some(r) = self.signatures.get(&memo) {
            return Ok(*r);
        }
        let key = match &self.nodes[issuer].key {
            Some(k) => k.clone(),
            None => {
                let k = self.nodes[issuer].cert.public_key().ok();
                self.nodes[issuer].key = Some(k.clone());
                k
            }
        };
        let outcome = match key {
            None => Signed::NotSm2Key,
            Some(key) => {
                self.signature_checks += 1;
                if self.signature_checks > MAX_SIGNATURE_CHECKS {
                    return Err(self.gave_up(format!(
                        "more than {MAX_SIGNATURE_CHECKS} signature checks needed (too many \
                         candidate issuer certificates)"
                    )));
                }
                match self.nodes[child].cert.verify_signature_with(&key) {
                    Ok(()) => Signed::Yes,
                    Err(guomi_core::Error::UnsupportedFormat(m)) => Signed::Unsupported(m),
                    Err(_) => Signed::No,
                }
            }
        };
        self.signatures.insert(memo, outcome);
        Ok(outcome)
    }

    /// Extends `path` (node indexes, leaf first) up to a trust root. `Ok(false)`: no path
    /// from here; `Err`: a work cap was reached.
    fn extend(&mut self, path: &mut Vec<usize>) -> Result<bool, ChainError> {
        let cur = *path.last().expect("path starts with the leaf");
        let cert = self.nodes[cur].cert;
        let depth = path.len() - 1;
        if self.nodes[cur].is_root {
            return Ok(true);
        }
        if path.len() >= MAX_PATH_LEN {
            self.note(fail(
                cert,
                depth,
                format!("certification path too long (at most {MAX_PATH_LEN} certificates)"),
            ));
            return Ok(false);
        }
        // Name chaining: the candidates are the certificates whose subject is this issuer.
        let candidates: Vec<usize> = self
            .by_subject
            .get(&self.nodes[cur].issuer)
            .map(|v| {
                v.iter()
                    .copied()
                    .filter(|&c| !self.on_path(path, c))
                    .collect()
            })
            .unwrap_or_default();
        if candidates.is_empty() {
            let self_signed = self.nodes[cur].subject == self.nodes[cur].issuer
                && self.signed_by(cur, cur)? == Signed::Yes;
            let reason = if self_signed {
                "self-signed certificate is not among the trust roots".to_string()
            } else {
                format!(
                    "issuer \"{}\" not found among the intermediates and trust roots",
                    cert.issuer()
                )
            };
            self.note(fail(cert, depth, reason));
            return Ok(false);
        }
        for cand in candidates {
            self.steps += 1;
            if self.steps > MAX_CANDIDATE_STEPS {
                return Err(self.gave_up(format!(
                    "more than {MAX_CANDIDATE_STEPS} candidate issuers examined"
                )));
            }
            // The cheap checks first: validity, extensions, cA, pathLenConstraint, keyCertSign.
            let issuer = self.nodes[cand].cert;
            let cheap = check_common(issuer, depth + 1, self.at)
                .and_then(|_| check_issuer(issuer, depth + 1));
            if let Err(e) = cheap {
                self.note(e);
                continue;
            }
            // Then the signature, once per (certificate, issuer) pair.
            match self.signed_by(cur, cand)? {
                Signed::Yes => {}
                Signed::NotSm2Key => {
                    self.note(fail(issuer, depth + 1, "public key is not an SM2 key"));
                    continue;
                }
                Signed::No => {
                    let reason = format!(
                        "signature does not verify with the key of issuer \"{}\"",
                        issuer.subject()
                    );
                    self.note(fail(cert, depth, reason));
                    continue;
                }
                Signed::Unsupported(reason) => {
                    self.note(fail(cert, depth, reason));
                    continue;
                }
            }
            path.push(cand);
            if self.extend(path)? {
                return Ok(true);
            }
            path.pop();
        }
        Ok(false)
    }
}

/// Validates `leaf` up to one of `roots` at Unix time `at`, using `intermediates` as
/// needed. Returns the path, leaf first, trust root last.
///
/// The work is bounded (see the module documentation): more than [`MAX_CERTIFICATES`]
/// intermediates and roots together fail at once; a search that would need more than
/// [`MAX_SIGNATURE_CHECKS`] signature checks or [`MAX_CANDIDATE_STEPS`] candidate
/// examinations fails with a reason starting with [`GAVE_UP`].
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
    let given = intermediates.len() + roots.len();
    if given > MAX_CERTIFICATES {
        return Err(fail(
            leaf,
            0,
            format!(
                "too many certificates given ({given} intermediates and trust roots; at most \
                 {MAX_CERTIFICATES})"
            ),
        ));
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
    let mut search = Search::new(leaf, intermediates, roots, at);
    let mut path = vec![0];
    if search.extend(&mut path)? {
        return Ok(path.iter().map(|&i| search.nodes[i].cert.clone()).collect());
    }
    Err(search
        .best
        .unwrap_or_else(|| fail(leaf, 0, "no certification path to a trust root")))
}
