//! `build`: the book into static HTML, swapped into the output directory whole.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use mdbook_agentx::{BuildOptions, BuildReport, build};
use serde_json::json;

use super::messages::{MessageArgs, Messages};

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    /// Book directory (holding book.toml).
    #[arg(default_value = ".")]
    book_dir: PathBuf,
    #[command(flatten)]
    outside: super::OutsideArgs,
    /// Output directory (default: [build] build-dir of book.toml, usually `book`).
    #[arg(short = 'd', long = "dest-dir")]
    dest: Option<PathBuf>,
    /// Allow an output directory outside the book (refused otherwise, so that
    /// a book.toml from a pull request cannot write anywhere).
    #[arg(long)]
    allow_dest_outside: bool,
    #[command(flatten)]
    messages: MessageArgs,
}

pub(super) fn execute(args: Args) -> Result<ExitCode> {
    args.outside.check(&args.book_dir)?;
    let messages = Messages::new(&args.messages);
    let report = build(
        &args.book_dir,
        &BuildOptions {
            dest: args.dest,
            allow_dest_outside: args.allow_dest_outside,
            ..Default::default()
        },
    )?;
    print_report(&messages, "built", &report);
    Ok(ExitCode::SUCCESS)
}

/// The build's warnings, then its one report line: what was written, how
/// long it took and the peak memory (`"reason": "built"` in JSON, which
/// `cargo xtask bench` reads).
pub(super) fn print_report(messages: &Messages, what: &str, r: &BuildReport) {
    messages.notices(&r.notices);
    let peak = peak_rss_mib();
    let memory = peak
        .map(|m| format!(", peak memory {m:.0} MiB"))
        .unwrap_or_default();
    let text = format!(
        "{what} {} pages ({} command sets, {} files, {} KiB) into {} in {} ms{memory}",
        r.pages,
        r.command_sets,
        r.files,
        r.bytes / 1024,
        r.out_dir.display(),
        r.elapsed.as_millis()
    );
    messages.event(text, || {
        json!({
            "reason": "built",
            "pages": r.pages,
            "command_sets": r.command_sets,
            "files": r.files,
            "bytes": r.bytes,
            "out_dir": r.out_dir.display().to_string(),
            "elapsed_ms": r.elapsed.as_millis() as u64,
            "peak_rss_mib": peak,
        })
    });
}

/// Peak resident memory of this process in MiB, from `VmHWM` in
/// `/proc/self/status` (Linux; elsewhere none, and the report omits it).
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<f64>().ok())
        .map(|kib| kib / 1024.0)
}
