"""Smoke test of an *installed* guomi (a wheel in a fresh virtual environment).

Checks, on every backend this CPU runs: the package imports from site-packages (not from
a source tree), one published known answer per algorithm (SM3, SM4, SM2, SM9, ZUC, from
the repository's vectors/), then ``guomi --version`` and a command-line round trip (SM4
file encryption, decryption, and a tampered file refused with exit status 1).

Usage:
  python scripts/smoke.py [--vectors DIR]
      test the guomi installed in this interpreter's environment.
  python scripts/smoke.py --wheel FILE [--python PYTHON] [--cpu MODEL] [--vectors DIR]
      make a fresh virtual environment (with PYTHON, default this interpreter) in a
      temporary folder, install FILE there offline (pip --no-index), and run the checks in
      it with no Rust toolchain reachable: every PATH entry holding cargo, rustc or rustup
      removed, CARGO_HOME and RUSTUP_HOME unset, the working directory outside the source.
      --cpu MODEL runs those checks under qemu-x86_64 -cpu MODEL (the CLI subprocesses run
      natively): with qemu64, a baseline x86-64, they must pass on `portable` alone.
  python scripts/smoke.py --wheel FOREIGN.whl [--cpu MODEL] [--qemu QEMU] [--cross-dir DIR]
      a wheel for another architecture (aarch64, riscv64; glibc): the same checks under
      qemu-user (qemu-ARCH -cpu MODEL), run by a genuine Debian CPython of
      that architecture from the root file system that scripts/cross-setup.sh makes in
      DIR (default target/cross: bookworm's python3.11 for aarch64, trixie's python3.13
      for riscv64). No pip there: the abi3 wheel is unzipped into a temporary folder put
      on PYTHONPATH (all a pure-and-platlib wheel without scripts or data needs), the CLI
      runs as `python -m guomi` (the console script's entry point), and its subprocesses
      run under the same emulator and CPU model; no Rust toolchain on PATH. By default
      aarch64 runs on qemu-aarch64 (7.2) -cpu max, riscv64 on DIR/qemu10/bin/qemu-riscv64
      -cpu max,ztso=false (the models of scripts/cross-test.sh).
Exit status 0 when every check passes; any failure raises (exit status 1).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def vector(vectors: Path, algorithm: str, name: str) -> dict[str, Any]:
    """The vector called ``name`` in ``vectors/<algorithm>.json``."""
    with open(vectors / f"{algorithm}.json", encoding="utf-8") as f:
        for v in json.load(f)["vectors"]:
            if v["name"] == name:
                return dict(v)
    raise AssertionError(f"{algorithm}.json has no vector {name!r}")


def check_install(unpacked: Path | None = None) -> None:
    """guomi comes from this interpreter's site-packages (or from ``unpacked``, the folder a
    foreign wheel was unzipped into), with its compiled abi3 module."""
    import platform

    import guomi
    import guomi._native

    site = unpacked.resolve() if unpacked else Path(sysconfig.get_paths()["purelib"]).resolve()
    where = Path(guomi.__file__).resolve()
    assert site in where.parents, f"guomi imported from {where}, not from {site}"
    native = Path(guomi._native.__file__).name
    assert native.endswith(".abi3.so") or native.endswith(".pyd"), native
    print(f"guomi {guomi.__version__} from {where.parent} ({native}, {platform.machine()})")


def check_known_answers(vectors: Path) -> None:
    import guomi
    import guomi.sm2
    import guomi.sm3
    import guomi.sm4
    import guomi.sm9
    import guomi.zuc

    def hx(v: dict[str, Any], key: str) -> bytes:
        return bytes.fromhex(v[key])

    sm3 = vector(vectors, "sm3", 'GB/T 32905-2016 example 1: "abc"')
    sm4 = vector(vectors, "sm4", "GB/T 32907-2016 example 1 (single block)")
    zuc = vector(vectors, "zuc", "128-EEA3 test set 1")
    sm2 = vector(vectors, "sm2", "OpenSSL evppkey_sm2 Verify #1 (pre-hashed e, sm2p256v1)")
    sm9 = vector(vectors, "sm9", "GM/T 0044 / GB/T 38635 SM9 signature example (Part 5 Appendix A)")

    backends = guomi.available_backends()
    for backend in backends:
        guomi.force_backend(backend)
        try:
            assert guomi.active_backend() == backend
            assert guomi.sm3.hash(hx(sm3, "message")) == hx(sm3, "digest"), backend
            ct = guomi.sm4.encrypt(hx(sm4, "key"), hx(sm4, "plaintext"), mode="ecb", padding="none")
            assert ct == hx(sm4, "ciphertext"), backend
            out = guomi.zuc.eea3(
                hx(zuc, "key"),
                int(zuc["count"], 16),
                zuc["bearer"],
                zuc["direction"],
                hx(zuc, "plaintext"),
                length_bits=zuc["length_bits"],
            )
            assert out == hx(zuc, "ciphertext"), backend
            pk = guomi.sm2.PublicKey.from_bytes(hx(sm2, "public_key_x") + hx(sm2, "public_key_y"))
            assert pk.verify_digest(hx(sm2, "signature_der"), hx(sm2, "e")), backend
            assert not pk.verify_digest(hx(sm2, "signature_der"), bytes(32)), backend
            mpk = guomi.sm9.SignMasterKey.from_bytes(hx(sm9, "master_private_key_ks")).public_key()
            uid = sm9["user_id"].encode()
            assert mpk.verify(hx(sm9, "h") + hx(sm9, "S"), hx(sm9, "message"), uid), backend
        finally:
            guomi.force_backend(None)
    print(f"known answers (SM3, SM4, ZUC, SM2, SM9) on {', '.join(backends)}")
    print(f"active backend: {guomi.active_backend()}")


def guomi_command() -> list[str]:
    """The installed ``guomi`` console script beside this interpreter."""
    scripts = Path(sysconfig.get_paths()["scripts"])
    for name in ("guomi", "guomi.exe"):
        if (scripts / name).is_file():
            return [str(scripts / name)]
    found = shutil.which("guomi")
    assert found, f"no guomi console script in {scripts} or on PATH"
    return [found]


def check_cli(cmd: list[str]) -> None:
    import guomi

    version = subprocess.run([*cmd, "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.strip() == f"guomi {guomi.__version__}", version.stdout
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        plain = os.urandom(100_000) + b"the end"
        (d / "a").write_bytes(plain)
        key = ["--key-hex", "0123456789abcdeffedcba9876543210", "-q"]
        sm4 = [*cmd, "sm4"]
        subprocess.run([*sm4, "encrypt", *key, "--in", str(d / "a"), "--out", str(d / "b")], check=True)
        sealed = (d / "b").read_bytes()
        assert plain not in sealed and len(sealed) > len(plain)
        subprocess.run([*sm4, "decrypt", *key, "--in", str(d / "b"), "--out", str(d / "c")], check=True)
        assert (d / "c").read_bytes() == plain
        tampered = bytearray(sealed)
        tampered[len(tampered) // 2] ^= 1
        (d / "t").write_bytes(bytes(tampered))
        bad = subprocess.run(
            [*sm4, "decrypt", *key, "--in", str(d / "t"), "--out", str(d / "u")],
            capture_output=True,
        )
        assert bad.returncode == 1, bad
        assert not (d / "u").exists()
    print(f"{version.stdout.strip()}; CLI sm4 encrypt/decrypt round trip, tampered file refused")


RUST_TOOLS = ("cargo", "rustc", "rustup")


def without_rust(environ: dict[str, str]) -> dict[str, str]:
    """``environ`` with no Rust toolchain reachable: PATH entries holding cargo, rustc or
    rustup dropped, CARGO_HOME, RUSTUP_HOME and the toolchain variables unset."""
    env = {k: v for k, v in environ.items() if not k.startswith(("CARGO", "RUSTUP", "RUSTC", "RUSTFLAGS"))}
    for key in ("VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONHOME", "PYTHONPATH"):
        env.pop(key, None)
    keep = [
        d
        for d in environ.get("PATH", "").split(os.pathsep)
        if d and not any(shutil.which(tool, path=d) for tool in RUST_TOOLS)
    ]
    env["PATH"] = os.pathsep.join(keep)
    return env


# A foreign wheel's architecture (the platform tag's suffix): the Debian root file system
# scripts/cross-setup.sh makes for it (under target/cross), its interpreter there, the
# emulator (in target/cross/qemu10/bin, else on PATH) and the CPU model used by default
# (as scripts/cross-test.sh: aarch64 on qemu 7.2, since qemu 10.0.2 miscomputes BIT after
# MOVI; riscv64 on qemu 10 for the vector crypto extensions, without Ztso, which guomi does
# not use and which makes qemu 5.6 times slower).
FOREIGN = {
    "aarch64": ("arm64", "python3.11", "qemu-aarch64", "max"),
    "riscv64": ("riscv64", "python3.13", "qemu10/bin/qemu-riscv64", "max,ztso=false"),
}


def wheel_arch(wheel: Path) -> str:
    """The architecture a wheel's file name gives (``x86_64``, ``aarch64``, ...); a musl
    wheel is refused for emulation (Debian has no musl CPython to load it)."""
    platform_tag = wheel.stem.split("-")[-1]
    for arch in ("x86_64", "aarch64", "riscv64", "loongarch64"):
        if platform_tag.endswith("_" + arch):
            if arch != "x86_64" and "musllinux" in platform_tag:
                raise SystemExit(f"{wheel.name}: no musl CPython for {arch} here (Debian has none)")
            return arch
    raise SystemExit(f"{wheel.name}: unknown platform tag {platform_tag}")


def run_foreign(
    wheel: Path, arch: str, vectors: Path, cpu: str | None, qemu: str | None, cross: Path, expect: str | None
) -> None:
    """Unzips ``wheel`` into a temporary folder and reruns this script there with the Debian
    CPython of ``arch`` under ``qemu-ARCH -cpu CPU``, no Rust toolchain on PATH."""
    if arch not in FOREIGN:
        raise SystemExit(f"no emulated CPython for {arch} (only {', '.join(FOREIGN)})")
    fs_name, py_name, default_qemu, default_cpu = FOREIGN[arch]
    cpu = cpu or default_cpu
    fs = cross.resolve() / fs_name
    python = fs / "usr" / "bin" / py_name
    if not python.is_file():
        raise SystemExit(f"no {python}: run scripts/cross-setup.sh first")
    if qemu is None:
        bundled = cross.resolve() / default_qemu
        qemu = str(bundled) if bundled.is_file() else f"qemu-{arch}"
    found = str(Path(qemu).resolve()) if os.sep in qemu else shutil.which(qemu)
    assert found, f"no {qemu} (Debian: apt-get install qemu-user, or scripts/cross-setup.sh)"
    qemu = found
    version = subprocess.run([qemu, "--version"], capture_output=True, text=True, check=True)
    print(f"emulator: {version.stdout.splitlines()[0]}, -cpu {cpu}; interpreter: {python}")
    with tempfile.TemporaryDirectory(prefix="guomi-smoke-") as tmp:
        site = Path(tmp) / "site"
        with zipfile.ZipFile(wheel) as z:
            names = z.namelist()
            # Only a wheel whose files all belong in site-packages can be "installed" by
            # unzipping: no .data folder (scripts, headers, data), no .pth file.
            extra = [n for n in names if ".data/" in n or n.endswith(".pth")]
            assert not extra, f"{wheel.name} needs an installer: {extra}"
            z.extractall(site)
        # sys.executable is this launcher (qemu's -0 sets the guest's argv[0]), so every
        # subprocess the checks start runs the same interpreter under the same CPU model.
        launcher = Path(tmp) / "python"
        launcher.write_text(
            f'#!/bin/sh\nexec "{qemu}" -L "{fs}" -cpu "{cpu}" -0 "$0" "{python}" "$@"\n', encoding="utf-8"
        )
        launcher.chmod(0o755)
        env = without_rust(dict(os.environ))
        for tool in RUST_TOOLS:
            assert shutil.which(tool, path=env["PATH"]) is None, f"{tool} still on PATH"
        env["PYTHONPATH"] = str(site)
        # Byte code of the Debian standard library, kept between runs (the extracted file
        # system has none, and compiling it under emulation costs seconds per start), in a
        # cache of its own, so written whatever PYTHONDONTWRITEBYTECODE says.
        env["PYTHONPYCACHEPREFIX"] = str(cross.resolve() / f"pycache-{arch}")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        checks = [
            str(launcher),
            str(Path(__file__).resolve()),
            "--vectors",
            str(vectors),
            "--unpacked",
            str(site),
        ]
        if expect:
            checks += ["--expect-backends", expect]
        subprocess.run(checks, check=True, env=env, cwd=tmp)


def run_in_fresh_venv(wheel: Path, python: str, vectors: Path, cpu: str | None) -> None:
    """Installs ``wheel`` into a new virtual environment and reruns this script there (under
    ``qemu-x86_64 -cpu CPU`` when ``cpu`` is given)."""
    with tempfile.TemporaryDirectory(prefix="guomi-smoke-") as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
        bindir = venv / ("Scripts" if os.name == "nt" else "bin")
        vpython = str(bindir / ("python.exe" if os.name == "nt" else "python"))
        env = without_rust(dict(os.environ))
        for tool in RUST_TOOLS:
            assert shutil.which(tool, path=env["PATH"]) is None, f"{tool} still on PATH"
        env["PATH"] = os.pathsep.join([str(bindir), env["PATH"]])
        pip = [vpython, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", str(wheel)]
        subprocess.run(pip, check=True, env=env, cwd=tmp)
        checks = [vpython, str(Path(__file__).resolve()), "--vectors", str(vectors)]
        if cpu:
            qemu = shutil.which("qemu-x86_64")
            assert qemu, "--cpu needs qemu-x86_64 (Debian: apt-get install qemu-user)"
            checks = [qemu, "-cpu", cpu, *checks, "--expect-backends", "portable"]
        subprocess.run(checks, check=True, env=env, cwd=tmp)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--vectors", type=Path, default=HERE.parent / "vectors", help="the vectors/ folder")
    p.add_argument("--wheel", type=Path, help="install this wheel into a fresh venv and test it there")
    p.add_argument("--python", default=sys.executable, help="interpreter for that venv (with --wheel)")
    p.add_argument(
        "--cpu",
        metavar="MODEL",
        help="with --wheel: run the checks under qemu-x86_64 -cpu MODEL (e.g. qemu64, a baseline "
        "x86-64 without SSSE3/AVX): proves the wheel runs there, on the portable backend; for a "
        "foreign wheel, the CPU model of its emulator (default: as scripts/cross-test.sh's max)",
    )
    p.add_argument("--qemu", help="with a foreign --wheel: the qemu-user emulator to run it with")
    p.add_argument(
        "--cross-dir",
        type=Path,
        default=HERE.parent / "target" / "cross",
        help="with a foreign --wheel: where scripts/cross-setup.sh put the root file systems",
    )
    p.add_argument("--expect-backends", help="comma-separated backends this CPU must offer, exactly")
    p.add_argument("--unpacked", type=Path, help=argparse.SUPPRESS)  # the foreign run's inner half
    args = p.parse_args()
    if args.wheel:
        arch = wheel_arch(args.wheel)
        if arch != "x86_64":
            print(f"smoke test of {args.wheel.name} under emulation, no Rust toolchain on PATH")
            run_foreign(
                args.wheel.resolve(),
                arch,
                args.vectors.resolve(),
                args.cpu,
                args.qemu,
                args.cross_dir,
                args.expect_backends,
            )
            return
        where = f" under qemu-x86_64 -cpu {args.cpu}" if args.cpu else ""
        print(f"smoke test of {args.wheel.name} with {args.python}{where}, no Rust toolchain on PATH")
        run_in_fresh_venv(args.wheel.resolve(), args.python, args.vectors.resolve(), args.cpu)
        return
    if args.expect_backends:
        import guomi

        expected = args.expect_backends.split(",")
        assert guomi.available_backends() == expected, (guomi.available_backends(), expected)
    for tool in RUST_TOOLS:
        if shutil.which(tool):
            print(f"note: {tool} is on PATH ({shutil.which(tool)})")
    check_install(args.unpacked)
    check_known_answers(args.vectors.resolve())
    # Unzipped, a wheel has no console script: its entry point (guomi.cli:main) runs as -m.
    check_cli([sys.executable, "-m", "guomi"] if args.unpacked else guomi_command())
    print(f"smoke test passed ({sys.implementation.name} {sys.version.split()[0]})")


if __name__ == "__main__":
    main()
