//! `install`: sets an mdBook book up for AgentX, as `mdbook-admonish install`
//! does: writes the AgentX assets into the book root and adds to `book.toml`
//! (edited with `toml_edit`, so the user's comments, order and formatting
//! stay) the `[preprocessor.agentx]` table, the assets to `[output.html]
//! additional-css / additional-js`, and the data directory to `[build]
//! extra-watch-dirs` so `mdbook serve` rebuilds when a data file changes.
//! Running it twice changes nothing; a `book.toml` with CRLF line breaks
//! keeps them. Assets are read under the book's `allow-outside` and
//! `max-file-mib`, as a build reads them.
//!
//! May use: `book` (the book's source and data directories), `preprocessor`
//! (the asset list), `site` (the agent-files renderer's name), `util` (reads
//! inside the book's bounds).

mod agent_files;

use std::path::Path;

use anyhow::{Context, Result, bail};
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, Value};

use crate::book::SourceAndData;
use crate::preprocessor::assets::{AGENTX_ASSETS, AgentxAsset, Installed, installed_state};
use crate::util::fs::Bounds;

mod mdbook_output;

/// How [`install`] treats files it did not write.
#[derive(Debug, Clone, Copy, Default)]
pub struct InstallOptions {
    /// Overwrite asset files that `install` did not write, or that were
    /// edited since (refused otherwise).
    pub force: bool,
    /// Also add the `[output.html-agentx]` renderer: `llms.txt`,
    /// `llms-full.txt`, `launches.json` and Markdown twins beside the HTML.
    pub agent_files: bool,
}

/// What [`install`] changed, one line per change, for the user.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstallReport {
    /// Files written and `book.toml` entries added.
    pub changes: Vec<String>,
    /// Things the user should know (e.g. data that mdBook would publish).
    pub notes: Vec<String>,
}

/// Sets up the book at `book_dir` (see the module documentation).
pub fn install(book_dir: &Path, opts: &InstallOptions) -> Result<InstallReport> {
    install_assets(book_dir, AGENTX_ASSETS, opts)
}

/// [`install`] with the asset list as a parameter (tests use other lists).
pub(crate) fn install_assets(
    book_dir: &Path,
    assets: &[AgentxAsset],
    opts: &InstallOptions,
) -> Result<InstallReport> {
    let toml_path = book_dir.join("book.toml");
    let hint = || {
        format!(
            "is {} a book directory? (`mdbook init` makes one)",
            book_dir.display()
        )
    };
    let original = Bounds::strict(book_dir)
        .and_then(|b| b.read_to_string(&toml_path))
        .with_context(hint)?;
    let mut doc: DocumentMut = original
        .parse()
        .with_context(|| format!("{} is not valid TOML", toml_path.display()))?;
    // What the book's paths and settings are, read as every command reads
    // them; the document above is only for editing.
    let book =
        SourceAndData::from_toml(&original).with_context(|| toml_path.display().to_string())?;
    // The assets are read under the book's own `allow-outside` and
    // `max-file-mib`, as a build reads them (and as refusals advise).
    let bounds = book
        .agentx
        .bounds(book_dir)
        .with_context(|| format!("{}: [preprocessor.agentx]", toml_path.display()))?;
    let mut report = InstallReport::default();
    let shown = toml_path.display().to_string();
    // Every asset is checked before anything is written.
    let mut to_write = Vec::new();
    for asset in assets {
        let path = book_dir.join(asset.name);
        let state = installed_state(asset, &path, &bounds)?;
        match state {
            Installed::Current => {}
            Installed::Foreign | Installed::Edited if !opts.force => bail!(
                "{} exists and {}; move it away, or run `mdbook-agentx install --force` to \
                 overwrite it",
                path.display(),
                if state == Installed::Edited {
                    "was edited after `mdbook-agentx install` wrote it"
                } else {
                    "was not written by `mdbook-agentx install`"
                }
            ),
            _ => to_write.push((asset, path)),
        }
    }
    edit_book_toml(&mut doc, &book, assets, &shown, &mut report)?;
    if html_output(&doc) {
        let dirs = mdbook_output::generated_dirs(&book_dir.join(&book.src), &bounds)?;
        mdbook_output::keep_generated_chapters_aside(&mut doc, &dirs, &shown, &mut report)?;
    }
    if opts.agent_files {
        agent_files::add_renderer(&mut doc, &book.build_dir, &shown, &mut report)?;
    }
    for (asset, path) in to_write {
        write_file(&path, asset.installed_text().as_bytes())?;
        report.changes.push(format!("wrote {}", path.display()));
    }
    let edited = with_line_breaks_of(&original, doc.to_string());
    if edited != original {
        write_file(&toml_path, edited.as_bytes())?;
    }
    Ok(report)
}

/// `edited` with CRLF line breaks when `original`'s first line break is
/// CRLF: `toml_edit` writes `\n`, and a file saved with CRLF must keep them
/// (a diff of every line otherwise).
fn with_line_breaks_of(original: &str, edited: String) -> String {
    let crlf = original
        .find('\n')
        .is_some_and(|i| original[..i].ends_with('\r'));
    if crlf {
        edited.replace("\r\n", "\n").replace('\n', "\r\n")
    } else {
        edited
    }
}

/// The table at `key` of `parent` (a table or inline table), created when
/// missing: implicit, so `[a.b]` alone shows when only `a.b` holds keys.
fn child_table<'a>(parent: &'a mut Item, key: &str, shown: &str) -> Result<&'a mut Item> {
    let inline = matches!(parent, Item::Value(Value::InlineTable(_)));
    let slot = parent
        .get_mut(key)
        .with_context(|| format!("{shown}: `{key}`'s parent is not a table"))?;
    if slot.is_none() {
        *slot = if inline {
            Item::Value(Value::InlineTable(InlineTable::new()))
        } else {
            let mut t = Table::new();
            t.set_implicit(true);
            Item::Table(t)
        };
    }
    if !slot.is_table_like() {
        bail!(
            "{shown}: `{key}` must be a table; it is a {}",
            slot.type_name()
        );
    }
    Ok(slot)
}

/// The item at `path` (tables created as needed).
fn table_at<'a>(doc: &'a mut DocumentMut, path: &[&str], shown: &str) -> Result<&'a mut Item> {
    let mut item = doc.as_item_mut();
    for key in path {
        item = child_table(item, key, shown)?;
    }
    Ok(item)
}

/// Appends `entry` to the array `key` of `table` unless it is there; returns
/// whether it was added.
fn add_to_array(table: &mut Item, key: &str, entry: &str, shown: &str) -> Result<bool> {
    let slot = table
        .get_mut(key)
        .with_context(|| format!("{shown}: cannot add `{key}`"))?;
    if slot.is_none() {
        *slot = Item::Value(Value::Array(Array::new()));
    }
    let kind = slot.type_name();
    let array = slot
        .as_array_mut()
        .with_context(|| format!("{shown}: `{key}` must be an array of paths; it is a {kind}"))?;
    let same = |v: &Value| v.as_str().is_some_and(|s| same_path(s, entry));
    if array.iter().any(same) {
        return Ok(false);
    }
    array.push(entry);
    Ok(true)
}

/// Whether two relative paths name the same file as written (`./a/` is `a`).
fn same_path(a: &str, b: &str) -> bool {
    let parts = |p: &str| {
        Path::new(p)
            .components()
            .filter(|c| !matches!(c, std::path::Component::CurDir))
            .map(|c| c.as_os_str().to_owned())
            .collect::<Vec<_>>()
    };
    parts(a) == parts(b)
}

/// The `[preprocessor.agentx]` table, the asset entries and the watched data
/// directory.
fn edit_book_toml(
    doc: &mut DocumentMut,
    book: &SourceAndData,
    assets: &[AgentxAsset],
    shown: &str,
    report: &mut InstallReport,
) -> Result<()> {
    let had_table = doc
        .get("preprocessor")
        .and_then(|p| p.get("agentx"))
        .is_some();
    let agentx = table_at(doc, &["preprocessor", "agentx"], shown)?;
    if !had_table {
        if let Item::Table(t) = agentx {
            t.set_implicit(false);
        }
        report
            .changes
            .push("book.toml: added [preprocessor.agentx]".into());
    }
    let data_dir = &book.agentx.data_dir;
    if !html_output(doc) {
        report.notes.push(
            "book.toml renders no html ([output] lists other renderers only), so the \
             assets are not added to [output.html]"
                .into(),
        );
    } else {
        let html = table_at(doc, &["output", "html"], shown)?;
        for asset in assets {
            let key = asset.kind().html_key();
            if add_to_array(html, key, asset.name, shown)? {
                report.changes.push(format!(
                    "book.toml: added {} to [output.html] {key}",
                    asset.name
                ));
            }
        }
    }
    let src = &book.src;
    if data_dir.starts_with(src) {
        report.notes.push(format!(
            "the data directory {} is inside the source directory {}: mdBook copies it into \
             the published site; move it out (e.g. to `agentx/`) and set `data-dir` in \
             [preprocessor.agentx]",
            data_dir.display(),
            src.display()
        ));
        return Ok(());
    }
    let build = table_at(doc, &["build"], shown)?;
    let dir = data_dir.to_string_lossy();
    if add_to_array(build, "extra-watch-dirs", &dir, shown)? {
        report.changes.push(format!(
            "book.toml: added {dir} to [build] extra-watch-dirs"
        ));
    }
    Ok(())
}

/// Whether the book renders html: `[output]` lists no renderer, or html
/// (other renderers only: adding `[output.html]` would turn html on).
fn html_output(doc: &DocumentMut) -> bool {
    !doc.get("output")
        .and_then(Item::as_table_like)
        .is_some_and(|t| !t.is_empty() && !t.contains_key("html"))
}

/// Writes `bytes` to `path` whole: into a temporary file beside it, renamed
/// over it. A new file gets the mode any new file gets (the umask applies),
/// not tempfile's private one; a replaced file keeps its mode.
fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write as _;
    let dir = path.parent().unwrap_or(Path::new("."));
    let cannot = || format!("cannot write {}", path.display());
    let mut b = tempfile::Builder::new();
    b.prefix(".agentx-install.");
    #[cfg(unix)]
    b.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = b.tempfile_in(dir).with_context(cannot)?;
    tmp.write_all(bytes).with_context(cannot)?;
    if let Ok(old) = std::fs::metadata(path) {
        tmp.as_file()
            .set_permissions(old.permissions())
            .with_context(cannot)?;
    }
    tmp.persist(path).with_context(cannot)?;
    Ok(())
}

#[cfg(test)]
mod tests;
