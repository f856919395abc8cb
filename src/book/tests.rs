//! The book module: one reading of `book.toml`, every path from it.

use std::str::FromStr;

use super::*;

const TOML: &str = "[book]\ntitle = \"T\"\nsrc = \"content\"\n\n[build]\nbuild-dir = \"out\"\n\n\
                    [preprocessor.agentx]\ndata-dir = \"data\"\n\n\
                    [output.html]\nadditional-css = [\"x.css\"]\nsmart-punctuation = false\n";

/// Every path comes from here, the same whichever way the config arrived.
#[test]
fn paths_resolve_from_one_reading() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("book.toml"), TOML).unwrap();
    let opened = BookDir::open(root.path()).unwrap();
    let from_mdbook = BookDir::from_mdbook(root.path(), &Config::from_str(TOML).unwrap()).unwrap();
    for dir in [&opened, &from_mdbook] {
        let r = root.path();
        assert_eq!(dir.src_dir(), r.join("content"));
        assert_eq!(dir.data_dir(), r.join("data"));
        assert_eq!(dir.build_dir(), r.join("out"));
        assert_eq!(dir.templates_dir(), r.join("templates"));
        assert_eq!(dir.theme_dir(), r.join("agentx-theme"));
        assert_eq!(dir.book_toml(), r.join("book.toml"));
        assert_eq!(dir.title(), "T");
        assert_eq!(dir.html.additional_css, [PathBuf::from("x.css")]);
        assert!(!dir.html.markdown.smart_punctuation);
    }
    let tables = SourceAndData::from_toml(TOML).unwrap();
    assert_eq!(tables.src, Path::new("content"));
    assert_eq!(tables.agentx.data_dir, Path::new("data"));
}

/// mdBook's defaults, and its refusal of keys it does not know.
#[test]
fn defaults_and_unknown_keys_as_in_mdbook() {
    let root = tempfile::tempdir().unwrap();
    let dir = BookDir::parse(root.path(), "").unwrap();
    assert_eq!(dir.src_dir(), root.path().join("src"));
    assert_eq!(dir.data_dir(), root.path().join("agentx"));
    assert_eq!(dir.build_dir(), root.path().join("book"));
    assert_eq!(dir.title(), "Untitled book");
    let e = BookDir::parse(root.path(), "[book]\nsrcdir = \"x\"\n").unwrap_err();
    assert!(format!("{e:#}").contains("unknown field `srcdir`"), "{e:#}");
    let e = BookDir::parse(root.path(), "[preprocessor.agentx]\ndata = \"x\"\n").unwrap_err();
    let e = format!("{e:#}");
    assert!(
        e.contains("invalid [preprocessor.agentx] in book.toml"),
        "{e}"
    );
}
