//! mdBook preprocessor protocol.

use std::io::{Read, Write};

use anyhow::Result;

pub fn supports(renderer: &str) -> bool {
    matches!(renderer, "html" | "markdown")
}

pub fn run_protocol(_input: impl Read, _output: impl Write) -> Result<()> {
    anyhow::bail!("not yet")
}
