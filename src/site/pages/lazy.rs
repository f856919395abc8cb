//! A model page's launch data beside it: the page keeps what its picker
//! opens on, and the whole data is a script file next to it that the
//! picker loads (a `<script src>`, so from `file://` too) when the reader
//! first asks for another launch ([`crate::render::light_model_data`]).
//! Keeps the largest real page under 25 KB gzip; mdBook's output and the
//! single file carry the whole data inline instead.
//!
//! May use: `render` (the light part of the model data).

use std::path::{Path, PathBuf};

const OPEN: &str = "<script type=\"application/json\" class=\"agentx-model-data\">";
const CLOSE: &str = "</script>";

/// A file beside the page: its path in the site and its bytes.
type Beside = (PathBuf, Vec<u8>);

/// `html` with each model-data script's JSON replaced by its light part,
/// and the scripts holding the whole data (paths relative to the site);
/// `None` when the page has no model data. A script that names an earlier
/// section's picker (`{"like": …}`, a repeat of the same launches) stays as
/// it is: agentx.js reads that section's light part and loads its file.
pub(in crate::site) fn split_model_data(html: &str, page: &Path) -> Option<(String, Vec<Beside>)> {
    if !html.contains(OPEN) {
        return None;
    }
    let stem = page.file_stem()?.to_string_lossy().into_owned();
    let dir = page.parent().unwrap_or(Path::new(""));
    let mut out = String::with_capacity(html.len() / 4);
    let mut files = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find(OPEN) {
        let body = &rest[at + OPEN.len()..];
        let end = body.find(CLOSE)?;
        let json = &body[..end];
        out.push_str(&rest[..at + OPEN.len()]);
        if crate::render::ModelDataJson::is_like(json) {
            out.push_str(json);
        } else {
            let name = match files.len() {
                0 => format!("{stem}.agentx-data.js"),
                n => format!("{stem}.agentx-data-{}.js", n + 1),
            };
            out.push_str(&crate::render::light_model_data(json, &name)?);
            let key = serde_json::to_string(&name).ok()?;
            let script = format!(
                "window.AGENTX_MODEL_DATA = window.AGENTX_MODEL_DATA || {{}};\n\
                 window.AGENTX_MODEL_DATA[{key}] = {json};\n"
            );
            files.push((dir.join(&name), script.into_bytes()));
        }
        rest = &body[end..];
    }
    out.push_str(rest);
    Some((out, files))
}
