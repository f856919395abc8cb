//! The allocator settings a long-running program using the library wants,
//! and the crate's only `unsafe` code. The library never applies them
//! itself: that is the program's policy, so the binary applies them first
//! thing in `main`, and xtask's in-process measurements do the same, so they
//! measure what `serve` runs.
//!
//! Invariants of the `unsafe` block: glibc's `mallopt` is MT-Unsafe (glibc
//! manual: "MT-Unsafe init const:mallopt": it changes parameters that
//! `malloc` in other threads reads without a lock), so it runs only while
//! the calling thread is the process's only one, which is checked here
//! rather than promised by the caller; its arguments are plain integers,
//! and a value glibc refuses leaves the default in place.

/// Keeps large allocations in glibc's heap for reuse; returns whether the
/// settings were applied (not when another thread already exists, or
/// `/proc` cannot tell).
///
/// Why: glibc serves allocations above 128 KiB (a page's HTML, a chapter's
/// Markdown) with a fresh `mmap` and unmaps them on free, so every page paid
/// for zeroed pages again: page faults were about a tenth of a sample build's
/// CPU (`perf`), and 16% of an incremental rebuild's samples (clearing pages
/// alone 11%; 4% with these settings). A fixed threshold keeps such buffers
/// in the heap; the trim threshold keeps freed ones there too instead of
/// returning them at once. Peak memory stays bounded by what the build holds
/// at one time.
///
/// Call it first thing in `main`, before any other thread exists.
#[doc(hidden)]
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn tune_allocator() -> bool {
    if threads() != Some(1) {
        return false;
    }
    // SAFETY: this thread is the process's only one (checked just above),
    // and only it could start another, so no `malloc` runs meanwhile; see
    // the module's invariants.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
    }
    true
}

/// Keeps large allocations in glibc's heap for reuse (nothing to do with
/// other allocators).
#[doc(hidden)]
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn tune_allocator() -> bool {
    false
}

/// How many threads the process has (`Threads:` of `/proc/self/status`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn threads() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    /// The test harness runs tests on threads of its own, so the settings
    /// are refused here; `threads` counts them.
    #[test]
    fn refused_when_other_threads_exist() {
        let n = super::threads().expect("/proc/self/status has Threads:");
        assert!(n >= 2, "the harness's main thread and this one: {n}");
        assert!(!super::tune_allocator());
    }
}
