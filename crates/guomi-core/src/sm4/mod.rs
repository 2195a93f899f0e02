//! sm4: see the issue that builds it.
