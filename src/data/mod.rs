//! The AgentX data format: serde types for the whole schema, and loading from
//! JSON or from the JS module form (`export const agentx = {...};`).
//!
//! Both schema generations are accepted: the older one carries provenance on
//! every point (`runUrl`, `prUrl`, `status`, …), the newer one on the cell
//! (`cell.prov`). Fields that change a command (blocks, diffs, patches) reject
//! unknown keys, because ignoring one would print a wrong command. Descriptive
//! fields elsewhere tolerate unknown keys so a newer generator still loads;
//! every ignored key is reported in [`Loaded::ignored`] so nothing is dropped
//! silently.
//!
//! Loading also refuses what serde alone would take (`validate`): text that
//! is not UTF-8, a JSON key given twice, environment and flag names that are
//! not plain names (they reach the commands unquoted), text a reader's
//! shell or terminal would act on (`untrusted`: control characters, shell
//! expansion other than the known placeholders of `placeholders`), and
//! values that make broken pages. Each error names the JSON path or the byte
//! and line.
//!
//! May use: `util` only.

mod block;
mod ids;
mod limits;
mod load;
mod placeholders;
#[cfg(test)]
pub(crate) mod sample;
mod schema;
mod untrusted;
mod validate;

pub use self::block::Arg;
pub(crate) use self::block::{Block, BlockEdit, Diff, EncodedBlock, Patch};
pub use self::ids::{BlockKind, KvTier, Role, Router};
pub(crate) use self::load::{
    Loaded, data_files_in, is_data_file, json_text, load_file, page_name, parse_str, utf8_file,
};
pub(crate) use self::placeholders::placeholder_description;
pub use self::schema::ImageStatus;
pub(crate) use self::schema::{AgentxData, Cell, Env, Point, RunStatus};
