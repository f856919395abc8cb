//! What a sync reads: the lane manifest ([`lane_manifest`]); InferenceX
//! files at the lanes' commits ([`source`], cached by [`reader`]), each read
//! under one size bound ([`capped`]) and parsed as PyYAML would ([`yaml`]);
//! the master config's entries ([`master`]); srt-slurm recipe variants
//! ([`recipe`]), typed ([`spec`]).
//!
//! May use: `data`, `util`; of `sync`: `rules`.

pub(super) mod capped;
pub(super) mod lane_manifest;
pub(super) mod master;
pub(super) mod reader;
pub(super) mod recipe;
pub(super) mod source;
pub(super) mod spec;
pub(super) mod yaml;
