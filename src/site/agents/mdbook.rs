//! The agent files of a book mdBook builds: an mdBook renderer (`install
//! --agent-files` adds it as `[output.html-agentx]`) that writes
//! `llms.txt`, `llms-full.txt`, `launches.json` and a Markdown twin of
//! every chapter beside the pages mdBook's `html` renderer wrote.
//!
//! Why a renderer: a preprocessor cannot add files to mdBook's output (the
//! html renderer empties its directory first, and copies from the source
//! directory every file but Markdown, so twins could not come from there
//! either), and writing into `src/` would change the book's inputs. mdBook
//! runs renderers in the order of their names, so `html-agentx` runs after
//! `html`; with two renderers each writes into its own directory under the
//! build directory (`book/html/`, `book/html-agentx/`), and this one writes
//! into `html/`, next to the pages, nowhere else.
//!
//! The book is expanded again here with the same preprocessor, so the files
//! are the ones a standalone build writes for the same book.
//!
//! May use: `manifest`, `util`; of the site: `agents`, `book`, `Site`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use crate::site::SiteFile;
use crate::site::agents;
use crate::util::fs::{is_plain_relative, normalize};
use crate::util::notice::Notice;

/// The renderer's name in `book.toml` (`[output.html-agentx]`): it must sort
/// after `html`, which mdBook runs first.
pub const AGENT_FILES_RENDERER: &str = "html-agentx";

/// What the renderer wrote.
#[derive(Debug, Clone, Default)]
pub struct AgentFilesReport {
    /// mdBook's HTML output directory, where the files went.
    pub out_dir: PathBuf,
    /// Files written.
    pub files: usize,
    /// Markdown twins among them.
    pub twins: usize,
    /// Files mdBook had copied there from the source directory that a
    /// generated file replaced (rename them in the book).
    pub replaced: Vec<PathBuf>,
    /// What expanding the book had to say.
    pub notices: Vec<Notice>,
}

/// The parts of mdBook's render context this renderer reads.
#[derive(Deserialize)]
struct RenderContext {
    root: PathBuf,
    destination: PathBuf,
    config: serde_json::Value,
}

/// Runs as mdBook's renderer: `context` is the render context mdBook writes
/// on stdin. Writes the agent files beside the html renderer's pages.
pub fn render_agent_files(context: &[u8]) -> Result<AgentFilesReport> {
    let ctx: RenderContext = serde_json::from_slice(context).context(
        "reading mdBook's render context on stdin; run `agent-files` as an mdBook renderer \
         ([output.html-agentx] in book.toml, which `mdbook-agentx install --agent-files` adds)",
    )?;
    let html_dir = html_dir_of(&ctx)?;
    publish_agent_files(&ctx.root, &html_dir)
}

/// Where mdBook's html renderer wrote: `html/` beside this renderer's own
/// destination, both in the build directory.
fn html_dir_of(ctx: &RenderContext) -> Result<PathBuf> {
    let outputs = ctx.config.get("output").and_then(|o| o.as_object());
    if !outputs.is_some_and(|o| o.contains_key("html")) {
        bail!(
            "mdBook's html renderer is not configured: the agent files go beside its pages; \
             add [output.html] to book.toml"
        );
    }
    let build_dir = ctx
        .config
        .pointer("/build/build-dir")
        .and_then(|d| d.as_str())
        .unwrap_or("book");
    let build_dir = normalize(&ctx.root.join(build_dir));
    let destination = normalize(&ctx.destination);
    if destination.parent() != Some(build_dir.as_path()) {
        bail!(
            "mdBook's render destination {} is not a renderer's directory in the build \
             directory {}; run `agent-files` as the renderer [output.{AGENT_FILES_RENDERER}]",
            destination.display(),
            build_dir.display()
        );
    }
    Ok(build_dir.join("html"))
}

/// Writes the agent files of the book at `root` into `html_dir`, where
/// mdBook's html renderer has just written its pages (every chapter's page
/// must be there: this renderer runs after `html`).
pub fn publish_agent_files(root: &Path, html_dir: &Path) -> Result<AgentFilesReport> {
    let site = crate::site::Site::load(root)?;
    if let Some(p) = site
        .pages
        .iter()
        .map(|p| crate::site::html_path(&p.path))
        .find(|p| !html_dir.join(p).is_file())
    {
        bail!(
            "{} is missing: the agent files are written after mdBook's html renderer, into its \
             output; is [output.{AGENT_FILES_RENDERER}] the renderer running this, and does \
             [output.html] build the book?",
            html_dir.join(p).display()
        );
    }
    let files = agent_files(&site)?;
    let real_dir = std::fs::canonicalize(html_dir)
        .with_context(|| format!("cannot open {}", html_dir.display()))?;
    let mut report = AgentFilesReport {
        out_dir: html_dir.to_path_buf(),
        ..AgentFilesReport::default()
    };
    for f in &files {
        let generated_twin = f.path.extension().is_some_and(|e| e == "md");
        if write_inside(&real_dir, &f.path, &f.bytes)? && !generated_twin {
            report.replaced.push(f.path.clone());
        }
        report.files += 1;
        report.twins += usize::from(generated_twin);
    }
    report.notices = site.notices.take();
    Ok(report)
}

/// Every agent file of an expanded site, in memory.
fn agent_files(site: &crate::site::Site) -> Result<Vec<SiteFile>> {
    let texts = agents::MemoryTexts::new(&site.manifest);
    let options = site.dir.html.markdown;
    let mut files = Vec::with_capacity(site.pages.len() + 4);
    for p in &site.pages {
        let twin = agents::twin(&p.markdown, &p.path, options, &texts)?;
        files.push(SiteFile::new(agents::twin_path(&p.path), twin.into_bytes()));
    }
    // mdBook writes the first chapter as index.html too.
    let index = Path::new("index.md");
    let at_root = site.pages[0].path.parent() == Some(Path::new(""));
    if at_root && !files.iter().any(|f| f.path == index) {
        let first = files[0].bytes.clone();
        files.push(SiteFile {
            path: index.to_path_buf(),
            bytes: first,
        });
    }
    let mut full = Vec::new();
    site.write_llms_full(&mut full, &|twin| {
        files
            .iter()
            .find(|f| f.path == twin)
            .map(|f| f.bytes.clone())
            .with_context(|| format!("no twin {}", twin.display()))
    })?;
    files.push(SiteFile::new(agents::LLMS_FULL_TXT.into(), full));
    files.push(SiteFile::new(
        agents::LLMS_TXT.into(),
        site.llms_txt().into_bytes(),
    ));
    let entries = site
        .manifest
        .iter()
        .flat_map(|c| c.iter().cloned())
        .collect();
    files.push(SiteFile::new(
        crate::manifest::MANIFEST.into(),
        crate::manifest::Manifest::new(entries)
            .to_json()
            .into_bytes(),
    ));
    Ok(files)
}

/// Writes `bytes` at `rel` below `dir` (resolved), whole: into a temporary
/// file beside it, renamed over it. Directories on the way must resolve
/// inside `dir` (a symlinked directory in mdBook's output must not lead
/// elsewhere). Returns whether a file was there.
fn write_inside(dir: &Path, rel: &Path, bytes: &[u8]) -> Result<bool> {
    use std::io::Write as _;
    if !is_plain_relative(rel) {
        bail!(
            "refusing to write {}: the path leaves the output directory",
            rel.display()
        );
    }
    let target = dir.join(rel);
    let parent = target.parent().expect("below dir");
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    let real_parent = std::fs::canonicalize(parent)
        .with_context(|| format!("cannot open {}", parent.display()))?;
    if !real_parent.starts_with(dir) {
        bail!(
            "refusing to write {}: {} resolves outside the output directory, to {}",
            rel.display(),
            parent.display(),
            real_parent.display()
        );
    }
    let existed = std::fs::symlink_metadata(&target).is_ok();
    let cannot = || format!("cannot write {}", target.display());
    let mut b = tempfile::Builder::new();
    b.prefix(".agentx-");
    #[cfg(unix)]
    b.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = b.tempfile_in(&real_parent).with_context(cannot)?;
    tmp.write_all(bytes).with_context(cannot)?;
    tmp.persist(real_parent.join(target.file_name().expect("a file name")))
        .with_context(cannot)?;
    Ok(existed)
}
