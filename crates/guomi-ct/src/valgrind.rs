//! Valgrind client requests, written from the documented amd64 calling sequence
//! (`valgrind/valgrind.h`, `VALGRIND_DO_CLIENT_REQUEST_EXPR` for `PLAT_amd64_linux`):
//!
//! ```text
//! rol rdi,3 ; rol rdi,13 ; rol rdi,61 ; rol rdi,51   (the "special instruction preamble")
//! xchg rbx,rbx                                        (rdx = client_request(rax))
//! ```
//!
//! `rax` points at six machine words `[request, arg1..arg5]`, `rdx` holds the default
//! result. On a real CPU the four rotations add up to 128 bits (no change) and
//! `xchg rbx,rbx` does nothing, so `rdx` keeps the default: every request is a no-op
//! outside valgrind. Request codes are from `valgrind/valgrind.h` and
//! `valgrind/memcheck.h` (an ABI valgrind promises not to change).
//!
//! On other architectures every function here is a no-op.
// The client-request sequence is inline assembly.
#![allow(unsafe_code)]

/// `VG_USERREQ_TOOL_BASE('M','C')`: memcheck's request range.
const MC_BASE: usize = ((b'M' as usize) << 24) | ((b'C' as usize) << 16);
/// `VG_USERREQ__MAKE_MEM_UNDEFINED` (memcheck.h: base + 1).
const MAKE_MEM_UNDEFINED: usize = MC_BASE + 1;
/// `VG_USERREQ__MAKE_MEM_DEFINED` (memcheck.h: base + 2).
const MAKE_MEM_DEFINED: usize = MC_BASE + 2;
/// `VG_USERREQ__RUNNING_ON_VALGRIND` (valgrind.h).
const RUNNING_ON_VALGRIND: usize = 0x1001;
/// `VG_USERREQ__COUNT_ERRORS` (valgrind.h).
const COUNT_ERRORS: usize = 0x1201;
/// `VG_USERREQ__CHANGE_ERR_DISABLEMENT` (valgrind.h): +1 disables, -1 re-enables.
const CHANGE_ERR_DISABLEMENT: usize = 0x1801;

#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn request(default: usize, req: usize, a1: usize, a2: usize) -> usize {
    let args: [usize; 6] = [req, a1, a2, 0, 0, 0];
    let result: usize;
    // SAFETY: the sequence only rotates rdi by a total of 128 bits (rdi unchanged; flags
    // are clobbered, which `asm!` assumes by default) and exchanges rbx with itself. Under
    // valgrind the virtual CPU reads `args` (a live local array) through rax and writes the
    // result to rdx; the asm is not `nomem`, so the compiler keeps `args` in memory.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") args.as_ptr(),
            inout("rdx") default => result,
            options(nostack),
        );
    }
    result
}

#[cfg(not(target_arch = "x86_64"))]
fn request(default: usize, _req: usize, _a1: usize, _a2: usize) -> usize {
    default
}

/// Whether this process runs under valgrind (0 outside, the nesting depth inside).
pub fn running_on_valgrind() -> bool {
    request(0, RUNNING_ON_VALGRIND, 0, 0) != 0
}

/// Marks `len` bytes at `ptr` as undefined (secret) for memcheck.
pub fn make_undefined_raw(ptr: *const u8, len: usize) {
    request(0, MAKE_MEM_UNDEFINED, ptr as usize, len);
}

/// Marks `len` bytes at `ptr` as defined (public) for memcheck.
pub fn make_defined_raw(ptr: *const u8, len: usize) {
    request(0, MAKE_MEM_DEFINED, ptr as usize, len);
}

/// Marks the bytes of `v` (its inline representation, not what it points to) secret.
pub fn secret<T: ?Sized>(v: &T) {
    make_undefined_raw(v as *const T as *const u8, core::mem::size_of_val(v));
}

/// Declassifies the bytes of `v`: the caller states, next to the call, why releasing
/// this value is safe.
pub fn public<T: ?Sized>(v: &T) {
    make_defined_raw(v as *const T as *const u8, core::mem::size_of_val(v));
}

/// Errors memcheck has reported so far in this process (0 outside valgrind).
pub fn error_count() -> usize {
    request(0, COUNT_ERRORS, 0, 0)
}

/// Runs `f` with valgrind's error reporting off on this thread. Definedness still
/// propagates, so secrets stay secret; only reports are dropped. Used for the set-up of
/// a check whose own subject is something else (e.g. loading a key before a signature).
pub fn quietly<R>(f: impl FnOnce() -> R) -> R {
    struct Enable;
    impl Drop for Enable {
        fn drop(&mut self) {
            request(0, CHANGE_ERR_DISABLEMENT, usize::MAX, 0); // -1: enable again
        }
    }
    request(0, CHANGE_ERR_DISABLEMENT, 1, 0);
    let _enable = Enable;
    f()
}
