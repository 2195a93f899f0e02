//! Exports the `getrandom` shim (src/rng.rs) from the executable so that the `getrandom`
//! crate's `dlsym(RTLD_DEFAULT, "getrandom")` finds it before libc's: the harness can then
//! mark the OS randomness (keys, nonces) as secret for valgrind.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-Wl,--export-dynamic-symbol=getrandom");
    }
}
