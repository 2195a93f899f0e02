//! Valgrind client requests (only with the `ct-declassify` feature), written from the
//! documented amd64 calling sequence (`valgrind/valgrind.h`,
//! `VALGRIND_DO_CLIENT_REQUEST_EXPR` for `PLAT_amd64_linux`):
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
//! On other architectures every function here is a no-op. This is the one copy of the
//! sequence: the `guomi-ct` harness uses it too (to mark secrets undefined, count errors).
//! Marking memory defined or undefined changes only valgrind's shadow state, never the
//! program's memory, so these functions are safe to call on any address.
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
    // result to rdx; the asm is not `nomem`, so the compiler keeps `args` in memory, and
    // it assumes the asm may read or write any memory whose address has escaped (such as
    // the address in a1 of a value being declassified, which is reloaded afterwards).
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

/// `VALGRIND_MAKE_MEM_UNDEFINED`: marks `len` bytes at `ptr` undefined (secret).
pub fn make_mem_undefined(ptr: *const u8, len: usize) {
    request(0, MAKE_MEM_UNDEFINED, ptr as usize, len);
}

/// `VALGRIND_MAKE_MEM_DEFINED`: marks `len` bytes at `ptr` defined (public).
pub fn make_mem_defined(ptr: *const u8, len: usize) {
    request(0, MAKE_MEM_DEFINED, ptr as usize, len);
}

/// Marks the bytes of `v` (its inline representation, not what it points to) defined.
/// Taken by `&mut`, so that the caller reads `v` from memory again after the request.
pub fn make_defined<T: ?Sized>(v: &mut T) {
    make_mem_defined(v as *mut T as *const u8, core::mem::size_of_val(v));
}

/// `VALGRIND_COUNT_ERRORS`: errors reported so far in this process (0 outside valgrind).
pub fn count_errors() -> usize {
    request(0, COUNT_ERRORS, 0, 0)
}

/// `VALGRIND_DISABLE_ERROR_REPORTING` (`delta` = 1) and `VALGRIND_ENABLE_ERROR_REPORTING`
/// (`delta` = -1) for the calling thread; the calls nest.
pub fn change_err_disablement(delta: isize) {
    request(0, CHANGE_ERR_DISABLEMENT, delta as usize, 0);
}
