//! A model page's launch data beside it: the page keeps what its picker
//! opens on, and the whole data is a script file next to it that the
//! picker loads (a `<script src>`, so from `file://` too) when the reader
//! first asks for another launch ([`crate::render::light_model_data`]).
//! Keeps the largest real page under 25 KB gzip. mdBook's output holds the
//! whole data in pages of the book instead (`preprocessor::data_pages`);
//! the single file carries it inline.
//!
//! May use: `render` (the light part of the model data).

use std::path::{Path, PathBuf};

/// A file beside the page: its path in the site and its bytes.
type Beside = (PathBuf, Vec<u8>);

/// `html` with each model-data script's JSON replaced by its light part,
/// and the scripts holding the whole data (paths relative to the site);
/// `None` when the page has no model data to split. A script that names an
/// earlier section's picker (`{"like": …}`, a repeat of the same launches)
/// stays as it is: agentx.js reads that section's light part and loads its
/// file.
pub(in crate::site) fn split_model_data(html: &str, page: &Path) -> Option<(String, Vec<Beside>)> {
    let stem = page.file_stem()?.to_string_lossy().into_owned();
    let dir = page.parent().unwrap_or(Path::new(""));
    let mut files = Vec::new();
    let out = crate::render::splice_model_data(html, |json, out| {
        let name = match files.len() {
            0 => format!("{stem}.agentx-data.js"),
            n => format!("{stem}.agentx-data-{}.js", n + 1),
        };
        out.push_str(&crate::render::light_model_data(
            json,
            crate::render::WholeData::Script(&name),
        )?);
        let key = serde_json::to_string(&name).ok()?;
        let script = format!(
            "window.AGENTX_MODEL_DATA = window.AGENTX_MODEL_DATA || {{}};\n\
             window.AGENTX_MODEL_DATA[{key}] = {json};\n"
        );
        files.push((dir.join(&name), script.into_bytes()));
        Some(())
    })?;
    Some((out, files))
}
