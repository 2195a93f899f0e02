//! Declassification: the points where a value computed from a secret becomes public.
//!
//! The constant-time check (`scripts/ct-check.sh`, `crates/guomi-ct`) runs the library
//! under valgrind memcheck with every secret marked *undefined*; memcheck then reports
//! each branch and each memory address computed from a secret. A few branches on
//! secret-derived values are public by design: a tag comparison's outcome, an error the
//! API returns, a rejection-sampling retry that only discards a random value. Each one
//! passes the public outcome, and only that, through `declassify` or
//! `declassify_choice` right before the branch, with a comment that says why releasing
//! it is safe. The idea is BoringSSL's `CONSTTIME_DECLASSIFY` (`crypto/internal.h`).
//!
//! With the `ct-declassify` feature (enabled only by `guomi-ct`'s dependency on this
//! crate) a declassification issues memcheck's `VALGRIND_MAKE_MEM_DEFINED` client request
//! on the value (`ct::valgrind`); outside valgrind that is a handful of instructions that
//! change nothing. Without the feature (every shipped build) the functions are
//! `#[inline(always)]` identities and no client-request code is compiled. (Cargo unifies
//! features within one build, so a workspace-wide `cargo test` may compile the other
//! crates' copy of this one with the feature on too: harmless, the requests are no-ops
//! outside valgrind; maturin builds the wheel from `guomi-python` alone, without it.)
//!
//! To add a declassification: compute the public outcome in constant time, pass exactly
//! that value through `declassify` / `declassify_choice` at the branch, and say in a
//! comment why it is public. A report on a value that is not public by design is a leak
//! to fix, not to declassify (`docs/security.md`, "Constant time").
//!
//! Public so that guomi's protocol crates (`guomi-tlcp`: the CBC record check) mark their
//! own public outcomes the same way.
//!
//! A declassification marks the point in the code itself, so it moves with the code
//! (the suppressions file it replaces matched source lines and broke whenever a line
//! above a declassified branch changed).

#[cfg(feature = "ct-declassify")]
pub mod valgrind;

use subtle::Choice;

/// `v`, declared public: the caller states next to the call why releasing it is safe.
///
/// Under the `ct-declassify` feature `v`'s bytes are marked defined in memcheck. The value
/// is passed to the client request by `&mut` (the request might, as far as the compiler
/// knows, write it), so the compiler reloads it from memory afterwards instead of reusing
/// a register copy whose definedness memcheck still tracks as secret.
#[cfg(feature = "ct-declassify")]
#[inline]
pub fn declassify<T: Copy>(mut v: T) -> T {
    valgrind::make_defined(&mut v);
    v
}

/// `v`, declared public (the identity: no `ct-declassify` feature).
#[cfg(not(feature = "ct-declassify"))]
#[inline(always)]
pub fn declassify<T: Copy>(v: T) -> T {
    v
}

/// The outcome of a constant-time comparison or test, declared public, as a `bool` to
/// branch on. Only this one bit is released, not the values compared.
#[inline(always)]
pub fn declassify_choice(c: Choice) -> bool {
    declassify(c.unwrap_u8()) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declassify_is_the_identity() {
        assert_eq!(declassify(0x1234_5678_9abc_def0u64), 0x1234_5678_9abc_def0);
        assert_eq!(declassify([1u8, 2, 3]), [1, 2, 3]);
        assert!(declassify(true));
        assert!(declassify_choice(Choice::from(1)));
        assert!(!declassify_choice(Choice::from(0)));
    }
}
