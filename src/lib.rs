//! mdbook-agentx: static AgentX launch-recipe sections for mdBook books.
//!
//! Pipeline: [`data`] loads an AgentX data file, [`decode`] turns it into
//! command sets, [`render`] writes Markdown, [`directive`] splices that
//! Markdown into chapters, and [`preprocess`] speaks mdBook's protocol.

pub mod bench;
pub mod check;
pub mod data;
pub mod decode;
pub mod diff;
pub mod directive;
pub mod manifest;
pub mod preprocess;
pub mod render;
pub mod serve;
pub mod shell;
pub mod site;
pub mod stats;
pub mod util;
