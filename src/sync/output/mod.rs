//! What a sync writes: cells encoded against point 0 ([`encode`]), one
//! data file per page ([`page`]) in the upstream JSON layout ([`json`]),
//! checked and written whole ([`write`]); what the `--previous` data holds
//! ([`previous`]) and what a page loses against it ([`changes`]); the
//! report for the pull request ([`report`]).
//!
//! May use: `data`, `decode` (the round trip), `manifest` (the comparison
//! with `--previous`), `util`; of `sync`: `input`, `generate`.

pub(super) mod changes;
pub(super) mod encode;
pub(super) mod json;
pub(super) mod page;
pub(super) mod previous;
pub(super) mod report;
pub(super) mod write;
