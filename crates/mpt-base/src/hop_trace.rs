//! Where a call's microseconds go: a CLOCK_MONOTONIC stamp at each hop of a call through the edge
//! or the gateway (`hop!`), kept in static memory, dumped at exit; only in the `hop-trace` build.
//!
//! With `--features hop-trace` and `MPT_HOP_TRACE=<prefix>` in its environment, each `mpt`
//! process stamps every hop it passes (no allocation, no syscall: `clock_gettime` is the vDSO's)
//! and writes `<prefix>.<pid>` when it exits or gets SIGUSR2. With `MPT_HOP_TRACE_CPU=1` too,
//! each stamp also reads the thread's CPU time (CLOCK_THREAD_CPUTIME_ID: a syscall, about 0.4 µs
//! here), written beside it to `<prefix>.<pid>.cpu` in the same format. `bench_edge`
//! (`BENCH_HOPS`) joins the edge's stamps with the harness's own by time, call by call;
//! `benches/gateway_trace.rs` cuts the gateway's into requests. Without the feature every `hop!`
//! compiles to nothing and the variables are never read.

/// The points of a call's path that the edge stamps, in the order a call passes them: a read's
/// once it returned the line, a write's just before it (the write's syscall, the wake-up it
/// makes and the reader's return are the wire's time; between two stamps of one process, its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hop {
    /// The shim read a line from the harness (its stdin).
    ShimReadHarness,
    /// The shim writes it to the owner's socket.
    ShimSendsOwner,
    /// The owner read a line from a shim's socket (or, `--standalone`, from its stdin).
    OwnerReadShim,
    /// The owner's route reached the child: a request to it begins.
    OwnerCallsChild,
    /// The owner writes a message to the child's stdin.
    OwnerSendsChild,
    /// The owner read a line from the child's stdout.
    OwnerReadChild,
    /// The owner has the reply to a harness's request, about to serialise it.
    OwnerReplied,
    /// The owner writes what it has of its replies to the shim's socket (or its stdout).
    OwnerSendsShim,
    /// The shim read a line from the owner's socket.
    ShimReadOwner,
    /// The shim writes it to the harness (its stdout).
    ShimSendsHarness,
    /// The gateway accepted a connection.
    GwAccepted,
    /// The gateway has a request's whole head (the lean front's).
    GwHeadRead,
    /// And its whole body.
    GwBodyRead,
    /// The token was checked: the device is known.
    GwAuthed,
    /// The policy decided the request (allowed, about to be recorded).
    GwDecided,
    /// The request's audit record is appended (and synced, for a write).
    GwRequestAudited,
    /// The upstream connection is open.
    GwUpConnected,
    /// The request is written to the upstream.
    GwUpWritten,
    /// The upstream's reply head is parsed.
    GwUpHead,
    /// The upstream's reply body ended: its response record held.
    GwUpBodyEnd,
    /// The reply is written to the client.
    GwReplied,
    /// The client's connection is closed.
    GwClosed,
    /// The response's audit record is appended: the request is done.
    GwResponseAudited,
}

impl Hop {
    pub const ALL: [Hop; 23] = [
        Hop::ShimReadHarness,
        Hop::ShimSendsOwner,
        Hop::OwnerReadShim,
        Hop::OwnerCallsChild,
        Hop::OwnerSendsChild,
        Hop::OwnerReadChild,
        Hop::OwnerReplied,
        Hop::OwnerSendsShim,
        Hop::ShimReadOwner,
        Hop::ShimSendsHarness,
        Hop::GwAccepted,
        Hop::GwHeadRead,
        Hop::GwBodyRead,
        Hop::GwAuthed,
        Hop::GwDecided,
        Hop::GwRequestAudited,
        Hop::GwUpConnected,
        Hop::GwUpWritten,
        Hop::GwUpHead,
        Hop::GwUpBodyEnd,
        Hop::GwReplied,
        Hop::GwClosed,
        Hop::GwResponseAudited,
    ];
}

/// Stamps kept per hop; later ones are counted, not kept.
pub const CAP: usize = 1 << 14;

/// What a dump starts with: the format's name and version.
pub const MAGIC: &[u8; 8] = b"MPTHOP2\n";

/// A dump: `MAGIC`, then one little-endian u64 count per hop (`Hop::ALL`'s order), then each
/// hop's stamps (nanoseconds of CLOCK_MONOTONIC, at most `CAP`, in the order taken).
pub fn encode(stamps: &[Vec<u64>]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    for s in stamps {
        out.extend_from_slice(&(s.len().min(CAP) as u64).to_le_bytes());
    }
    for s in stamps {
        for t in s.iter().take(CAP) {
            out.extend_from_slice(&t.to_le_bytes());
        }
    }
    out
}

/// A dump's stamps, one list per hop; `None` when `bytes` is not a whole dump.
pub fn decode(bytes: &[u8]) -> Option<Vec<Vec<u64>>> {
    let rest = bytes.strip_prefix(MAGIC.as_slice())?;
    let mut words = rest
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")));
    let counts: Vec<usize> = (&mut words)
        .take(Hop::ALL.len())
        .map(|c| (c as usize).min(CAP))
        .collect();
    if counts.len() != Hop::ALL.len()
        || rest.len() != 8 * (counts.len() + counts.iter().sum::<usize>())
    {
        return None;
    }
    Some(
        counts
            .iter()
            .map(|n| (&mut words).take(*n).collect())
            .collect(),
    )
}

/// Stamps `hop` (a `hop-trace` build with `MPT_HOP_TRACE` set); compiles to nothing otherwise.
#[cfg(feature = "hop-trace")]
#[macro_export]
macro_rules! hop {
    ($hop:ident) => {
        $crate::hop_trace::record($crate::hop_trace::Hop::$hop)
    };
}

/// Stamps `hop` (a `hop-trace` build with `MPT_HOP_TRACE` set); compiles to nothing otherwise.
#[cfg(not(feature = "hop-trace"))]
#[macro_export]
macro_rules! hop {
    ($hop:ident) => {
        let _ = $crate::hop_trace::Hop::$hop;
    };
}

#[cfg(feature = "hop-trace")]
pub use recorder::{dump, init, record};

/// Without the feature: nothing to set up.
#[cfg(not(feature = "hop-trace"))]
pub fn init(_env: &crate::config::Env) {}

#[cfg(feature = "hop-trace")]
mod recorder {
    use std::ffi::CString;
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

    use super::{CAP, Hop, MAGIC};

    const HOPS: usize = Hop::ALL.len();

    /// Stamps of one kind: a count and room for `CAP` stamps per hop.
    type Stamps = [[AtomicU64; CAP]; HOPS];

    static ON: AtomicBool = AtomicBool::new(false);
    /// Whether each stamp also reads the thread's CPU time (`MPT_HOP_TRACE_CPU`).
    static CPU: AtomicBool = AtomicBool::new(false);
    static COUNTS: [AtomicUsize; HOPS] = [const { AtomicUsize::new(0) }; HOPS];
    static STAMPS: Stamps = [const { [const { AtomicU64::new(0) }; CAP] }; HOPS];
    /// The thread's CPU time at each stamp, at the same index as its CLOCK_MONOTONIC one.
    static CPU_STAMPS: Stamps = [const { [const { AtomicU64::new(0) }; CAP] }; HOPS];

    /// Where a dump goes: the file and the file it is written as first.
    struct Paths {
        path: CString,
        tmp: CString,
    }

    /// `<prefix>.<pid>` and, with CPU stamps, `<prefix>.<pid>.cpu`, made once at `init` (the
    /// dump allocates nothing: it runs in a signal handler too).
    static PATHS: OnceLock<(Paths, Paths)> = OnceLock::new();

    fn paths(path: String) -> Option<Paths> {
        Some(Paths {
            path: CString::new(path.clone()).ok()?,
            tmp: CString::new(path + ".tmp").ok()?,
        })
    }

    /// Turns the trace on when `MPT_HOP_TRACE` names a prefix: dumped at exit and on SIGUSR2.
    pub fn init(env: &crate::config::Env) {
        let Some(prefix) = env.get("MPT_HOP_TRACE") else {
            return;
        };
        let path = format!("{prefix}.{}", std::process::id());
        let (Some(wall), Some(cpu)) = (paths(path.clone()), paths(path + ".cpu")) else {
            return;
        };
        if PATHS.set((wall, cpu)).is_err() {
            return;
        }
        CPU.store(
            env.get("MPT_HOP_TRACE_CPU").is_some_and(|v| v == "1"),
            Ordering::Release,
        );
        // SAFETY: `dump` and `on_signal` are `extern "C"` functions that only read statics and
        // make async-signal-safe calls (open, write, close, rename). Safe code will not do: no
        // safe wrapper installs a raw signal handler or an atexit hook.
        unsafe {
            libc::atexit(at_exit);
            libc::signal(libc::SIGUSR2, on_signal as *const () as libc::sighandler_t);
        }
        ON.store(true, Ordering::Release);
    }

    fn clock(id: rustix::time::ClockId) -> u64 {
        let ts = rustix::time::clock_gettime(id);
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }

    /// Stamps `hop`: one vDSO clock read and two relaxed atomics (and, with CPU stamps, the
    /// thread's CPU clock: a syscall).
    #[inline]
    pub fn record(hop: Hop) {
        if !ON.load(Ordering::Relaxed) {
            return;
        }
        let ns = clock(rustix::time::ClockId::Monotonic);
        let i = COUNTS[hop as usize].fetch_add(1, Ordering::Relaxed);
        if i < CAP {
            STAMPS[hop as usize][i].store(ns, Ordering::Relaxed);
            if CPU.load(Ordering::Relaxed) {
                let cpu = clock(rustix::time::ClockId::ThreadCPUTime);
                CPU_STAMPS[hop as usize][i].store(cpu, Ordering::Relaxed);
            }
        }
    }

    extern "C" fn at_exit() {
        dump();
    }

    extern "C" fn on_signal(_: libc::c_int) {
        dump();
    }

    /// Writes the stamps so far to `<prefix>.<pid>` (whole: written aside, then renamed), and
    /// the CPU stamps to `<prefix>.<pid>.cpu` when they were taken.
    pub extern "C" fn dump() {
        let Some((wall, cpu)) = PATHS.get() else {
            return;
        };
        let mut counts = [0u64; HOPS];
        for (c, n) in counts.iter_mut().zip(&COUNTS) {
            *c = (n.load(Ordering::Relaxed).min(CAP) as u64).to_le();
        }
        write_dump(wall, &counts, &STAMPS);
        if CPU.load(Ordering::Relaxed) {
            write_dump(cpu, &counts, &CPU_STAMPS);
        }
    }

    fn write_dump(to: &Paths, counts: &[u64; HOPS], stamps: &Stamps) {
        // SAFETY: plain syscalls on a file we create; every buffer is a live static or local
        // of the length given (an AtomicU64 has u64's layout; x86-64 and arm64 are little-endian,
        // as `decode` reads it). Safe code will not do: this runs in a signal handler, so no
        // allocation and no lock, and the atomics are written out as the bytes they hold.
        unsafe {
            let fd = libc::open(
                to.tmp.as_ptr(),
                libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_CLOEXEC,
                0o600,
            );
            if fd < 0 {
                return;
            }
            let mut ok = write_all(fd, MAGIC.as_ptr(), MAGIC.len());
            ok &= write_all(fd, counts.as_ptr().cast(), HOPS * 8);
            for (h, c) in counts.iter().enumerate() {
                ok &= write_all(fd, stamps[h].as_ptr().cast(), u64::from_le(*c) as usize * 8);
            }
            libc::close(fd);
            if ok {
                libc::rename(to.tmp.as_ptr(), to.path.as_ptr());
            }
        }
    }

    /// SAFETY: `buf` is readable for `len` bytes.
    unsafe fn write_all(fd: libc::c_int, mut buf: *const u8, mut len: usize) -> bool {
        while len > 0 {
            // SAFETY: the caller's promise, for what is left of it.
            let n = unsafe { libc::write(fd, buf.cast(), len) };
            if n <= 0 {
                return false;
            }
            // SAFETY: `n <= len`: still inside the buffer.
            buf = unsafe { buf.add(n as usize) };
            len -= n as usize;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_hop_indexes_its_place_in_all() {
        for (i, h) in Hop::ALL.iter().enumerate() {
            assert_eq!(*h as usize, i, "{h:?}");
        }
    }

    #[test]
    fn a_dump_decodes_to_the_stamps_encoded() {
        let stamps: Vec<Vec<u64>> = (0..Hop::ALL.len() as u64)
            .map(|h| (0..h).map(|i| h * 100 + i).collect())
            .collect();
        assert_eq!(decode(&encode(&stamps)), Some(stamps.clone()));
        let bytes = encode(&stamps);
        assert_eq!(
            decode(&bytes[..bytes.len() - 1]),
            None,
            "a cut dump is refused"
        );
        assert_eq!(decode(b"not a dump"), None);
    }

    /// The feature build: stamps are kept once `init` saw the variable, and the dump holds them.
    #[cfg(feature = "hop-trace")]
    #[test]
    fn the_stamps_taken_are_in_the_dump() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("trace");
        let env = crate::config::Env::from_pairs([
            ("MPT_HOP_TRACE", prefix.to_str().unwrap()),
            ("MPT_HOP_TRACE_CPU", "1"),
        ]);
        init(&env);
        let from = now();
        for _ in 0..3 {
            crate::hop!(OwnerReplied);
        }
        let to = now();
        dump();
        let file = dir.path().join(format!("trace.{}", std::process::id()));
        let stamps = decode(&std::fs::read(&file).unwrap()).expect("a whole dump");
        let replied = &stamps[Hop::OwnerReplied as usize];
        // Other tests of this binary may pass the edge's hooks meanwhile: at least these three.
        let ours = replied.iter().filter(|t| (from..=to).contains(*t)).count();
        assert!(ours >= 3, "{from}..{to}: {replied:?}");
        // Each stamp's CPU time beside it: one for each, read off a running thread.
        let cpu = std::fs::read(dir.path().join(format!("trace.{}.cpu", std::process::id())));
        let cpu = decode(&cpu.unwrap()).expect("a whole CPU dump");
        assert_eq!(cpu[Hop::OwnerReplied as usize].len(), replied.len());
        assert!(cpu[Hop::OwnerReplied as usize].iter().any(|t| *t > 0));
    }

    #[cfg(feature = "hop-trace")]
    fn now() -> u64 {
        let ts = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }
}
