"""The live interop suite (see README.md)."""
