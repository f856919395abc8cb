//! The allocator settings every long-running use of the library wants: the
//! binary applies them at start, and the benchmark's in-process rebuilds
//! (xtask) apply the same, so they measure what `serve` runs.

/// Keeps large allocations in glibc's heap for reuse.
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
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn tune_allocator() {
    // SAFETY: mallopt only changes allocator parameters; the caller runs it
    // before any other thread exists, and a refused value leaves the default.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
    }
}

/// Keeps large allocations in glibc's heap for reuse (nothing to do with
/// other allocators).
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn tune_allocator() {}
