//! No subcommand: mdBook's preprocessor protocol on stdin and stdout.

use std::process::ExitCode;

use anyhow::Result;

pub(super) fn execute() -> Result<ExitCode> {
    mdbook_agentx::run_protocol(std::io::stdin().lock(), std::io::stdout().lock())?;
    Ok(ExitCode::SUCCESS)
}
