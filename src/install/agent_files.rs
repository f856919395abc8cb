//! `install --agent-files`: the `[output.html-agentx]` renderer, which
//! writes `llms.txt`, `llms-full.txt`, `launches.json` and a Markdown twin
//! of every page beside mdBook's HTML (see `site::agents::mdbook`).

use std::path::Path;

use anyhow::{Result, bail};
use toml_edit::{DocumentMut, Item, Table, value};

use super::InstallReport;
use crate::site::agents::mdbook::AGENT_FILES_RENDERER;

/// Adds `[output.html-agentx]` running this binary's `agent-files`, with
/// the command of `[preprocessor.agentx]` when it names one (so a book that
/// runs `cargo run … --` runs the same binary). A table already there is
/// kept as it is.
pub(super) fn add_renderer(
    doc: &mut DocumentMut,
    build_dir: &Path,
    shown: &str,
    report: &mut InstallReport,
) -> Result<()> {
    let outputs = doc.get("output").and_then(Item::as_table_like);
    if outputs.is_some_and(|o| !o.contains_key("html")) {
        bail!(
            "{shown}: --agent-files writes its files beside mdBook's HTML, and [output] lists \
             no html renderer; add [output.html] or leave out --agent-files"
        );
    }
    if outputs.is_some_and(|o| o.contains_key(AGENT_FILES_RENDERER)) {
        return Ok(());
    }
    let base = doc
        .get("preprocessor")
        .and_then(|p| p.get("agentx"))
        .and_then(|a| a.get("command"))
        .and_then(Item::as_str)
        .unwrap_or("mdbook-agentx")
        .to_string();
    let mut table = Table::new();
    table.insert("command", value(format!("{base} agent-files")));
    table.decor_mut().set_prefix(
        "\n# llms.txt, llms-full.txt, launches.json and a Markdown twin of every page, beside\n\
         # the HTML (`mdbook-agentx install --agent-files`). mdBook runs it after [output.html];\n\
         # with two renderers it writes the HTML site into <build-dir>/html/.\n",
    );
    // The html renderer must run too (this one writes beside its pages): an
    // implicit, empty [output.html] would not be written.
    if let Item::Table(html) = super::table_at(doc, &["output", "html"], shown)? {
        html.set_implicit(false);
    }
    let output = super::table_at(doc, &["output"], shown)?;
    output
        .as_table_like_mut()
        .expect("a table")
        .insert(AGENT_FILES_RENDERER, Item::Table(table));
    report.changes.push(format!(
        "book.toml: added [output.{AGENT_FILES_RENDERER}] (llms.txt, Markdown twins, \
         launches.json); mdBook now writes the HTML site into {}/html/",
        build_dir.display()
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::*;

    fn install_agent_files(toml: &str) -> Result<String> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("book.toml"), toml).unwrap();
        let opts = InstallOptions {
            agent_files: true,
            ..InstallOptions::default()
        };
        install_assets(dir.path(), &[], &opts)?;
        Ok(std::fs::read_to_string(dir.path().join("book.toml")).unwrap())
    }

    const COMMENT: &str = "\n# llms.txt, llms-full.txt, launches.json and a Markdown twin of every page, beside\n\
        # the HTML (`mdbook-agentx install --agent-files`). mdBook runs it after [output.html];\n\
        # with two renderers it writes the HTML site into <build-dir>/html/.\n";

    /// Each `book.toml` and what `install --agent-files` makes of it
    /// (written by hand; no assets, so only the tables change).
    #[test]
    fn the_renderer_is_added_once_with_the_preprocessors_command() {
        let cases = [
            (
                "a fresh book",
                "[book]\ntitle = \"T\"\n",
                format!(
                    "[book]\ntitle = \"T\"\n\n[preprocessor.agentx]\n\n[output.html]\n{COMMENT}\
                     [output.html-agentx]\ncommand = \"mdbook-agentx agent-files\"\n\n\
                     [build]\nextra-watch-dirs = [\"agentx\"]\n"
                ),
            ),
            (
                "the preprocessor's own command",
                "[preprocessor.agentx]\ncommand = \"cargo run --quiet --\"\n[output.html]\n",
                format!(
                    "[preprocessor.agentx]\ncommand = \"cargo run --quiet --\"\n[output.html]\n{COMMENT}\
                     [output.html-agentx]\ncommand = \"cargo run --quiet -- agent-files\"\n\n\
                     [build]\nextra-watch-dirs = [\"agentx\"]\n"
                ),
            ),
            (
                "already there: kept as it is",
                "[preprocessor.agentx]\n[output.html]\n[output.html-agentx]\ncommand = \"x\"\n\
                 [build]\nextra-watch-dirs = [\"agentx\"]\n",
                "[preprocessor.agentx]\n[output.html]\n[output.html-agentx]\ncommand = \"x\"\n\
                 [build]\nextra-watch-dirs = [\"agentx\"]\n"
                    .to_string(),
            ),
        ];
        for (what, input, want) in cases {
            let got = install_agent_files(input).unwrap_or_else(|e| panic!("{what}: {e:#}"));
            assert_eq!(got, want, "{what}");
            // mdBook reads it: the renderer's name sorts after html.
            let parsed: toml::Table = toml::from_str(&got).unwrap();
            let outputs: Vec<&String> = parsed["output"].as_table().unwrap().keys().collect();
            assert_eq!(outputs, ["html", "html-agentx"], "{what}");
        }
    }

    /// The change names where mdBook now writes the HTML: `[build]
    /// build-dir`, read by the book module (mdBook's default is `book`).
    #[test]
    fn the_change_names_the_books_build_dir() {
        for (toml, want) in [
            ("[book]\n", "into book/html/"),
            ("[build]\nbuild-dir = \"out/site\"\n", "into out/site/html/"),
        ] {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("book.toml"), toml).unwrap();
            let opts = InstallOptions {
                agent_files: true,
                ..InstallOptions::default()
            };
            let report = install_assets(dir.path(), &[], &opts).unwrap();
            let added = report
                .changes
                .iter()
                .find(|c| c.contains("[output.html-agentx]"))
                .unwrap_or_else(|| panic!("{toml}: {:?}", report.changes));
            assert!(added.ends_with(want), "{toml}: {added}");
        }
    }

    #[test]
    fn a_book_without_html_is_refused() {
        let err = install_agent_files("[output.markdown]\n").unwrap_err();
        assert!(
            format!("{err:#}").contains("[output] lists no html renderer; add [output.html]"),
            "{err:#}"
        );
    }
}
