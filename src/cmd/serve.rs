//! `serve`: build, serve over HTTP with live reload, rebuild on every change.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use mdbook_agentx::{BookWatcher, Change, Engine, Notice, ServeOptions, Server, WatchMode};
use serde_json::json;

use super::messages::{MessageArgs, Messages};

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    /// Book directory (holding book.toml).
    #[arg(default_value = ".")]
    book_dir: PathBuf,
    #[command(flatten)]
    outside: super::OutsideArgs,
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
    /// Also answer requests for this host name (repeatable). By default only
    /// localhost, 127.0.0.1, [::1] and the bound address are answered, so a
    /// web page cannot read the preview through a name it controls.
    #[arg(long = "allow-host", value_name = "NAME")]
    allow_hosts: Vec<String>,
    #[command(flatten)]
    messages: MessageArgs,
}

/// Builds, serves and rebuilds on change until the process is stopped.
pub(super) fn execute(args: Args) -> Result<ExitCode> {
    let messages = Messages::new(&args.messages);
    if !args.bind.is_loopback() {
        messages.notice(&Notice::warning(format!(
            "serving on {}, which other machines can reach; the preview has no \
             authentication. Use --bind 127.0.0.1 to keep it local.",
            args.bind
        )));
    }
    let opts = ServeOptions {
        bind: args.bind,
        port: args.port,
        open: args.open,
        watch: watch_mode(args.poll),
        allow_hosts: args.allow_hosts,
    };
    let mut server = Server::bind(&opts)?;
    let mut engine = Engine::open(&args.book_dir, args.outside.allow_outside)?;
    // Started before the first build: no change made while it runs is lost.
    let mut watcher = BookWatcher::start(&engine, opts.watch)?;
    rebuild(&messages, &mut engine, &server, &[Change::Content], None);
    let url = server.url();
    let root = args.book_dir.display();
    messages.event(
        format!("Serving {root} on {url} (Ctrl-C stops)"),
        || json!({ "reason": "serving", "root": root.to_string(), "url": url }),
    );
    if opts.open {
        open_browser(&messages, &url);
    }
    server.start()?;
    loop {
        let burst = watcher.next_changes(&engine)?;
        messages.notices(&burst.notices);
        let first = Some(burst.first_event);
        rebuild(&messages, &mut engine, &server, &burst.changes, first);
    }
}

/// One rebuild: its site served and every open page reloaded, or its error
/// shown over them while the last good site stays.
fn rebuild(
    messages: &Messages,
    engine: &mut Engine,
    server: &Server,
    changes: &[Change],
    first: Option<Instant>,
) {
    let what: Vec<String> = changes.iter().map(|c| c.describe(engine.root())).collect();
    match engine.rebuild(changes, &Server::build_options()) {
        Ok(r) => {
            messages.notices(r.notices());
            let line = RebuiltLine::of(&what, &r, first);
            server.publish(r);
            messages.event(line.text(""), || line.json(None));
        }
        Err(e) => {
            let message = server.show_error(&e);
            let text = format!("error: build failed; still serving the last good site: {message}");
            messages.event(
                text,
                || json!({ "reason": "build-failed", "message": message }),
            );
        }
    }
}

/// What a rebuild reports: `rebuilt (…) in R ms (E ms after the change): P
/// of N pages re-rendered`.
pub(super) struct RebuiltLine<'a> {
    what: &'a [String],
    elapsed_ms: u128,
    after_change_ms: Option<u128>,
    rerendered: usize,
    pages: usize,
}

impl<'a> RebuiltLine<'a> {
    pub(super) fn of(
        what: &'a [String],
        r: &mdbook_agentx::Rebuild,
        first: Option<Instant>,
    ) -> RebuiltLine<'a> {
        RebuiltLine {
            what,
            elapsed_ms: r.elapsed().as_millis(),
            after_change_ms: first.map(|t| t.elapsed().as_millis()),
            rerendered: r.bodies_rendered(),
            pages: r.pages(),
        }
    }

    /// The line for people; `tail` follows the page counts.
    pub(super) fn text(&self, tail: &str) -> String {
        let since = self
            .after_change_ms
            .map(|ms| format!(" ({ms} ms after the change)"))
            .unwrap_or_default();
        format!(
            "rebuilt ({}) in {} ms{since}: {} of {} pages re-rendered{tail}",
            self.what.join("; "),
            self.elapsed_ms,
            self.rerendered,
            self.pages
        )
    }

    /// The line for programs (`"reason": "rebuilt"`).
    pub(super) fn json(&self, out_dir: Option<&Path>) -> serde_json::Value {
        json!({
            "reason": "rebuilt",
            "changes": self.what,
            "elapsed_ms": self.elapsed_ms as u64,
            "after_change_ms": self.after_change_ms.map(|ms| ms as u64),
            "pages_rerendered": self.rerendered,
            "pages": self.pages,
            "out_dir": out_dir.map(|d| d.display().to_string()),
        })
    }
}

/// `--poll` or native change notification.
pub(super) fn watch_mode(poll: bool) -> WatchMode {
    if poll {
        WatchMode::Poll
    } else {
        WatchMode::Native
    }
}

fn open_browser(messages: &Messages, url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener).arg(url).spawn() {
        messages.notice(&Notice::warning(format!(
            "cannot open a browser ({opener}: {e}); visit {url}"
        )));
    }
}
