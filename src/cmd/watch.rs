//! `watch`: rebuild into the output directory on every change, without a server.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use mdbook_agentx::{BookWatcher, BuildOptions, Change, Engine};
use serde_json::json;

use super::messages::{MessageArgs, Messages};
use super::serve::{RebuiltLine, watch_mode};

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    /// Book directory (holding book.toml).
    #[arg(default_value = ".")]
    book_dir: PathBuf,
    #[command(flatten)]
    outside: super::OutsideArgs,
    /// Output directory (default: [build] build-dir of book.toml).
    #[arg(short = 'd', long = "dest-dir")]
    dest: Option<PathBuf>,
    /// Allow an output directory outside the book (refused otherwise, so that
    /// a book.toml from a pull request cannot write anywhere).
    #[arg(long)]
    allow_dest_outside: bool,
    /// Poll the files instead of using native change notification.
    #[arg(long)]
    poll: bool,
    #[command(flatten)]
    messages: MessageArgs,
}

/// Rebuilds on change and writes the site to disk until the process is stopped.
pub(super) fn execute(args: Args) -> Result<ExitCode> {
    let messages = Messages::new(&args.messages);
    let root = &args.book_dir;
    let mut engine = Engine::open(root, args.outside.allow_outside)?;
    let out = engine.output_dir(args.dest.as_deref(), args.allow_dest_outside)?;
    let mut watcher = BookWatcher::start(&engine, watch_mode(args.poll))?;
    let book = Book { root, out: &out };
    book.write(&messages, &mut engine, &[Change::Content], None);
    messages.event(
        format!("Watching {} (Ctrl-C stops)", root.display()),
        || json!({ "reason": "watching", "root": root.display().to_string() }),
    );
    loop {
        let burst = watcher.next_changes(&engine)?;
        messages.notices(&burst.notices);
        book.write(
            &messages,
            &mut engine,
            &burst.changes,
            Some(burst.first_event),
        );
    }
}

/// The book being watched and where it is written.
struct Book<'a> {
    root: &'a Path,
    out: &'a Path,
}

impl Book<'_> {
    /// One rebuild, written to the output directory; on failure the old
    /// site stays.
    fn write(
        &self,
        messages: &Messages,
        engine: &mut Engine,
        changes: &[Change],
        first: Option<Instant>,
    ) {
        let what: Vec<String> = changes.iter().map(|c| c.describe(self.root)).collect();
        let out = self.out;
        match engine.rebuild(changes, &BuildOptions::default()) {
            Ok(r) => {
                messages.notices(r.notices());
                match r.write_to(out) {
                    Ok(notices) => {
                        messages.notices(&notices);
                        let line = RebuiltLine::of(&what, &r, first);
                        let tail = format!(", written to {}", out.display());
                        messages.event(line.text(&tail), || line.json(Some(out)));
                    }
                    Err(e) => messages.event(
                        format!("error: {e:#}"),
                        || json!({ "reason": "build-failed", "message": format!("{e:#}") }),
                    ),
                }
            }
            Err(e) => {
                let text = format!(
                    "error: build failed, {} left as it was: {e:#}",
                    out.display()
                );
                messages.event(
                    text,
                    || json!({ "reason": "build-failed", "message": format!("{e:#}") }),
                );
            }
        }
    }
}
