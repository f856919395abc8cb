//! Copies of a book, and synthetic books N× its size: every data file and its
//! model chapter replicated under new page names, so refs, patches, routers
//! and tiers keep their real shapes.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};

/// Where a book keeps its chapters and its data, as `book.toml` says.
pub(crate) struct BookLayout {
    /// `[book] src`, relative to the book root.
    pub(crate) src: PathBuf,
    /// `[preprocessor.agentx] data-dir`, relative to the book root.
    pub(crate) data_dir: PathBuf,
    /// `[output.html] additional-css` and `additional-js`, relative to the book root.
    pub(crate) assets: Vec<PathBuf>,
}

impl BookLayout {
    /// Reads `book.toml` (with mdBook's and mdbook-agentx's defaults).
    pub(crate) fn of(book: &Path) -> Result<BookLayout> {
        let path = book.join("book.toml");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let toml: toml::Value =
            toml::from_str(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
        let get = |table: &[&str], key: &str, default: &str| -> PathBuf {
            let mut v = Some(&toml);
            for t in table {
                v = v.and_then(|v| v.get(t));
            }
            PathBuf::from(v.and_then(|v| v.get(key)?.as_str()).unwrap_or(default))
        };
        let html = toml.get("output").and_then(|o| o.get("html"));
        let assets = ["additional-css", "additional-js"]
            .iter()
            .filter_map(|key| html?.get(key)?.as_array())
            .flatten()
            .filter_map(|v| v.as_str().map(PathBuf::from))
            .collect();
        Ok(BookLayout {
            src: get(&["book"], "src", "src"),
            data_dir: get(&["preprocessor", "agentx"], "data-dir", "agentx"),
            assets,
        })
    }
}

pub(crate) fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    for e in walkdir::WalkDir::new(from) {
        let e = e?;
        let dest = to.join(e.path().strip_prefix(from)?);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest)?;
        } else {
            std::fs::copy(e.path(), &dest)?;
        }
    }
    Ok(())
}

/// The data-file edit the incremental and live-reload measurements make:
/// in Muse Spark Open's file (the sample's largest, else the first data
/// file), one concurrency's `--max-running-requests` value changes, so its
/// pages re-render.
pub(crate) struct DataEdit {
    pub(crate) path: PathBuf,
    pub(crate) original: String,
    pub(crate) edited: String,
}

impl DataEdit {
    /// The edit for the book copied to `book` with `layout`.
    pub(crate) fn of(book: &Path, layout: &BookLayout) -> Result<DataEdit> {
        let files = mdbook_agentx::data_files(&[book.join(&layout.data_dir)])?;
        let path = files
            .iter()
            .find(|p| p.to_string_lossy().contains("muse"))
            .or(files.first())
            .context("no data file to edit")?
            .clone();
        let original = std::fs::read_to_string(&path)?;
        let edited = original.replacen(
            "\"--max-running-requests\": [\"",
            "\"--max-running-requests\": [\"1",
            1,
        );
        if edited == original {
            bail!("{}: nothing to edit", path.display());
        }
        Ok(DataEdit {
            path,
            original,
            edited,
        })
    }
}

/// Copies what a book is made of (not its build output or anything else in
/// its directory, which may be a whole repository).
pub(crate) fn copy_book(sample: &Path, out: &Path) -> Result<BookLayout> {
    let layout = BookLayout::of(sample)?;
    let _ = std::fs::remove_dir_all(out);
    std::fs::create_dir_all(out)?;
    std::fs::copy(sample.join("book.toml"), out.join("book.toml"))?;
    let mut parts = vec![layout.src.clone(), layout.data_dir.clone()];
    parts.extend(["templates", "theme", "flags"].map(PathBuf::from));
    for part in parts {
        if sample.join(&part).is_dir() && !out.join(&part).exists() {
            copy_dir(&sample.join(&part), &out.join(&part))?;
        }
    }
    for asset in &layout.assets {
        if sample.join(asset).is_file() && !out.join(asset).exists() {
            if let Some(dir) = out.join(asset).parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::copy(sample.join(asset), out.join(asset))?;
        }
    }
    Ok(layout)
}

/// The JSON object of a data file in either form: JSON, or the JS module
/// `// comments … export const agentx = {…};`.
fn json_of(text: &str) -> Result<&str> {
    let start = text.find('{').context("no JSON object in the data file")?;
    let end = text.rfind('}').context("no JSON object in the data file")?;
    Ok(&text[start..=end])
}

/// A file-name stem for a page name.
fn stem_of(model: &str) -> String {
    let mut s = String::new();
    for c in model.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if !s.ends_with('-') {
            s.push('-');
        }
    }
    s.trim_matches('-').to_string()
}

/// Writes a synthetic book `scale` times the sample into `out`.
pub(crate) fn write_scaled_book(sample: &Path, scale: usize, out: &Path) -> Result<()> {
    let layout = copy_book(sample, out)?;
    let data_dir = out.join(&layout.data_dir);
    let files = mdbook_agentx::data_files(std::slice::from_ref(&data_dir))?;
    let mut summary = String::from("# Summary\n\n[Introduction](intro.md)\n\n# Models\n\n");
    let src = out.join(&layout.src);
    std::fs::create_dir_all(src.join("scaled"))?;
    if !src.join("intro.md").exists() {
        std::fs::write(src.join("intro.md"), "# Introduction\n")?;
    }
    for f in &files {
        let text = std::fs::read_to_string(f)?;
        let json = json_of(&text)?.to_string();
        std::fs::remove_file(f)?;
        for r in replicas(&json, scale)? {
            let name = &r.name;
            std::fs::write(data_dir.join(format!("{}.json", r.stem)), &r.json)?;
            std::fs::write(
                src.join("scaled").join(format!("{}.md", r.stem)),
                format!("# {name}\n\n<<agentx page=\"{name}\">>\n"),
            )?;
            summary.push_str(&format!("- [{name}](scaled/{}.md)\n", r.stem));
        }
    }
    std::fs::write(src.join("SUMMARY.md"), summary)?;
    Ok(())
}

/// One replica of a data file.
struct Replica {
    /// Its page name: `Model (k)`, or the model's own at scale 1.
    name: String,
    /// File stem of its data file and chapter: `model-k`.
    stem: String,
    json: String,
}

/// The `scale` replicas of one data file. Each replica serves its own
/// checkpoint, so its commands differ from every other replica's and no
/// cache can share their work.
fn replicas(json: &str, scale: usize) -> Result<Vec<Replica>> {
    let value: serde_json::Value = serde_json::from_str(json)?;
    let model = value["model"].as_str().unwrap_or("Model").to_string();
    let checkpoints: Vec<String> = value["checkpoints"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["id"].as_str().map(str::to_string))
        .collect();
    let mut out = Vec::new();
    for k in 1..=scale {
        let mut replica = json.to_string();
        if scale > 1 {
            for ckpt in &checkpoints {
                replica = replica.replace(&format!("\"{ckpt}\""), &format!("\"{ckpt}-r{k}\""));
            }
        }
        let mut v: serde_json::Value = serde_json::from_str(&replica)?;
        let name = if scale == 1 {
            model.clone()
        } else {
            format!("{model} ({k})")
        };
        v["model"] = serde_json::Value::String(name.clone());
        out.push(Replica {
            name,
            stem: format!("{}-{k}", stem_of(&model)),
            json: serde_json::to_string(&v)?,
        });
    }
    Ok(out)
}
