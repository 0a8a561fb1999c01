//! Sets `cfg(avx512)` when the compiler's `std::arch` has the AVX-512 intrinsics (Rust 1.89 and
//! later): the AVX-512 copy kernel is compiled only then, so older compilers down to the MSRV
//! build the crate without it.

use std::process::Command;

fn main() {
    println!("cargo:rustc-check-cfg=cfg(avx512)");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RUSTC");
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let minor = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|v| v.split('.').nth(1).and_then(|m| m.parse::<u32>().ok()));
    if minor.is_some_and(|m| m >= 89) {
        println!("cargo:rustc-cfg=avx512");
    }
}
