//! Tests of the engine: what each change means, and that every rebuild
//! equals a fresh render.

use super::*;
use crate::test_support::{mini_book, read, repo, sample_book_copy};

/// (path relative to the book root, what it means), for a book whose
/// data directory lies inside its source dir, as the sample book's does.
const CHANGE_KINDS: &[(&str, Option<ChangeKind>)] = &[
    ("book.toml", Some(ChangeKind::Config)),
    ("content/book.toml", Some(ChangeKind::Content)),
    // The source or data directory itself moved, removed or created: its
    // files may have changed without an event each.
    ("content", Some(ChangeKind::Replaced)),
    ("content/agentx", Some(ChangeKind::Replaced)),
    ("content/models", Some(ChangeKind::Content)),
    ("templates/page.html", Some(ChangeKind::Theme)),
    ("agentx-theme/book.css", Some(ChangeKind::Theme)),
    ("agentx-theme/new/x.svg", Some(ChangeKind::Theme)),
    // mdBook's theme folder: not the builder's.
    ("theme/book.js", None),
    ("content/agentx/qwen3.5.jsx", Some(ChangeKind::Data)),
    ("content/agentx/deep/x.json", Some(ChangeKind::Data)),
    ("content/agentx/README.md", None),
    ("content/agentx/.x.json.swp", None),
    ("content/models/qwen3.5.md", Some(ChangeKind::Content)),
    ("content/SUMMARY.md", Some(ChangeKind::Content)),
    ("content/images/a.png", Some(ChangeKind::Content)),
    ("content/models/qwen3.5.md~", None),
    ("content/4913", None),
    ("book/index.html", None),
    ("flags/sglang.json", None),
    ("templatesx/page.html", None),
    ("README.md", None),
];

#[test]
fn change_kinds() {
    let root = Path::new("/books/b");
    let book = BookInputs {
        root: root.to_path_buf(),
        config: root.join("book.toml"),
        src: root.join("content"),
        data: root.join("content/agentx"),
        theme: [root.join("templates"), root.join("agentx-theme")],
    };
    for (rel, want) in CHANGE_KINDS {
        assert_eq!(change_kind(&book, &root.join(rel)), *want, "{rel}");
    }
    // Outside the book, even under a name the book uses.
    assert_eq!(change_kind(&book, Path::new("/other/book.toml")), None);
    assert_eq!(change_kind(&book, Path::new("/other/content/a.md")), None);
}

#[test]
fn editor_noise() {
    for n in [
        "a.md~",
        ".a.md.swp",
        "4913",
        ".#a.md",
        "x.json___jb_tmp___",
        "a.tmp",
    ] {
        assert!(is_editor_noise(Path::new(n)), "{n}");
    }
    for n in ["a.md", "x.json", "book.toml"] {
        assert!(!is_editor_noise(Path::new(n)), "{n}");
    }
}

/// Changes the first `--max-running-requests` value of the data file at `data`.
fn edit_a_command(data: &Path) {
    let text = read(data).replacen(
        "\"--max-running-requests\": [\"",
        "\"--max-running-requests\": [\"1",
        1,
    );
    std::fs::write(data, text).unwrap();
}

/// Rebuilds after `changes` and asserts the site equals a fresh render.
fn rebuild_like_fresh(
    engine: &mut Engine,
    book: &Path,
    changes: &[Change],
    opts: &BuildOptions,
) -> Rebuild {
    let r = engine.rebuild(changes, opts).unwrap();
    let fresh = Site::load(book).unwrap().render_files(opts).unwrap();
    assert!(
        r.rendered.files == fresh,
        "{changes:?}: differs from a fresh render"
    );
    r
}

/// The engine of `serve` and `watch` reuses chapter bodies and laid-out
/// pages; after every kind of change its site must equal a fresh render.
#[test]
fn rebuilds_only_what_changed_and_match_a_fresh_render() {
    let book = mini_book("engine-cache");
    let opts = BuildOptions::default();
    let mut engine = Engine::open(&book, false).unwrap();
    let mut rebuild = |changes: &[Change]| {
        let r = rebuild_like_fresh(&mut engine, &book, changes, &opts);
        (r.rendered.rerendered, r.rendered.laid_out)
    };
    assert_eq!(rebuild(&[Change::Content]), (4, 4));
    // Nothing changed: nothing rendered or laid out again.
    assert_eq!(rebuild(&[Change::Content]), (0, 0));
    // A chapter's text: its body and page only.
    let plain = book.join("src/plain.md");
    std::fs::write(&plain, read(&plain) + "\nOne more line.\n").unwrap();
    assert_eq!(rebuild(&[Change::Content]), (1, 1));
    // A chapter title in SUMMARY.md: every sidebar changes, no body does.
    let summary = book.join("src/SUMMARY.md");
    std::fs::write(&summary, read(&summary).replace("[Plain]", "[Plain text]")).unwrap();
    assert_eq!(rebuild(&[Change::Content]), (0, 4));
    // A template: every page is laid out again.
    std::fs::create_dir_all(book.join("templates")).unwrap();
    let page = read(&repo().join("templates/page.html"));
    std::fs::write(
        book.join("templates/page.html"),
        page.replace(
            "<main id=\"content\">",
            "<main id=\"content\" data-x=\"1\">",
        ),
    )
    .unwrap();
    assert_eq!(rebuild(&[Change::Theme]), (0, 4));
    // A data file: the pages it feeds.
    let data = book.join("data/mini.json");
    edit_a_command(&data);
    let (bodies, pages) = rebuild(&[Change::Data(vec![data.clone()])]);
    assert!(
        bodies >= 1 && bodies == pages && pages < 4,
        "{bodies} {pages}"
    );
}

/// A data-file edit expands again only the chapters whose directives use
/// that file (counted by the engine, not timed); every rebuild still
/// equals a fresh render.
#[test]
fn a_data_edit_expands_only_the_chapters_that_use_the_file() {
    let book = sample_book_copy("engine-expansions");
    // A second chapter showing DeepSeek-V4.1 (the guide's directives are in
    // code: not expanded).
    let intro = book.join("content/intro.md");
    std::fs::write(
        &intro,
        read(&intro) + "\n<<agentx page=\"DeepSeek-V4.1\">>\n",
    )
    .unwrap();
    let opts = BuildOptions::default();
    let mut engine = Engine::open(&book, false).unwrap();
    let mut rebuild = |changes: &[Change]| {
        rebuild_like_fresh(&mut engine, &book, changes, &opts).chapters_expanded()
    };
    let edit = |rel: &str| {
        let path = book.join(rel);
        let text = read(&path);
        let edited = text.replacen(
            "\"--max-running-requests\": [\"",
            "\"--max-running-requests\": [\"1",
            1,
        );
        assert_ne!(text, edited, "{rel}");
        std::fs::write(&path, edited).unwrap();
        vec![Change::Data(vec![path])]
    };
    // Six model chapters, the introduction, and the guide's chapter on the
    // directive (its escaped directive is expanded to the literal text).
    assert_eq!(rebuild(&[Change::Content]), 8);
    assert_eq!(rebuild(&[Change::Content]), 0);
    assert_eq!(rebuild(&edit("agentx/muse-spark-open.json")), 1);
    assert_eq!(rebuild(&edit("agentx/deepseek-v4.1.json")), 2);
    // A file no chapter shows.
    std::fs::write(
        book.join("agentx/extra.json"),
        read(&book.join("agentx/glm-5.2.json")).replace("\"GLM-5.2\"", "\"GLM-Extra\""),
    )
    .unwrap();
    assert_eq!(
        rebuild(&[Change::Data(vec![book.join("agentx/extra.json")])]),
        0
    );
    // A chapter's text: that chapter.
    let glm = book.join("content/models/glm-5.2.md");
    std::fs::write(&glm, read(&glm) + "\nOne more line.\n").unwrap();
    assert_eq!(rebuild(&[Change::Content]), 1);
    // A file the page moves to: the chapter follows it.
    std::fs::remove_file(book.join("agentx/muse-spark-open.json")).unwrap();
    let moved = book.join("agentx/muse.json");
    std::fs::write(&moved, read(&repo().join("agentx/muse-spark-open.json"))).unwrap();
    let gone = book.join("agentx/muse-spark-open.json");
    assert_eq!(rebuild(&[Change::Data(vec![gone, moved])]), 1);
    // `book.toml`: every chapter.
    assert_eq!(rebuild(&[Change::Config]), 8);
}

/// What the caches keep per deployment (deployment chapters' Markdown,
/// laid-out pages, search catalogs, manifest entries): an edit of one
/// deployment's command, of two, of what every deployment page shows, then
/// each one's revert, each equal a fresh render, and the reverted site is
/// the first one again.
#[test]
fn deployment_edits_and_reverts_match_a_fresh_render() {
    let book = sample_book_copy("engine-revert");
    let opts = BuildOptions::default();
    let mut engine = Engine::open(&book, false).unwrap();
    let first = rebuild_like_fresh(&mut engine, &book, &[Change::Content], &opts);
    let data = book.join("agentx/muse-spark-open.json");
    let original = read(&data);
    let change = [Change::Data(vec![data.clone()])];
    for edited in [
        original.replacen(
            "\"--max-running-requests\": [\"",
            "\"--max-running-requests\": [\"1",
            1,
        ),
        // A second deployment's too, then a word no deployment had.
        original
            .replacen(
                "\"--max-running-requests\": [\"",
                "\"--max-running-requests\": [\"2",
                2,
            )
            .replacen(
                "\"--max-running-requests\"",
                "\"--max-running-requests-x\"",
                1,
            ),
        // What every deployment chapter of the section shows (its selector).
        original.replacen("\"label\": \"", "\"label\": \"Relabelled ", 1),
    ] {
        assert_ne!(edited, original);
        std::fs::write(&data, &edited).unwrap();
        let r = rebuild_like_fresh(&mut engine, &book, &change, &opts);
        assert!(r.rendered.files != first.rendered.files, "the edit shows");
        std::fs::write(&data, &original).unwrap();
        let r = rebuild_like_fresh(&mut engine, &book, &change, &opts);
        assert!(r.rendered.files == first.rendered.files, "reverted");
    }
}

/// A data directory replaced whole (files changed without an event each):
/// [`Change::Replaced`] reads the data again, so the site equals a fresh
/// render; a content change alone would keep the old decoded data.
#[test]
fn a_replaced_data_directory_is_read_again() {
    let book = mini_book("engine-replaced");
    let opts = BuildOptions::default();
    let mut engine = Engine::open(&book, false).unwrap();
    let first = rebuild_like_fresh(&mut engine, &book, &[Change::Content], &opts);
    let data = book.join("data/mini.json");
    edit_a_command(&data);
    let stale = engine.rebuild(&[Change::Content], &opts).unwrap();
    assert!(stale.rendered.files == first.rendered.files, "data kept");
    let dir = book.join("data");
    let r = rebuild_like_fresh(&mut engine, &book, &[Change::Replaced(dir)], &opts);
    assert!(
        r.rendered.files != first.rendered.files,
        "the new data shows"
    );
}

/// `book.toml` edited while serving to set `allow-outside = true`: the
/// rebuild is refused without `--allow-outside` (it used to honour the
/// setting, reading files outside the book), and goes on with it.
#[test]
fn a_book_toml_edit_cannot_switch_the_outside_guard_off() {
    for allowed in [false, true] {
        let book = mini_book(if allowed {
            "engine-outside-on"
        } else {
            "engine-outside-off"
        });
        let mut engine = Engine::open(&book, allowed).unwrap();
        let opts = BuildOptions::default();
        engine.rebuild(&[Change::Content], &opts).unwrap();
        let toml = book.join("book.toml");
        std::fs::write(&toml, read(&toml) + "allow-outside = true\n").unwrap();
        let again = engine.rebuild(&[Change::Config], &opts);
        match (allowed, again) {
            (false, Err(e)) => assert!(format!("{e:#}").contains("--allow-outside"), "{e:#}"),
            (true, Ok(_)) => {}
            (allowed, r) => panic!("allowed {allowed}: {:?}", r.map(|_| ())),
        }
    }
}
