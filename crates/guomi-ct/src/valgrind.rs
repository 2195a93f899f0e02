//! The harness's view of valgrind memcheck: secrets in, public results out. The client
//! requests themselves are guomi-core's (`guomi_core::ct::valgrind`, compiled there with
//! the `ct-declassify` feature that this crate enables), so the request sequence exists
//! once and the core's own declassification points use the same code. Every request is a
//! no-op outside valgrind.
use guomi_core::ct::valgrind as vg;

/// Whether this process runs under valgrind.
pub fn running_on_valgrind() -> bool {
    vg::running_on_valgrind()
}

/// Marks `len` bytes at `ptr` as undefined (secret) for memcheck.
pub fn make_undefined_raw(ptr: *const u8, len: usize) {
    vg::make_mem_undefined(ptr, len);
}

/// Marks the bytes of `v` (its inline representation, not what it points to) secret.
pub fn secret<T: ?Sized>(v: &T) {
    vg::make_mem_undefined(v as *const T as *const u8, core::mem::size_of_val(v));
}

/// Declassifies the bytes of `v`: the caller states, next to the call, why releasing
/// this value is safe.
pub fn public<T: ?Sized>(v: &T) {
    vg::make_mem_defined(v as *const T as *const u8, core::mem::size_of_val(v));
}

/// Errors memcheck has reported so far in this process (0 outside valgrind).
pub fn error_count() -> usize {
    vg::count_errors()
}

/// Runs `f` with valgrind's error reporting off on this thread. Definedness still
/// propagates, so secrets stay secret; only reports are dropped. Used for the set-up of
/// a check whose own subject is something else (e.g. loading a key before a signature).
pub fn quietly<R>(f: impl FnOnce() -> R) -> R {
    struct Enable;
    impl Drop for Enable {
        fn drop(&mut self) {
            vg::change_err_disablement(-1);
        }
    }
    vg::change_err_disablement(1);
    let _enable = Enable;
    f()
}
