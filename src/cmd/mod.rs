//! The command line: the clap definition of every command and the dispatch to
//! its `execute`. Each command lives in its own module and returns the exit
//! code; errors bubble up to `main`, which prints them.
//!
//! May use: the library's public API.

mod agent_files;
mod build;
mod check;
mod decode;
mod diff;
mod export;
mod install;
mod markdown;
mod messages;
mod preprocess;
mod report;
mod serve;
mod stats;
mod supports;
mod sync;
mod watch;

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand, ValueEnum};

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
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Tell mdBook whether a renderer is supported (exit 0: yes, 1: no).
    Supports(supports::Args),
    /// Decode AgentX data files into command sets.
    ///
    /// With --json, prints every command set (or those matching the filters) as a
    /// JSON array. Without it, prints one command set as a reader would copy it;
    /// --cell and --conc select it, --kv and --router default to what was measured.
    Decode(decode::Args),
    /// Build the book into static HTML (the output directory is replaced atomically).
    Build(build::Args),
    /// Build, serve over HTTP with live reload, and rebuild on every change.
    Serve(serve::Args),
    /// Rebuild the book into its output directory on every change (no server).
    Watch(watch::Args),
    /// Export the book for reading without a network.
    Export(export::Args),
    /// Write the book as portable Markdown for other site generators.
    ///
    /// Every chapter with its directives expanded, the deployment chapters and
    /// a SUMMARY.md, in the source layout (relative links resolve), each
    /// heading's anchor as `<a id>` (no `{#id}` attributes).
    Markdown(markdown::Args),
    /// Set an mdBook book up for AgentX: assets and book.toml entries.
    ///
    /// Writes the AgentX assets (agentx.css…) into the book and adds
    /// [preprocessor.agentx], the assets to [output.html] additional-css /
    /// additional-js and the data directory to [build] extra-watch-dirs in
    /// book.toml, keeping its comments and order.
    ///
    /// Running it again changes nothing; after upgrading mdbook-agentx it
    /// updates the assets.
    Install(install::Args),
    /// Check the book: every command line against its image's flag registry,
    /// KV tiers against each image, and every internal link and anchor.
    ///
    /// Exit code 0 only when all checks pass.
    Check(check::Args),
    /// mdBook renderer: llms.txt, llms-full.txt, launches.json and a Markdown
    /// twin of every page, beside the pages mdBook's html renderer wrote.
    ///
    /// mdBook runs it as [output.html-agentx] (after [output.html]), with its
    /// render context on stdin; `install --agent-files` adds that table.
    AgentFiles(agent_files::Args),
    /// Compare the command sets of two builds, per page: identical, added,
    /// removed and changed (a Markdown table for a pull-request description).
    ///
    /// OLD and NEW are each a manifest (launches.json), a built site
    /// directory, or a git ref of the book (built in a scratch copy).
    Diff(diff::Args),
    /// The evidence for a pull request's description, in one Markdown document.
    ///
    /// Against the git ref --base: the per-page table (as `stats`), the command
    /// sets identical, added, removed and changed (as `diff`), argument parsing
    /// per image and entry point (with distinct argument lists new since the
    /// base), KV flags per image, links and anchors, and warnings. Exit code 0
    /// only when every check passes, so CI can gate on it.
    Report(report::Args),
    /// Count lanes, deployments, points, hardware and command sets per page
    /// (of data files, directories of them, or a book directory).
    Stats(stats::Args),
    /// Generate AgentX data files from InferenceX lanes.
    ///
    /// Renders each lane of the manifest from the InferenceX master config and
    /// srt-slurm recipes at its pinned commit, checks that every point decodes
    /// back to its commands, writes one data file per page into --out and prints
    /// the report (or writes --report). Nothing is written when any lane fails.
    Sync(sync::Args),
}

/// `--allow-outside` of the commands that read a book.
#[derive(clap::Args, Debug)]
struct OutsideArgs {
    /// Honour `allow-outside = true` of book.toml ([preprocessor.agentx]):
    /// read files outside the book. Without this flag a book.toml setting it
    /// is refused, so that a pull request cannot switch the guard off.
    #[arg(long)]
    allow_outside: bool,
}

impl OutsideArgs {
    /// Refuses the book when its book.toml allows outside reads and this
    /// command line does not.
    fn check(&self, book_dir: &std::path::Path) -> Result<()> {
        mdbook_agentx::standalone_outside_reads(book_dir, self.allow_outside)
    }
}

/// `--format` of the commands that can print JSON.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum OutputFormat {
    Text,
    Json,
}

/// Runs the command; without one, the mdBook preprocessor protocol.
pub(crate) fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        None => preprocess::execute(),
        Some(Command::Supports(args)) => supports::execute(args),
        Some(Command::Decode(args)) => decode::execute(args),
        Some(Command::Build(args)) => build::execute(args),
        Some(Command::Serve(args)) => serve::execute(args),
        Some(Command::Watch(args)) => watch::execute(args),
        Some(Command::Export(args)) => export::execute(args),
        Some(Command::Markdown(args)) => markdown::execute(args),
        Some(Command::Install(args)) => install::execute(args),
        Some(Command::Check(args)) => check::execute(args),
        Some(Command::AgentFiles(args)) => agent_files::execute(args),
        Some(Command::Diff(args)) => diff::execute(args),
        Some(Command::Report(args)) => report::execute(args),
        Some(Command::Stats(args)) => stats::execute(args),
        Some(Command::Sync(args)) => sync::execute(args),
    }
}

/// Writes `report` as pretty JSON with `"ok": ok` added (`check`, `report`),
/// characters a terminal acts on escaped.
fn write_json_with_ok(
    out: &mut dyn std::io::Write,
    report: &impl serde::Serialize,
    ok: bool,
) -> Result<()> {
    let mut v = serde_json::to_value(report)?;
    v["ok"] = serde_json::Value::Bool(ok);
    let json = serde_json::to_string_pretty(&v)?;
    writeln!(out, "{}", mdbook_agentx::terminal_json(&json))?;
    Ok(())
}

/// Exit code 1 when any input failed, else 0.
fn failed_if(any_failed: bool) -> ExitCode {
    if any_failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    /// clap's own checks of the definition (conflicting names, groups that
    /// name missing arguments, bad defaults…), which otherwise only fail
    /// when the command that has them runs.
    #[test]
    fn the_command_line_definition_is_valid() {
        Cli::command().debug_assert();
    }
}
