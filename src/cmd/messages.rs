//! What a command tells its user besides its output: the library's notices
//! (warnings, notes) and the command's own progress lines. As text on
//! stderr, or with `--message-format json` as one JSON object per line on
//! stdout, each with a `reason` (as `cargo --message-format json` writes
//! them), for scripts and `cargo xtask bench` to read instead of the text.

use std::fmt::Display;
use std::io::Write;

use clap::ValueEnum;
use mdbook_agentx::{Notice, terminal_json, terminal_text};
use serde_json::{Value, json};

/// `--message-format`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(super) enum MessageFormat {
    /// Text on stderr.
    #[default]
    Human,
    /// One JSON object per line on stdout.
    Json,
}

/// `--message-format` of the commands that report progress.
#[derive(clap::Args, Debug)]
pub(super) struct MessageArgs {
    /// How messages are written: `human` (text on stderr) or `json` (one
    /// object per line on stdout, each with a "reason": "notice", "built",
    /// "serving", "watching", "rebuilt" or "build-failed").
    #[arg(long, value_enum, default_value = "human")]
    message_format: MessageFormat,
}

/// Where a command's messages go.
#[derive(Clone, Copy, Debug)]
pub(super) struct Messages {
    format: MessageFormat,
}

impl Messages {
    pub(super) fn new(args: &MessageArgs) -> Messages {
        Messages {
            format: args.message_format,
        }
    }

    /// Text on stderr only (the commands without `--message-format`).
    pub(super) fn human() -> Messages {
        Messages {
            format: MessageFormat::Human,
        }
    }

    /// One notice of the library.
    pub(super) fn notice(&self, n: &Notice) {
        self.event(
            n,
            || json!({ "reason": "notice", "level": n.level, "message": n.message }),
        );
    }

    pub(super) fn notices(&self, notices: &[Notice]) {
        for n in notices {
            self.notice(n);
        }
    }

    /// A line of the command's own: `text` for people, `json()` for programs.
    /// Messages quote chapters and data: shown, never acted on, so what a
    /// terminal would act on (escape sequences, bidirectional controls) is
    /// written escaped.
    pub(super) fn event(&self, text: impl Display, json: impl FnOnce() -> Value) {
        match self.format {
            MessageFormat::Human => eprintln!("{}", terminal_text(&text.to_string())),
            MessageFormat::Json => {
                let mut out = std::io::stdout().lock();
                // A reader that went away cannot be told; the command goes on.
                let line = json().to_string();
                let _ = writeln!(out, "{}", terminal_json(&line)).and_then(|()| out.flush());
            }
        }
    }
}
