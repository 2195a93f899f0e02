//! zuc: see the issue that builds it.
