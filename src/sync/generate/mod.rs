//! What a lane becomes: its points ([`lane`]), each point's worker blocks
//! ([`workers`], through the rules table) and front doors ([`doors`]), its
//! golden acceptance length ([`golden`]); then the points grouped into
//! cells ([`cells`]) with the KV tiers they offer ([`kv`]).
//!
//! May use: `data`, `decode` (the lead order, KV flags), `util`; of `sync`:
//! `input`, `output` (the previous page's donor), `rules`, `bash`.

pub(super) mod cells;
pub(super) mod doors;
pub(super) mod golden;
pub(super) mod kv;
pub(super) mod lane;
pub(super) mod workers;
