use super::*;

const CSS: AgentxAsset = AgentxAsset {
    name: "agentx.css",
    text: "h3.agentx-set:target { outline: 2px solid; }\n",
};
const JS: AgentxAsset = AgentxAsset {
    name: "agentx.js",
    text: "\"use strict\"; // ü\n",
};
const ASSETS: &[AgentxAsset] = &[CSS, JS];

/// `book.toml` as `mdbook init --title T` 0.5.4 writes it (checked by running
/// it), with the authors it takes from git emptied.
const INIT_TOML: &str = "[book]\ntitle = \"T\"\nauthors = []\nlanguage = \"en\"\n";

fn book(toml: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("book.toml"), toml).unwrap();
    dir
}

fn run(dir: &Path) -> Result<InstallReport> {
    install_assets(dir, ASSETS, &InstallOptions::default())
}

fn toml_of(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("book.toml")).unwrap()
}

/// Each input `book.toml` and what `install` makes of it (written by hand
/// from the rule: keys appended to the tables they belong in, new tables at
/// the end, everything else byte for byte).
#[test]
fn book_toml_edits() {
    let cases: [(&str, &str, &str); 5] = [
        (
            "mdbook init",
            INIT_TOML,
            "[book]\ntitle = \"T\"\nauthors = []\nlanguage = \"en\"\n\n\
             [preprocessor.agentx]\n\n\
             [output.html]\nadditional-css = [\"agentx.css\"]\nadditional-js = [\"agentx.js\"]\n\n\
             [build]\nextra-watch-dirs = [\"agentx\"]\n",
        ),
        (
            "comments, order and the user's own entries kept",
            "# My book\n[book]\ntitle = \"T\" # the title\n\n[build]\n# watch the shared folder too\nextra-watch-dirs = [\"../shared\"]\n\n\
             [output.html]\nadditional-css = [\"custom.css\"]  # mine\ngit-repository-url = \"x\"\n\n\
             [preprocessor.agentx]\n# where the data is\ndata-dir = \"data\"\n",
            "# My book\n[book]\ntitle = \"T\" # the title\n\n[build]\n# watch the shared folder too\nextra-watch-dirs = [\"../shared\", \"data\"]\n\n\
             [output.html]\nadditional-css = [\"custom.css\", \"agentx.css\"]  # mine\ngit-repository-url = \"x\"\nadditional-js = [\"agentx.js\"]\n\n\
             [preprocessor.agentx]\n# where the data is\ndata-dir = \"data\"\n",
        ),
        (
            "already set up: nothing changes (paths compared as paths)",
            "[preprocessor.agentx]\ncommand = \"mdbook-agentx\"\n[output.html]\nadditional-css = [\"./agentx.css\"]\nadditional-js = [\"agentx.js\"]\n[build]\nextra-watch-dirs = [\"agentx/\"]\n",
            "[preprocessor.agentx]\ncommand = \"mdbook-agentx\"\n[output.html]\nadditional-css = [\"./agentx.css\"]\nadditional-js = [\"agentx.js\"]\n[build]\nextra-watch-dirs = [\"agentx/\"]\n",
        ),
        (
            // toml_edit keeps the space that followed `[]` before the new key.
            "inline and dotted tables",
            "output = { html = { additional-js = [] } }\npreprocessor.agentx.data-dir = \"d\"\n",
            "output = { html = { additional-js = [\"agentx.js\"] , additional-css = [\"agentx.css\"] } }\npreprocessor.agentx.data-dir = \"d\"\n\n[build]\nextra-watch-dirs = [\"d\"]\n",
        ),
        (
            "data inside the source directory: not watched twice",
            "[book]\nsrc = \"content\"\n[preprocessor.agentx]\ndata-dir = \"content/agentx\"\n",
            "[book]\nsrc = \"content\"\n[preprocessor.agentx]\ndata-dir = \"content/agentx\"\n\n\
             [output.html]\nadditional-css = [\"agentx.css\"]\nadditional-js = [\"agentx.js\"]\n",
        ),
    ];
    for (what, input, want) in cases {
        let dir = book(input);
        run(dir.path()).unwrap_or_else(|e| panic!("{what}: {e:#}"));
        assert_eq!(toml_of(dir.path()), want, "{what}");
        // The result parses as mdBook reads it.
        let parsed: toml::Table = toml::from_str(&toml_of(dir.path())).unwrap();
        assert!(parsed["preprocessor"].get("agentx").is_some(), "{what}");
    }
}

#[test]
fn second_run_changes_nothing() {
    let dir = book(INIT_TOML);
    let first = run(dir.path()).unwrap();
    assert_eq!(
        first.changes.len(),
        6,
        "table, 2 entries, watch dir, 2 files: {first:?}"
    );
    let toml = toml_of(dir.path());
    let files = |d: &Path| {
        ASSETS
            .iter()
            .map(|a| std::fs::read(d.join(a.name)).unwrap())
            .collect::<Vec<_>>()
    };
    let assets = files(dir.path());
    assert_eq!(assets[0], CSS.installed_text().into_bytes());
    let second = run(dir.path()).unwrap();
    assert_eq!(second, InstallReport::default());
    assert_eq!(toml_of(dir.path()), toml);
    assert_eq!(files(dir.path()), assets);
}

#[test]
fn data_inside_src_is_a_note() {
    let dir =
        book("[book]\nsrc = \"content\"\n[preprocessor.agentx]\ndata-dir = \"content/agentx\"\n");
    let r = run(dir.path()).unwrap();
    assert_eq!(r.notes.len(), 1);
    assert!(
        r.notes[0].contains("mdBook copies it into the published site"),
        "{r:?}"
    );
}

#[test]
fn no_html_output_is_not_turned_on() {
    let input = "[output.markdown]\n";
    let dir = book(input);
    let r = run(dir.path()).unwrap();
    assert!(r.notes[0].contains("renders no html"), "{r:?}");
    let toml = toml_of(dir.path());
    assert!(!toml.contains("[output.html]"), "{toml}");
    assert!(toml.starts_with(input) && toml.contains("[preprocessor.agentx]"));
}

#[test]
fn files_it_did_not_write_are_refused_unless_forced() {
    let dir = book(INIT_TOML);
    std::fs::write(dir.path().join("agentx.js"), "my own script\n").unwrap();
    let e = format!("{:#}", run(dir.path()).unwrap_err());
    assert!(
        e.contains("agentx.js exists and was not written by `mdbook-agentx install`")
            && e.contains("--force"),
        "{e}"
    );
    // Nothing written: not the other asset, not book.toml.
    assert!(!dir.path().join("agentx.css").exists());
    assert_eq!(toml_of(dir.path()), INIT_TOML);
    let forced = install_assets(
        dir.path(),
        ASSETS,
        &InstallOptions {
            force: true,
            ..InstallOptions::default()
        },
    )
    .unwrap();
    assert!(
        forced.changes.iter().any(|c| c.ends_with("agentx.js")),
        "{forced:?}"
    );
    // An installed file edited afterwards is refused the same way.
    let path = dir.path().join("agentx.css");
    let edited = std::fs::read_to_string(&path)
        .unwrap()
        .replace("2px", "3px");
    std::fs::write(&path, edited).unwrap();
    let e = format!("{:#}", run(dir.path()).unwrap_err());
    assert!(e.contains("was edited after"), "{e}");
}

#[test]
fn an_older_install_is_replaced() {
    let dir = book(INIT_TOML);
    run(dir.path()).unwrap();
    let old = AgentxAsset {
        name: "agentx.css",
        text: "h3 { color: blue; }\n",
    };
    let path = dir.path().join("agentx.css");
    std::fs::write(&path, old.installed_text()).unwrap();
    let r = run(dir.path()).unwrap();
    assert_eq!(r.changes, [format!("wrote {}", path.display())]);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        CSS.installed_text()
    );
}

#[test]
fn bad_book_toml_is_named_with_the_fix() {
    let cases: [(&str, &str); 3] = [
        (
            "[output.html]\nadditional-css = \"x.css\"\n",
            "`additional-css` must be an array of paths; it is a string",
        ),
        ("output = 3\n", "`output` must be a table; it is a integer"),
        ("[book\n", "is not valid TOML"),
    ];
    for (input, want) in cases {
        let dir = book(input);
        let e = format!("{:#}", run(dir.path()).unwrap_err());
        assert!(
            e.contains(want) && e.contains("book.toml"),
            "{input:?}: {e}"
        );
        assert_eq!(toml_of(dir.path()), input, "unchanged");
    }
    let empty = tempfile::tempdir().unwrap();
    let e = format!("{:#}", run(empty.path()).unwrap_err());
    assert!(
        e.contains("is it a book directory") || e.contains("a book directory?"),
        "{e}"
    );
}

/// An asset name that is a symlink out of the book is refused, not read.
#[cfg(unix)]
#[test]
fn an_asset_symlinked_out_of_the_book_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("secret.css");
    std::fs::write(&target, "secret\n").unwrap();
    let dir = book(INIT_TOML);
    std::os::unix::fs::symlink(&target, dir.path().join("agentx.css")).unwrap();
    let e = format!("{:#}", run(dir.path()).unwrap_err());
    assert!(e.contains("outside"), "{e}");
    assert_eq!(toml_of(dir.path()), INIT_TOML);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "secret\n");
}

/// The chapters that hold a directive get their generated chapters' folder
/// kept out of mdBook's search (a key mdBook accepts: it fails a build on a
/// key that matches no chapter), mdBook's print page is turned off and its
/// sidebar folds;
/// an escaped directive, a directive in code, a chapter not written yet and
/// a book setting of its own are left alone. Written by hand from mdBook
/// 0.5.4's search.rs (keys are path prefixes of chapter paths).
#[test]
fn generated_chapters_stay_out_of_mdbooks_search_and_print() {
    let dir = book(INIT_TOML);
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("models/x")).unwrap();
    std::fs::write(
        src.join("SUMMARY.md"),
        "# Summary\n\n[Intro](intro.md)\n\n- [A](./models/a.md)\n  - [Nested](models/x/b.md)\n\
         - [Code](code.md)\n- [Escaped](esc.md)\n- [Missing](missing.md)\n- [Draft]()\n",
    )
    .unwrap();
    for (file, text) in [
        ("intro.md", "# Intro\n"),
        ("models/a.md", "# A\n\n<<agentx page=\"A\">>\n"),
        (
            "models/x/b.md",
            "# B\n\n- <<agentx page=\"B\" level=\"3\">>\n",
        ),
        ("code.md", "# Code\n\n```\n<<agentx page=\"C\">>\n```\n"),
        ("esc.md", "# Esc\n\n\\<<agentx page=\"E\">>\n"),
    ] {
        std::fs::write(src.join(file), text).unwrap();
    }
    let r = run(dir.path()).unwrap();
    let toml = toml_of(dir.path());
    assert!(
        toml.contains(
            "[output.html.search.chapter]\n\"models/a\" = { enable = false }\n\
             \"models/x/b\" = { enable = false }\n\n[output.html.print]\nenable = false\n\n\
             [output.html.fold]\nenable = true\n"
        ),
        "{toml}"
    );
    assert_eq!(
        r.changes
            .iter()
            .filter(|c| c.contains("[output.html."))
            .count(),
        4,
        "{r:?}"
    );
    // mdBook's own config reads it.
    let parsed: toml::Table = toml::from_str(&toml).unwrap();
    assert_eq!(
        parsed["output"]["html"]["print"]["enable"].as_bool(),
        Some(false)
    );
    assert_eq!(
        parsed["output"]["html"]["fold"]["enable"].as_bool(),
        Some(true)
    );
    assert_eq!(run(dir.path()).unwrap(), InstallReport::default(), "twice");
    // A print setting of the book's own stays, with a note.
    std::fs::write(
        dir.path().join("book.toml"),
        toml.replace("enable = false\n", "enable = true\n")
            .replace(
                "[output.html.fold]\nenable = true\n",
                "[output.html.fold]\nenable = false\n",
            )
            .replace("\"models/a\" = { enable = false }\n", ""),
    )
    .unwrap();
    let r = run(dir.path()).unwrap();
    let again = toml_of(dir.path());
    assert!(
        again.contains("[output.html.print]\nenable = true\n"),
        "{again}"
    );
    assert!(
        again.contains("\"models/a\" = { enable = false }"),
        "{again}"
    );
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("print page holds every command set")),
        "{r:?}"
    );
    // So does a fold setting of its own.
    assert!(
        again.contains("[output.html.fold]\nenable = false\n"),
        "{again}"
    );
    assert!(
        r.notes.iter().any(|n| n.contains("lists every generated")),
        "{r:?}"
    );
}

/// A `book.toml` saved with CRLF line breaks keeps them, and a second run
/// changes nothing.
#[test]
fn crlf_line_breaks_are_kept() {
    let input = INIT_TOML.replace('\n', "\r\n");
    let dir = book(&input);
    run(dir.path()).unwrap();
    let toml = toml_of(dir.path());
    assert!(toml.len() > input.len(), "nothing added: {toml:?}");
    assert!(toml.starts_with(&input), "{toml:?}");
    assert_eq!(
        toml.matches('\n').count(),
        toml.matches("\r\n").count(),
        "{toml:?}"
    );
    assert_eq!(run(dir.path()).unwrap(), InstallReport::default());
    assert_eq!(toml_of(dir.path()), toml);
}

/// A refusal advises `allow-outside`; install reads that setting as a build
/// does, so following the advice works (and the link is replaced by the
/// asset, nothing written outside the book).
#[cfg(unix)]
#[test]
fn allow_outside_is_read_as_its_refusal_advises() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("theirs.css");
    std::fs::write(&target, "theirs\n").unwrap();
    let dir = book(INIT_TOML);
    std::os::unix::fs::symlink(&target, dir.path().join("agentx.css")).unwrap();
    let e = format!("{:#}", run(dir.path()).unwrap_err());
    assert!(e.contains("set `allow-outside = true`"), "{e}");
    let toml = format!("{INIT_TOML}\n[preprocessor.agentx]\nallow-outside = true\n");
    std::fs::write(dir.path().join("book.toml"), &toml).unwrap();
    let e = format!("{:#}", run(dir.path()).unwrap_err());
    assert!(
        e.contains("was not written by `mdbook-agentx install`"),
        "{e}"
    );
    let forced = InstallOptions {
        force: true,
        ..InstallOptions::default()
    };
    install_assets(dir.path(), ASSETS, &forced).unwrap();
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "theirs\n");
    assert!(!dir.path().join("agentx.css").is_symlink());
}
