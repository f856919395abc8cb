//! Hash maps for the build's own caches and indexes.
//!
//! Why not std's SipHash: hashing was about 3% of a sample build (`perf`),
//! for keys such as search words, scope stacks and code lines. foldhash is
//! several times faster and still seeded per process, so data text from a
//! pull request cannot be crafted ahead of time to collide.

/// A `HashMap` with foldhash's per-process random seed.
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// A `HashSet` with foldhash's per-process random seed.
pub(crate) type FastSet<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;
