//! `serve`: build, serve over HTTP with live reload, rebuild on every change.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use mdbook_agentx::{ServeOptions, WatchMode, serve};

#[derive(clap::Args, Debug)]
pub(super) struct Args {
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
    /// Also answer requests for this host name (repeatable). By default only
    /// localhost, 127.0.0.1, [::1] and the bound address are answered, so a
    /// web page cannot read the preview through a name it controls.
    #[arg(long = "allow-host", value_name = "NAME")]
    allow_hosts: Vec<String>,
}

pub(super) fn execute(args: Args) -> Result<ExitCode> {
    serve(
        &args.book_dir,
        &ServeOptions {
            bind: args.bind,
            port: args.port,
            open: args.open,
            watch: watch_mode(args.poll),
            allow_hosts: args.allow_hosts,
        },
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `--poll` or native change notification.
pub(super) fn watch_mode(poll: bool) -> WatchMode {
    if poll {
        WatchMode::Poll
    } else {
        WatchMode::Native
    }
}
