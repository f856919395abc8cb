//! Helpers every layer may use: escaping data text into Markdown, HTML and
//! inline scripts (`escape`), HTML read as a browser reads it (`html`), text
//! (slugs, closest names), fast hash maps, Markdown parser options, paths and directory
//! walks, ordered work on all cores, the notices operations return, and the
//! allocator's settings.
//!
//! May use: std and external crates only; nothing else of this crate.

pub(crate) mod alloc;
pub(crate) mod cmark;
pub(crate) mod escape;
pub(crate) mod fs;
pub(crate) mod hash;
pub(crate) mod html;
pub(crate) mod notice;
pub(crate) mod parallel;
pub(crate) mod text;
