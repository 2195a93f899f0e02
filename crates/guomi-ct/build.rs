//! Exports the `getrandom` shim (src/rng.rs) in the executable's dynamic symbol table, so
//! that the `getrandom` crate's `dlsym(RTLD_DEFAULT, "getrandom")` finds it before libc's:
//! the harness can then mark the OS randomness (keys, nonces) as secret for valgrind.
//! (Current rustc already exports `#[no_mangle]` items of an executable; this makes it
//! explicit. The `getrandom_shim_is_in_use` test and `guomi-ct check` both verify it.)
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg=-Wl,--export-dynamic-symbol=getrandom");
    }
}
