//! `agent-files`: mdBook's renderer protocol (the render context on stdin);
//! writes `llms.txt`, `llms-full.txt`, `launches.json` and the Markdown
//! twins beside the pages of mdBook's html renderer.

use std::io::Read;
use std::process::ExitCode;

use anyhow::{Context, Result};
use mdbook_agentx::terminal_text;

#[derive(clap::Args, Debug)]
pub(super) struct Args {}

pub(super) fn execute(_: Args) -> Result<ExitCode> {
    let mut context = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut context)
        .context("reading mdBook's render context from stdin")?;
    let report = mdbook_agentx::render_agent_files(&context)?;
    super::messages::Messages::human().notices(&report.notices);
    for p in &report.replaced {
        eprintln!(
            "warning: mdbook-agentx: {} from the source directory is replaced by the generated \
             one; rename it",
            terminal_text(&p.display().to_string())
        );
    }
    eprintln!(
        "mdbook-agentx: wrote llms.txt, llms-full.txt, launches.json and {} Markdown twins into {}",
        report.twins,
        terminal_text(&report.out_dir.display().to_string())
    );
    Ok(ExitCode::SUCCESS)
}
