//! mdBook's preprocessor protocol: `[context, book]` on stdin, the book on stdout.

use std::io::{Read, Write};

use super::AgentxPreprocessor;
use crate::util::notice::Notice;
use anyhow::{Context, Result, bail};

/// The mdBook protocol: `[context, book]` on `input`, the book on `output`.
/// Nothing but the book JSON is written to `output`; the warnings are
/// returned, for the caller to show (mdBook passes a preprocessor's stderr on).
pub fn run_protocol(mut input: impl Read, mut output: impl Write) -> Result<Vec<Notice>> {
    let mut text = String::new();
    input
        .read_to_string(&mut text)
        .context("reading [context, book] from stdin")?;
    // Look at the version before the typed parse: a format change would make
    // that parse fail with a message that does not say why.
    let raw: serde_json::Value = serde_json::from_str(&text).context(
        "stdin is not JSON; run without arguments only as an mdBook preprocessor \
         (see `mdbook-agentx --help` for the other commands)",
    )?;
    let version = raw
        .get(0)
        .and_then(|c| c.get("mdbook_version"))
        .and_then(|v| v.as_str())
        .unwrap_or("unknown");
    if !version.starts_with("0.5.") {
        bail!(
            "mdbook-agentx supports mdBook 0.5.x, but was called by mdBook {version}; install \
             mdBook 0.5 (`cargo install mdbook --version '^0.5' --locked`)"
        );
    }
    let (ctx, book) = mdbook_preprocessor::parse_input(text.as_bytes())
        .context("cannot parse mdBook's [context, book] input")?;
    let (book, notices) = AgentxPreprocessor.run_reporting(&ctx, book)?;
    serde_json::to_writer(&mut output, &book).context("writing the book to stdout")?;
    output.flush()?;
    Ok(notices)
}
