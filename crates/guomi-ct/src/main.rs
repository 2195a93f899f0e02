//! `guomi-ct`: constant-time checks for guomi-core.
//!
//! ```text
//! guomi-ct list                          the checks, what each covers and declassifies
//! guomi-ct backends                      the backends this CPU (or valgrind's) can run
//! guomi-ct check NAME|all [--backend B]  run checks (meant for valgrind memcheck)
//! guomi-ct planted branch|table          the deliberately leaky self-test functions
//! guomi-ct timing [--short] [--backend B] [--target NAME] [-n N]
//!                                        the dudect-style timing test
//! ```
//!
//! `scripts/ct-check.sh` runs `check` under valgrind for every check and backend and
//! `planted` to show that valgrind does catch a leak; `scripts/ct-timing.sh` runs
//! `timing`. Outside valgrind `check` still runs every operation (a smoke test) but
//! proves nothing about timing.
//!
//! `unsafe` is denied except in `rng` (the exported `getrandom` shim) and
//! `timing::cycles` (`rdtsc`). The valgrind client requests are guomi-core's
//! (`guomi_core::ct::valgrind`, with the `ct-declassify` feature).
#![deny(unsafe_code)]

mod checks;
mod rng;
mod timing;
mod valgrind;

use guomi_core::cpu::{self, Backend};
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!(
        "usage: guomi-ct list | backends | check NAME|all [--backend B] | planted branch|table\n\
         \x20      | timing [--short] [--backend B] [--target NAME] [-n N]"
    );
    ExitCode::from(2)
}

/// Reads `--backend B` (default: every available backend).
fn backends_arg(args: &[String]) -> Result<Vec<Backend>, String> {
    match args.iter().position(|a| a == "--backend") {
        Some(i) => {
            let name = args.get(i + 1).ok_or("--backend needs a value")?;
            let b = Backend::parse(name).map_err(|e| e.to_string())?;
            if !b.is_supported() {
                return Err(format!("backend {name} is not available on this CPU"));
            }
            Ok(vec![b])
        }
        None => Ok(cpu::available()),
    }
}

fn value_of<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    let i = args.iter().position(|a| a == flag)?;
    args.get(i + 1).map(String::as_str)
}

fn run_checks(args: &[String]) -> ExitCode {
    let Some(which) = args.first() else {
        return usage();
    };
    let backends = match backends_arg(args) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("guomi-ct: {e}");
            return ExitCode::from(2);
        }
    };
    let selected: Vec<&checks::Check> = checks::CHECKS
        .iter()
        .filter(|c| which == "all" || c.name == which)
        .collect();
    if selected.is_empty() {
        eprintln!("guomi-ct: no check named {which} (see `guomi-ct list`)");
        return ExitCode::from(2);
    }
    let under_valgrind = valgrind::running_on_valgrind();
    // Without the RNG shim the nonce checks would test public nonces: refuse.
    if under_valgrind && !rng::shim_in_use() {
        eprintln!(
            "guomi-ct: the getrandom shim is not in use; secret-nonce checks would be vacuous"
        );
        return ExitCode::from(3);
    }
    for b in backends {
        for c in &selected {
            let before = valgrind::error_count();
            cpu::with_backend(b, c.run);
            let errors = valgrind::error_count() - before;
            println!(
                "{} {} [{}]: declassified: {}{}",
                if errors == 0 { "ok  " } else { "LEAK" },
                c.name,
                b.name(),
                c.declassifies,
                if under_valgrind {
                    format!(" ({errors} new memcheck reports)")
                } else {
                    " (not under valgrind: functional run only)".into()
                }
            );
        }
    }
    ExitCode::SUCCESS
}

fn run_timing(args: &[String]) -> ExitCode {
    let short = args.iter().any(|a| a == "--short");
    let target = value_of(args, "--target");
    let n: Option<usize> = match value_of(args, "-n").map(str::parse) {
        None => None,
        Some(Ok(n)) if (1..=100_000_000).contains(&n) => Some(n),
        Some(_) => {
            eprintln!("guomi-ct: -n takes a count in 1..=100000000");
            return ExitCode::from(2);
        }
    };
    let backends = if value_of(args, "--backend").is_some() {
        match backends_arg(args) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("guomi-ct: {e}");
                return ExitCode::from(2);
            }
        }
    } else {
        // The kernels valgrind cannot see: the best backend (AVX-512 where present).
        vec![cpu::detected()]
    };
    let mut leaked = false;
    println!(
        "{:<18} {:<9} {:>9} {:>8} {:>6} {:>12} {:>12}  verdict",
        "target", "backend", "n", "max|t|", "crop", "med fixed", "med random"
    );
    for b in backends {
        for t in timing::TARGETS
            .iter()
            .filter(|t| target.is_none_or(|name| name == t.name))
        {
            let n = n.unwrap_or(if short { t.default_n / 10 } else { t.default_n });
            let o = timing::measure(t, b, n);
            let leak = o.max_t.abs() > timing::T_THRESHOLD;
            leaked |= leak;
            println!(
                "{:<18} {:<9} {:>9} {:>8.2} {:>6} {:>12} {:>12}  {}",
                o.name,
                o.backend.name(),
                o.n,
                o.max_t.abs(),
                o.max_t_crop.map_or("none".to_string(), |c| c.to_string()),
                o.median_fixed,
                o.median_random,
                if leak { "LEAK?" } else { "ok" }
            );
        }
    }
    if leaked {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first() else {
        return usage();
    };
    match cmd.as_str() {
        "list" => {
            for c in checks::CHECKS {
                println!(
                    "{}\n    covers: {}\n    declassifies: {}",
                    c.name, c.covers, c.declassifies
                );
            }
            ExitCode::SUCCESS
        }
        "backends" => {
            let names: Vec<&str> = cpu::available().iter().map(|b| b.name()).collect();
            println!("{}", names.join(" "));
            ExitCode::SUCCESS
        }
        "check" => run_checks(&args[1..]),
        "planted" => {
            match args.get(1).map(String::as_str) {
                Some("branch") => println!("planted branch: {}", checks::planted::branch()),
                Some("table") => println!("planted table: {}", checks::planted::table()),
                _ => return usage(),
            }
            ExitCode::SUCCESS
        }
        "timing" => run_timing(&args[1..]),
        _ => usage(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Outside valgrind every client request is a no-op: the magic sequence returns its
    /// default and leaves memory alone.
    #[test]
    fn client_requests_are_noops_outside_valgrind() {
        if valgrind::running_on_valgrind() {
            return; // `cargo test` under valgrind: nothing to assert here
        }
        assert_eq!(valgrind::error_count(), 0);
        let v = [1u8, 2, 3, 4];
        valgrind::secret(&v);
        valgrind::public(&v);
        assert_eq!(valgrind::quietly(|| v.iter().sum::<u8>()), 10);
        assert_eq!(v, [1, 2, 3, 4]);
    }

    /// The getrandom shim is what guomi-core's RNG reaches (through the `getrandom` crate's
    /// dlsym lookup), and it still returns fresh kernel randomness.
    #[test]
    fn getrandom_shim_is_in_use() {
        assert!(
            rng::shim_in_use(),
            "the exported getrandom shim was bypassed"
        );
        let a = rng::secret_randomness(guomi_core::rand::bytes::<16>).unwrap();
        let b = guomi_core::rand::bytes::<16>().unwrap();
        assert_ne!(a, b);
        assert_ne!(a, [0; 16]);
    }

    /// Every check runs to completion (its own assertions: round trips, signatures that
    /// verify, tampered tags rejected) on every backend of this CPU.
    #[test]
    fn every_check_runs_on_every_backend() {
        for b in cpu::available() {
            for c in checks::CHECKS {
                cpu::with_backend(b, c.run);
            }
        }
        let names: Vec<&str> = checks::CHECKS.iter().map(|c| c.name).collect();
        let mut dedup = names.clone();
        dedup.sort_unstable();
        dedup.dedup();
        assert_eq!(dedup.len(), names.len(), "check names must be unique");
    }

    /// The planted leaks compute what they should (their detection is the script's job).
    #[test]
    fn planted_functions_run() {
        assert_eq!(checks::planted::branch(), 2); // 0x5a is even
        assert_eq!(checks::planted::table(), 0x5au8.wrapping_mul(7) ^ 0x63);
    }
}
