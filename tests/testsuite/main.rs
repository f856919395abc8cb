//! The integration tests: one test binary (as mdBook and ripgrep have), one
//! module per area, sharing the fixture helpers of [`support`]. They use the
//! library's public API and the built binary only; tests of internals live
//! beside the code, in `src/`.

mod agent_files;
mod bounds;
mod browser;
mod browser_axe;
mod browser_budget;
mod browser_chrome;
mod browser_download;
mod browser_find;
mod browser_find_field;
mod browser_focus;
mod browser_mdbook;
mod browser_picker;
mod browser_real;
mod browser_repeat;
mod browser_search;
mod browser_search_path;
mod browser_selector;
mod check;
mod ci;
mod cli;
mod containment;
mod containment_outputs;
mod containment_props;
mod decode_errors;
mod decode_rules;
mod diff;
mod injection;
mod injection_links;
mod injection_shell;
mod injection_templates;
mod mdbook;
mod no_panic;
mod portable;
mod preprocessor;
mod publish;
mod reader;
mod real_data;
mod real_page_bytes;
mod report;
mod sample_book;
mod serve;
mod site_build;
mod structure;
mod support;
mod sync;
mod sync_acceptance;
mod sync_bash;
mod sync_bash_either;
mod sync_safety;
mod terminal;
mod text_inputs;
mod untrusted_chapters;
mod validation;
