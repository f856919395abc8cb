//! Where a build's files go and how they get there: sinks, in memory or a
//! staging directory ([`sink`]); where an output may go ([`destination`]);
//! the staged site swapped in whole ([`publish`]); and the `max-site-mib`
//! bound on what a build makes ([`capped`]).
//!
//! May use: `book`, `manifest`, `util`.

pub(super) mod capped;
pub(crate) mod destination;
pub(super) mod publish;
pub(super) mod sink;
