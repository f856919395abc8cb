//! `supports RENDERER`: mdBook asks whether the preprocessor runs for a renderer.

use std::process::ExitCode;

use anyhow::Result;

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    /// Renderer name, e.g. `html`.
    renderer: String,
}

pub(super) fn execute(args: Args) -> Result<ExitCode> {
    Ok(super::failed_if(!mdbook_agentx::supports_renderer(
        &args.renderer,
    )))
}
