//! A seccomp filter for confined commands with the network off: creating a Unix
//! domain socket fails with EPERM. Sockets on the file system stay reachable
//! through a read-only mount (connecting is not writing), and some of them
//! hand out the whole machine: Docker's, the user's D-Bus, an SSH agent. A new
//! network namespace cuts TCP and abstract sockets, not these; the filter does,
//! as Claude Code's sandbox does. `socketpair` (pipes between processes) is
//! not affected.
//!
//! The program is classic BPF, handed to bubblewrap (`--seccomp FD`), which
//! installs it in the command after setting up the mounts.

use std::io::Write;
use std::os::fd::{FromRawFd, OwnedFd};

/// `struct sock_filter`.
#[derive(Clone, Copy)]
struct Insn {
    code: u16,
    jt: u8,
    jf: u8,
    k: u32,
}

const LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const RET_K: u16 = 0x06; // BPF_RET | BPF_K

const ARCH_X86_64: u32 = 0xC000_003E;
const ARCH_I386: u32 = 0x4000_0003;
const ARCH_AARCH64: u32 = 0xC000_00B7;
/// `socket` on x86_64 (and with the x32 bit), on aarch64; `socketcall` and
/// `socket` on i386.
const X86_64_SOCKET: u32 = 41;
const X32_SOCKET: u32 = 41 | 0x4000_0000;
const AARCH64_SOCKET: u32 = 198;
const I386_SOCKETCALL: u32 = 102;
const I386_SOCKET: u32 = 359;
/// `socketcall`'s first argument for `socket()`; its domain sits in memory the
/// filter cannot read, so every 32-bit `socket()` through it is refused.
const SYS_SOCKET: u32 = 1;
const AF_UNIX: u32 = 1;

const RET_ALLOW: u32 = 0x7fff_0000;
const RET_EPERM: u32 = 0x0005_0000 | 1;

/// `struct seccomp_data`: `nr` at 0, `arch` at 4, `args[0]` at 16 (its low
/// half, on the little-endian machines this runs on).
const NR: u32 = 0;
const ARCH: u32 = 4;
const ARG0: u32 = 16;

fn ld(k: u32) -> Insn {
    Insn {
        code: LD_W_ABS,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jeq(k: u32, jt: u8, jf: u8) -> Insn {
    Insn {
        code: JEQ_K,
        jt,
        jf,
        k,
    }
}

fn ret(k: u32) -> Insn {
    Insn {
        code: RET_K,
        jt: 0,
        jf: 0,
        k,
    }
}

/// The program: by architecture, the socket calls whose domain is AF_UNIX
/// (or cannot be read) get EPERM; everything else is allowed.
fn program() -> Vec<Insn> {
    // Offsets are counted from the instruction after each jump.
    vec![
        /* 0 */ ld(ARCH),
        /* 1 */ jeq(ARCH_X86_64, 0, 5),
        /* 2 */ ld(NR),
        /* 3 */ jeq(X86_64_SOCKET, 1, 0),
        /* 4 */ jeq(X32_SOCKET, 0, 15),
        /* 5 */ ld(ARG0),
        /* 6 */ jeq(AF_UNIX, 14, 13),
        /* 7 */ jeq(ARCH_AARCH64, 0, 4),
        /* 8 */ ld(NR),
        /* 9 */ jeq(AARCH64_SOCKET, 0, 10),
        /* 10 */ ld(ARG0),
        /* 11 */ jeq(AF_UNIX, 9, 8),
        /* 12 */ jeq(ARCH_I386, 0, 7),
        /* 13 */ ld(NR),
        /* 14 */ jeq(I386_SOCKET, 3, 0),
        /* 15 */ jeq(I386_SOCKETCALL, 0, 4),
        /* 16 */ ld(ARG0),
        /* 17 */ jeq(SYS_SOCKET, 3, 2),
        /* 18 */ ld(ARG0),
        /* 19 */ jeq(AF_UNIX, 1, 0),
        /* 20 */ ret(RET_ALLOW),
        /* 21 */ ret(RET_EPERM),
    ]
}

/// The program as the bytes bubblewrap reads.
fn bytes() -> Vec<u8> {
    let mut out = Vec::with_capacity(program().len() * 8);
    for insn in program() {
        out.extend_from_slice(&insn.code.to_ne_bytes());
        out.push(insn.jt);
        out.push(insn.jf);
        out.extend_from_slice(&insn.k.to_ne_bytes());
    }
    out
}

/// A sealed in-memory file holding the program, read by bubblewrap from the
/// start. It is close-on-exec here; the command's setup duplicates it to the
/// descriptor it names.
pub(super) fn program_file() -> std::io::Result<OwnedFd> {
    // SAFETY: a NUL-terminated name and valid flags; the result is a new
    // descriptor or -1.
    let fd = unsafe { libc::memfd_create(c"brood-seccomp".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a descriptor the kernel just gave us, owned by no one else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut file = std::fs::File::from(fd);
    file.write_all(&bytes())?;
    let fd = OwnedFd::from(file);
    Ok(fd)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the program on one `seccomp_data` as the kernel would.
    fn run(arch: u32, nr: u32, arg0: u32) -> u32 {
        let program = program();
        let mut data = [0u8; 64];
        data[0..4].copy_from_slice(&nr.to_ne_bytes());
        data[4..8].copy_from_slice(&arch.to_ne_bytes());
        data[16..20].copy_from_slice(&arg0.to_ne_bytes());
        let mut acc = 0u32;
        let mut pc = 0usize;
        loop {
            let insn = program[pc];
            match insn.code {
                LD_W_ABS => {
                    let at = insn.k as usize;
                    acc = u32::from_ne_bytes(data[at..at + 4].try_into().unwrap());
                    pc += 1;
                }
                JEQ_K => {
                    let skip = if acc == insn.k { insn.jt } else { insn.jf };
                    pc += 1 + skip as usize;
                }
                RET_K => return insn.k,
                other => panic!("unknown instruction {other:#x}"),
            }
        }
    }

    #[test]
    fn unix_sockets_are_refused_and_everything_else_allowed() {
        assert_eq!(run(ARCH_X86_64, X86_64_SOCKET, AF_UNIX), RET_EPERM);
        assert_eq!(run(ARCH_X86_64, X32_SOCKET, AF_UNIX), RET_EPERM);
        assert_eq!(run(ARCH_X86_64, X86_64_SOCKET, 2), RET_ALLOW, "AF_INET");
        assert_eq!(run(ARCH_X86_64, 0, AF_UNIX), RET_ALLOW, "read(1, …)");
        assert_eq!(run(ARCH_X86_64, 53, AF_UNIX), RET_ALLOW, "socketpair");
        assert_eq!(run(ARCH_AARCH64, AARCH64_SOCKET, AF_UNIX), RET_EPERM);
        assert_eq!(run(ARCH_AARCH64, AARCH64_SOCKET, 10), RET_ALLOW, "AF_INET6");
        assert_eq!(run(ARCH_AARCH64, 63, AF_UNIX), RET_ALLOW, "read");
        assert_eq!(run(ARCH_I386, I386_SOCKET, AF_UNIX), RET_EPERM);
        assert_eq!(run(ARCH_I386, I386_SOCKET, 2), RET_ALLOW);
        assert_eq!(run(ARCH_I386, I386_SOCKETCALL, SYS_SOCKET), RET_EPERM);
        assert_eq!(run(ARCH_I386, I386_SOCKETCALL, 3), RET_ALLOW, "connect");
        assert_eq!(run(0x1234, 41, AF_UNIX), RET_ALLOW, "another machine");
    }
}
