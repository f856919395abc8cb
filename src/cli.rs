//! Command-line interface. `main` returns the process exit code:
//! 0 success, 1 failure (bad input, failed check), 2 usage error.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use clap::{Parser, Subcommand, ValueEnum};
use serde_json::json;

use crate::data::{self, KvTier, Loaded, Router};
use crate::decode::{self, CommandSet, DecodedPage};
use crate::stats;

#[derive(Parser, Debug)]
#[command(
    name = "mdbook-agentx",
    version,
    about = "AgentX launch recipes as static Markdown: an mdBook preprocessor plus tools",
    long_about = "AgentX launch recipes as static Markdown.\n\n\
        Without a subcommand, runs as an mdBook preprocessor: reads [context, book] JSON on \
        stdin and writes the book JSON on stdout. Add it to book.toml as \
        [preprocessor.agentx]."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Tell mdBook whether a renderer is supported (exit 0: yes, 1: no).
    Supports {
        /// Renderer name, e.g. `html`.
        renderer: String,
    },
    /// Decode AgentX data files into command sets.
    ///
    /// With --json, prints every command set (or those matching the filters) as a
    /// JSON array. Without it, prints one command set as a reader would copy it;
    /// --cell and --conc select it, --kv and --router default to what was measured.
    Decode {
        /// AgentX data files (.json, or .jsx/.js modules).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print JSON instead of copyable text.
        #[arg(long)]
        json: bool,
        /// Cell id, e.g. `qwen3.8next-fp4-b300-sglang-agentic-mtp#0`.
        #[arg(long)]
        cell: Option<String>,
        /// A concurrency the point served.
        #[arg(long)]
        conc: Option<u32>,
        /// KV tier (default: the measured one).
        #[arg(long, value_enum)]
        kv: Option<TierArg>,
        /// Router (default: the submitted one).
        #[arg(long, value_enum)]
        router: Option<RouterArg>,
    },
    /// Build the book into static HTML (the output directory is replaced atomically).
    Build {
        /// Book directory (holding book.toml).
        #[arg(default_value = ".")]
        book_dir: PathBuf,
        /// Output directory (default: [build] build-dir of book.toml, usually `book`).
        #[arg(short = 'd', long = "dest-dir")]
        dest: Option<PathBuf>,
    },
    /// Build, serve over HTTP with live reload, and rebuild on every change.
    Serve {
        /// Book directory (holding book.toml).
        #[arg(default_value = ".")]
        book_dir: PathBuf,
        /// Address to listen on; anything but loopback is reachable from other machines.
        #[arg(long, default_value = "127.0.0.1")]
        bind: std::net::IpAddr,
        /// Port (0 picks a free one).
        #[arg(short, long, default_value_t = 3000)]
        port: u16,
        /// Open the site in a browser.
        #[arg(long)]
        open: bool,
        /// Poll the files instead of using native change notification.
        #[arg(long)]
        poll: bool,
    },
    /// Rebuild the book into its output directory on every change (no server).
    Watch {
        /// Book directory (holding book.toml).
        #[arg(default_value = ".")]
        book_dir: PathBuf,
        /// Output directory (default: [build] build-dir of book.toml).
        #[arg(short = 'd', long = "dest-dir")]
        dest: Option<PathBuf>,
        /// Poll the files instead of using native change notification.
        #[arg(long)]
        poll: bool,
    },
    /// Export the book for reading without a network.
    #[command(group(clap::ArgGroup::new("target").required(true).args(["offline", "single_file"])))]
    Export {
        /// Book directory (holding book.toml).
        #[arg(default_value = ".")]
        book_dir: PathBuf,
        /// Write a self-contained site to this directory (local assets, relative links).
        #[arg(long, value_name = "OUT")]
        offline: Option<PathBuf>,
        /// Write the whole book as one HTML file (assets inlined, chapters as sections).
        #[arg(long, value_name = "OUT.html")]
        single_file: Option<PathBuf>,
    },
    /// Check the book: every command line against its image's flag registry,
    /// KV tiers against each image, and every internal link and anchor.
    ///
    /// Exit code 0 only when all checks pass.
    Check {
        /// Book directory (holding book.toml).
        #[arg(default_value = ".")]
        book_dir: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: OutputFormat,
        /// List every warning instead of grouping them.
        #[arg(short, long)]
        verbose: bool,
    },
    /// Measure decode, build (against `mdbook build`), incremental rebuild,
    /// export, check and synthetic N× books; prints Markdown for docs/BENCHMARKS.md.
    Bench {
        /// Book directory (holding book.toml).
        #[arg(default_value = ".")]
        book_dir: PathBuf,
        /// Runs per measurement (the median is reported).
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// Scale factors of synthetic books, e.g. `1,10,100`.
        #[arg(long, value_delimiter = ',')]
        scale: Vec<usize>,
        /// Extra data files to time decoding on.
        #[arg(long)]
        data: Vec<PathBuf>,
        /// Skip the comparison with `mdbook build`.
        #[arg(long)]
        no_mdbook: bool,
    },
    /// Compare the command sets of two builds, per page: identical, added,
    /// removed and changed (a Markdown table for a pull-request description).
    ///
    /// OLD and NEW are each a manifest (agentx-manifest.json), a built site
    /// directory, or a git ref of the book (built in a scratch copy).
    Diff {
        old: String,
        new: String,
        /// The book, for git refs.
        #[arg(long, default_value = ".")]
        book: PathBuf,
        /// Also list every added, removed and changed command set, with a unified diff.
        #[arg(short, long)]
        verbose: bool,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: OutputFormat,
    },
    /// Count lanes, deployments, points, hardware and command sets per page
    /// (of data files, directories of them, or a book directory).
    Stats {
        /// Data files or directories holding them.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Print JSON: {"pages":[…]}.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum TierArg {
    None,
    Hicache,
    Mooncake,
}

impl From<TierArg> for KvTier {
    fn from(t: TierArg) -> KvTier {
        match t {
            TierArg::None => KvTier::None,
            TierArg::Hicache => KvTier::Hicache,
            TierArg::Mooncake => KvTier::Mooncake,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum RouterArg {
    Sglang,
    Dynamo,
}

impl From<RouterArg> for Router {
    fn from(r: RouterArg) -> Router {
        match r {
            RouterArg::Sglang => Router::Sglang,
            RouterArg::Dynamo => Router::Dynamo,
        }
    }
}

/// Entry point of the binary.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            1
        }
    }
}

pub fn run(cli: Cli) -> Result<i32> {
    match cli.command {
        None => {
            crate::preprocess::run_protocol(std::io::stdin().lock(), std::io::stdout().lock())?;
            Ok(0)
        }
        Some(Command::Supports { renderer }) => Ok(if crate::preprocess::supports(&renderer) {
            0
        } else {
            1
        }),
        Some(Command::Decode {
            files,
            json,
            cell,
            conc,
            kv,
            router,
        }) => {
            let filter = SetFilter {
                cell,
                conc,
                kv: kv.map(Into::into),
                router: router.map(Into::into),
            };
            decode_cmd(&files, json, &filter)
        }
        Some(Command::Stats { paths, json }) => stats_cmd(&paths, json),
        Some(Command::Bench {
            book_dir,
            runs,
            scale,
            data,
            no_mdbook,
        }) => {
            let md = crate::bench::run(&crate::bench::BenchOptions {
                book: book_dir,
                runs,
                scales: scale,
                data,
                mdbook: !no_mdbook,
            })?;
            print!("{md}");
            Ok(0)
        }
        Some(Command::Diff {
            old,
            new,
            book,
            verbose,
            format,
        }) => {
            let a = crate::diff::load_side(&old, &book)?;
            let b = crate::diff::load_side(&new, &book)?;
            let d = crate::diff::diff(&a, &b);
            let mut out = std::io::stdout().lock();
            match format {
                OutputFormat::Text if verbose => write!(out, "{}", d.verbose(&a, &b))?,
                OutputFormat::Text => write!(out, "{}", d.table())?,
                OutputFormat::Json => {
                    serde_json::to_writer_pretty(&mut out, &d)?;
                    writeln!(out)?;
                }
            }
            Ok(0)
        }
        Some(Command::Check {
            book_dir,
            format,
            verbose,
        }) => {
            let report = crate::check::run(&book_dir)?;
            let mut out = std::io::stdout().lock();
            match format {
                OutputFormat::Text => write!(out, "{}", report.text(verbose))?,
                OutputFormat::Json => {
                    let mut v = serde_json::to_value(&report)?;
                    v["ok"] = serde_json::Value::Bool(report.ok());
                    serde_json::to_writer_pretty(&mut out, &v)?;
                    writeln!(out)?;
                }
            }
            Ok(if report.ok() { 0 } else { 1 })
        }
        Some(Command::Build { book_dir, dest }) => {
            let report = crate::site::build(
                &book_dir,
                &crate::site::BuildOptions {
                    dest,
                    ..Default::default()
                },
            )?;
            print_report("built", &report);
            Ok(0)
        }
        Some(Command::Serve {
            book_dir,
            bind,
            port,
            open,
            poll,
        }) => {
            crate::serve::serve(
                &book_dir,
                &crate::serve::ServeOptions {
                    bind,
                    port,
                    open,
                    watch: watch_mode(poll),
                },
            )?;
            Ok(0)
        }
        Some(Command::Watch {
            book_dir,
            dest,
            poll,
        }) => {
            crate::serve::watch(&book_dir, dest, watch_mode(poll))?;
            Ok(0)
        }
        Some(Command::Export {
            book_dir,
            offline,
            single_file,
        }) => {
            if let Some(out) = offline {
                let report = crate::site::export::export_offline(&book_dir, &out)?;
                print_report("exported (offline, no remote assets)", &report);
            }
            if let Some(file) = single_file {
                let html = crate::site::export::single_file(&book_dir)?;
                let tmp = file.with_extension("html.tmp");
                std::fs::write(&tmp, &html)
                    .with_context(|| format!("cannot write {}", tmp.display()))?;
                std::fs::rename(&tmp, &file)
                    .with_context(|| format!("cannot write {}", file.display()))?;
                eprintln!(
                    "exported the book as one file: {} ({} KiB)",
                    file.display(),
                    html.len() / 1024
                );
            }
            Ok(0)
        }
    }
}

/// A loaded and decoded data file.
pub struct PageData {
    pub loaded: Loaded,
    pub page: DecodedPage,
}

/// Loads and decodes one file; errors name the file.
pub fn load_page(path: &Path) -> Result<PageData> {
    let loaded = data::load_file(path)?;
    for key in &loaded.ignored {
        eprintln!("warning: {}: ignored unknown key `{key}`", path.display());
    }
    let page =
        decode::decode_page(&loaded.data).map_err(|e| anyhow!("{}: {e:#}", path.display()))?;
    Ok(PageData { loaded, page })
}

/// Loads every file, reporting each failure on stderr; returns the good ones and the failure count.
fn load_all(files: &[PathBuf]) -> (Vec<PageData>, usize) {
    let mut pages = Vec::new();
    let mut failed = 0;
    for f in files {
        match load_page(f) {
            Ok(p) => pages.push(p),
            Err(e) => {
                eprintln!("error: {e:#}");
                failed += 1;
            }
        }
    }
    (pages, failed)
}

#[derive(Debug, Default)]
pub struct SetFilter {
    pub cell: Option<String>,
    pub conc: Option<u32>,
    pub kv: Option<KvTier>,
    pub router: Option<Router>,
}

impl SetFilter {
    fn matches(&self, s: &CommandSet) -> bool {
        self.cell.as_ref().is_none_or(|c| *c == s.cell_id)
            && self.conc.is_none_or(|c| s.concs.contains(&c))
            && self.kv.is_none_or(|k| k == s.tier)
            && self.router.is_none_or(|r| r == s.router)
    }
}

fn decode_cmd(files: &[PathBuf], json: bool, filter: &SetFilter) -> Result<i32> {
    let (pages, failed) = load_all(files);
    let mut out = std::io::stdout().lock();
    if json {
        let mut sets = Vec::new();
        for p in &pages {
            for s in p.page.command_sets().filter(|s| filter.matches(s)) {
                sets.push(command_set_json(&p.page.model, s));
            }
        }
        serde_json::to_writer_pretty(&mut out, &sets)?;
        writeln!(out)?;
    } else {
        if files.len() != 1 {
            bail!("without --json, decode prints one command set: give exactly one FILE");
        }
        let Some(p) = pages.first() else {
            return Ok(1);
        };
        let set = select_one(&p.page, filter)?;
        write!(out, "{}", set.copy_all_text())?;
    }
    Ok(if failed > 0 { 1 } else { 0 })
}

/// Picks the one command set a reader asked for; defaults to the measured tier and submitted router.
fn select_one<'p>(page: &'p DecodedPage, filter: &SetFilter) -> Result<&'p CommandSet> {
    let (Some(cell), Some(conc)) = (&filter.cell, filter.conc) else {
        bail!("give --cell ID and --conc N to pick a command set (or use --json)");
    };
    let dep = page
        .deployments
        .iter()
        .find(|d| &d.cell_id == cell)
        .ok_or_else(|| {
            let ids: Vec<&str> = page
                .deployments
                .iter()
                .map(|d| d.cell_id.as_str())
                .collect();
            anyhow!(
                "no cell `{cell}` in {}; cells: {}",
                page.model,
                ids.join(", ")
            )
        })?;
    let candidates: Vec<&CommandSet> = dep
        .command_sets
        .iter()
        .filter(|s| s.concs.contains(&conc))
        .collect();
    let Some(first) = candidates.first() else {
        let concs: Vec<String> = dep.concs.iter().map(|c| decode::concs_label(c)).collect();
        bail!(
            "cell `{cell}` has no point at c{conc}; points: {}",
            concs.join(", ")
        );
    };
    let tier = filter.kv.unwrap_or(first.measured);
    let router = filter.router.unwrap_or(dep.submitted);
    candidates
        .into_iter()
        .find(|s| s.tier == tier && s.router == router)
        .ok_or_else(|| {
            let why = dep
                .unavailable
                .iter()
                .find(|(t, _)| *t == tier)
                .map(|(_, r)| format!(": {r}"))
                .unwrap_or_default();
            anyhow!("cell `{cell}` offers no `{tier}` tier on router `{router}`{why}")
        })
}

/// The JSON shape of one command set (`decode --json`).
pub fn command_set_json(page: &str, s: &CommandSet) -> serde_json::Value {
    json!({
        "page": page,
        "cell": s.cell_id,
        "point": s.point,
        "concs": s.concs,
        "kv": s.tier.id(),
        "router": s.router.id(),
        "status": s.status.id(),
        "label": s.status.label(),
        "anchor": s.anchor,
        "titles": s.processes.iter().map(|p| p.title.as_str()).collect::<Vec<_>>(),
        "blocks": s.processes.iter().map(|p| p.command.as_str()).collect::<Vec<_>>(),
        "placeholders": s.placeholders.iter().map(|p| json!({"name": p.name, "description": p.description})).collect::<Vec<_>>(),
        "notes": s.notes.iter().map(|n| json!({"id": n.id(), "text": n.text()})).collect::<Vec<_>>(),
        "image": {"name": s.image.image, "status": s.image.status, "commit": s.image.commit},
    })
}

fn watch_mode(poll: bool) -> crate::serve::WatchMode {
    if poll {
        crate::serve::WatchMode::Poll
    } else {
        crate::serve::WatchMode::Native
    }
}

fn print_report(what: &str, r: &crate::site::BuildReport) {
    // The warnings themselves were printed as the chapters expanded.
    let memory = crate::bench::peak_rss_mib()
        .map(|m| format!(", peak memory {m:.0} MiB"))
        .unwrap_or_default();
    eprintln!(
        "{what} {} pages ({} command sets, {} files, {} KiB) into {} in {} ms{memory}",
        r.pages,
        r.command_sets,
        r.files,
        r.bytes / 1024,
        r.out_dir.display(),
        r.elapsed.as_millis()
    );
}

fn stats_cmd(paths: &[PathBuf], json: bool) -> Result<i32> {
    let mut files = Vec::new();
    for p in paths {
        if p.join("book.toml").is_file() {
            // A book: its data directory.
            let dir = crate::site::book::BookDir::open(p)?;
            files.extend(data::data_files_in(&p.join(&dir.agentx.data_dir))?);
        } else if p.is_dir() {
            files.extend(data::data_files_in(p)?);
        } else {
            files.push(p.clone());
        }
    }
    let (pages, failed) = load_all(&files);
    let rows: Vec<stats::PageStats> = pages
        .iter()
        .map(|p| stats::page_stats(&p.loaded.data, &p.page))
        .collect();
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, &json!({ "pages": rows }))
            .context("writing JSON")?;
        writeln!(out)?;
    } else {
        write!(out, "{}", stats::markdown_table(&rows))?;
    }
    Ok(if failed > 0 { 1 } else { 0 })
}
