//! The `mdbook-agentx` binary: parses the command line and runs one command
//! of [`cmd`]. Exit codes: 0 success, 1 failure (bad input, a failed check),
//! 2 usage error.
//!
//! May use: the `mdbook_agentx` library's public API, and nothing else of it.

mod cmd;

use std::io::ErrorKind;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Allocator policy is the program's, not the library's: applied here,
    // before any thread exists (the library checks that it is the only one).
    mdbook_agentx::tune_allocator();
    let cli = match cmd::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cmd::run(cli) {
        Ok(code) => code,
        // The reader closed stdout (`… | head`): it has all it wanted.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // Messages quote data; a terminal must show it, not act on it.
            eprintln!("error: {}", mdbook_agentx::terminal_text(&format!("{e:#}")));
            ExitCode::FAILURE
        }
    }
}

/// Whether an error comes from writing to a pipe whose reader has gone.
/// Rust ignores SIGPIPE, so such a write fails with `BrokenPipe` instead of
/// ending the process; serde_json wraps the I/O error in its own.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        let io = cause
            .downcast_ref::<std::io::Error>()
            .map(std::io::Error::kind);
        let json = cause
            .downcast_ref::<serde_json::Error>()
            .and_then(serde_json::Error::io_error_kind);
        io.or(json) == Some(ErrorKind::BrokenPipe)
    })
}
