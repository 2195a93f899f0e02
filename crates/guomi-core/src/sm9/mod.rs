//! sm9: see the issue that builds it.
