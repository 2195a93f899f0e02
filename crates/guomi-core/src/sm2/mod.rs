//! sm2: see the issue that builds it.
