//! No subcommand: mdBook's preprocessor protocol on stdin and stdout.

use std::process::ExitCode;

use anyhow::Result;

pub(super) fn execute() -> Result<ExitCode> {
    let notices = mdbook_agentx::run_protocol(std::io::stdin().lock(), std::io::stdout().lock())?;
    // stderr: stdout carries the book only; mdBook passes stderr on.
    super::messages::Messages::human().notices(&notices);
    Ok(ExitCode::SUCCESS)
}
