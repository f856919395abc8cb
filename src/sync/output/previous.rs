//! The `--previous` data directory: what a sync carries over (the page's
//! Mooncake donor block, cells of carried-over lanes with the files and shared
//! env they use), the file name each page had, and the other side of the
//! comparison. Uses `data` and `decode`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::data::{self, Loaded};
use crate::decode::{self, DecodedPage};
use crate::sync::generate::doors::nginx::KnownFiles;

/// One previous data file.
pub(in crate::sync) struct PreviousPage {
    pub path: PathBuf,
    pub loaded: Loaded,
    /// The file's object, as written.
    pub raw: Map<String, Value>,
    pub decoded: DecodedPage,
}

/// Every data file of the directory, by page name.
pub(in crate::sync) fn load(dir: &Path) -> Result<BTreeMap<String, PreviousPage>, Vec<String>> {
    let files = data::data_files_in(dir).map_err(|e| vec![format!("--previous: {e:#}")])?;
    let mut out: BTreeMap<String, PreviousPage> = BTreeMap::new();
    let mut errors = Vec::new();
    for path in files {
        match load_one(&path) {
            Ok(page) => {
                let name = page.loaded.data.model.clone();
                if let Some(old) = out.get(&name) {
                    // The same object in both forms (`.json` and `.jsx`) is one page.
                    if old.raw == page.raw {
                        continue;
                    }
                    errors.push(format!(
                        "--previous: {} and {} both hold page `{name}`, with different contents",
                        old.path.display(),
                        path.display()
                    ));
                } else {
                    out.insert(name, page);
                }
            }
            Err(e) => errors.push(format!("--previous: {e}")),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

fn load_one(path: &Path) -> Result<PreviousPage, String> {
    let text = crate::sync::input::capped::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let loaded = data::parse_str(&text, path).map_err(|e| format!("{e:#}"))?;
    let json = data::json_text(&text).map_err(|e| format!("{}: {e:#}", path.display()))?;
    let raw: Map<String, Value> =
        serde_json::from_str(&json).map_err(|e| format!("{}: {e}", path.display()))?;
    let decoded =
        decode::decode_page(&loaded.data).map_err(|e| format!("{}: {e:#}", path.display()))?;
    Ok(PreviousPage {
        path: path.to_path_buf(),
        loaded,
        raw,
        decoded,
    })
}

impl PreviousPage {
    pub(in crate::sync) fn kv_mooncake(&self) -> Option<Value> {
        self.raw.get("kvMooncake").cloned()
    }

    /// The page's shared env dicts (`envRef` targets), as written.
    pub(in crate::sync) fn envs(&self) -> Value {
        self.raw
            .get("envs")
            .cloned()
            .unwrap_or(Value::Array(Vec::new()))
    }

    fn cells(&self) -> &[Value] {
        self.raw
            .get("cells")
            .and_then(|c| c.as_array())
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Indices of the cells of a lane.
    pub(in crate::sync) fn lane_cells(&self, config_key: &str) -> Vec<usize> {
        self.loaded
            .data
            .cells
            .iter()
            .enumerate()
            .filter(|(_, c)| c.config_key == config_key)
            .map(|(i, _)| i)
            .collect()
    }

    /// A cell as written, with `ref`s renumbered by `new_index` (old index →
    /// new); a ref to a cell that is not carried over is an error.
    pub(in crate::sync) fn carried_cell(
        &self,
        index: usize,
        new_index: &dyn Fn(usize) -> Option<usize>,
    ) -> Result<Value, String> {
        let mut cell = self.cells().get(index).cloned().ok_or("no such cell")?;
        let id = self.loaded.data.cells[index].id.clone();
        renumber(&mut cell, new_index).map_err(|old| {
            let target = self
                .loaded
                .data
                .cells
                .get(old)
                .map_or("?".to_string(), |c| c.id.clone());
            format!(
                "carried cell `{id}` refers to cell `{target}`, which is not carried over; \
                 carry its lane over too"
            )
        })?;
        Ok(cell)
    }

    /// `files` entries of this page, by key.
    pub(in crate::sync) fn file(&self, key: &str) -> Option<Value> {
        self.raw.get("files").and_then(|f| f.get(key)).cloned()
    }

    /// The file name this page had.
    pub(in crate::sync) fn file_name(&self) -> String {
        self.path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The form this page had: a `.jsx` module or JSON.
    pub(in crate::sync) fn format(&self) -> crate::sync::DataFormat {
        if self.path.extension().is_some_and(|e| e == "jsx") {
            crate::sync::DataFormat::Jsx
        } else {
            crate::sync::DataFormat::Json
        }
    }
}

fn renumber(v: &mut Value, new_index: &dyn Fn(usize) -> Option<usize>) -> Result<(), usize> {
    match v {
        Value::Object(map) => {
            if let Some(Value::Array(r)) = map.get_mut("ref")
                && let Some(old) = r.first().and_then(|x| x.as_u64())
            {
                let old = usize::try_from(old).unwrap_or(usize::MAX);
                r[0] = Value::from(new_index(old).ok_or(old)?);
            }
            for (_, child) in map.iter_mut() {
                renumber(child, new_index)?;
            }
        }
        Value::Array(items) => {
            for child in items {
                renumber(child, new_index)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// The config files of every previous page, for generated files of the same
/// directives to take their text.
pub(in crate::sync) fn known_files(pages: &BTreeMap<String, PreviousPage>) -> KnownFiles {
    let mut known = KnownFiles::default();
    for page in pages.values() {
        let files = page.raw.get("files").and_then(|f| f.as_object());
        for f in files.into_iter().flat_map(|f| f.values()) {
            if let (Some(name), Some(content)) = (
                f.get("name").and_then(|n| n.as_str()),
                f.get("content").and_then(|c| c.as_str()),
            ) {
                known.add(name, content);
            }
        }
    }
    known
}

/// File keys a raw cell's routers use.
pub(in crate::sync) fn cell_file_keys(cell: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(routers) = cell.get("routers").and_then(|r| r.as_object()) {
        for r in routers.values() {
            for k in r
                .get("files")
                .and_then(|f| f.as_array())
                .into_iter()
                .flatten()
            {
                if let Some(k) = k.as_str() {
                    out.push(k.to_string());
                }
            }
        }
    }
    out
}
