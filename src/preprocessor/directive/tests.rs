use proptest::prelude::*;

use super::*;

fn kinds(chapter: &str) -> Vec<(usize, usize, &'static str)> {
    find(chapter, MarkdownConfig::default())
        .into_iter()
        .map(|o| {
            let k = match o.found {
                Found::Escaped => "escaped",
                Found::Directive(Ok(_)) => "directive",
                Found::Directive(Err(_)) => "error",
            };
            (o.position.line, o.position.column, k)
        })
        .collect()
}

#[test]
fn find_table() {
    type Case<'a> = (&'a str, &'a [(usize, usize, &'a str)]);
    let cases: &[Case<'_>] = &[
        ("<<agentx page=\"A\">>\n", &[(1, 1, "directive")]),
        (
            "# T\n\n<<agentx page=\"A\">>\n\ntext\n",
            &[(3, 1, "directive")],
        ),
        ("```\n<<agentx page=\"A\">>\n```\n", &[]),
        ("~~~md\n<<agentx page=\"A\">>\n~~~\n", &[]),
        ("para\n\n    <<agentx page=\"A\">>\n", &[]),
        ("`<<agentx page=\"A\">>`\n", &[]),
        ("a `<<agentx page=\"A\">>` b\n", &[]),
        ("<div>\n<<agentx page=\"A\">>\n</div>\n", &[]),
        ("<!-- <<agentx page=\"A\"> -->\n", &[]),
        ("x <!-- <<agentx page=\"A\">> --> y\n", &[]),
        ("\\<<agentx page=\"A\">>\n", &[(1, 1, "escaped")]),
        ("say \\<<agentx page=\"A\">> here\n", &[(1, 5, "escaped")]),
        ("say <<agentx page=\"A\">> here\n", &[(1, 5, "error")]),
        (
            "- item\n\n  <<agentx page=\"A\">>\n",
            &[(3, 3, "directive")],
        ),
        ("- <<agentx page=\"A\">>\n", &[(1, 3, "directive")]),
        ("> <<agentx page=\"A\">>\n", &[(1, 3, "directive")]),
        (
            "<<agentx page=\"A\">>\r\n\r\n<<agentx page=\"B\">>\r\n",
            &[(1, 1, "directive"), (3, 1, "directive")],
        ),
        (
            "Ünïcödé ✓\n\n<<agentx page=\"Ä\">>\n",
            &[(3, 1, "directive")],
        ),
        (
            "text\n<<agentx page=\"A\">>\nmore\n",
            &[(2, 1, "directive")],
        ),
        ("<<agentxfoo>>\n", &[]),
        ("<<agentx page=A>>\n", &[(1, 1, "error")]),
        // Regressions: an unterminated directive whose line ends in `\r\n`
        // or trailing spaces ran past its paragraph and panicked.
        (
            "# A\n\n<<agentx page=\"a\"\r\n\r\nmore\r\n",
            &[(3, 1, "error")],
        ),
        ("<<agentx page=\"a\"   \n\nmore\n", &[(1, 1, "error")]),
        ("<<agentx page=\"a\"\t \r\n", &[(1, 1, "error")]),
        ("<<agentx page=\"a\">>  \r\n", &[(1, 1, "directive")]),
        // Several on one line: columns count characters, not bytes.
        (
            "é <<agentx page=\"A\">> ü <<agentx page=\"B\">>\n",
            &[(1, 3, "error"), (1, 25, "error")],
        ),
        (
            "<<agentx page=\"A\">> <<agentx page=\"B\">>\n",
            &[(1, 1, "error"), (1, 21, "error")],
        ),
    ];
    for (src, want) in cases {
        assert_eq!(kinds(src), *want, "{src:?}");
    }
}

#[test]
fn splice_keeps_everything_else() {
    let table: &[(&str, &str, &str)] = &[
        (
            "a\n\n<<agentx page=\"A\">>\n\nb\n",
            "X\nY\n",
            "a\n\nX\nY\n\nb\n",
        ),
        ("<<agentx page=\"A\">>", "X\n\nY\n", "X\n\nY"),
        ("a\n<<agentx page=\"A\">>\nb\n", "X\n", "a\n\nX\n\nb\n"),
        (
            "- i\n\n  <<agentx page=\"A\">>\n",
            "X\n\nY\n",
            "- i\n\n  X\n\n  Y\n",
        ),
        ("> <<agentx page=\"A\">>\n", "X\n\nY\n", "> X\n>\n> Y\n"),
        (
            "x\r\n\r\n<<agentx page=\"A\">>\r\n\r\ny\r\n",
            "X\n",
            "x\r\n\r\nX\r\n\r\ny\r\n",
        ),
    ];
    for (src, repl, want) in table {
        let occ = find(src, MarkdownConfig::default());
        assert_eq!(occ.len(), 1, "{src:?}");
        let reps: Vec<Replacement> = occ
            .into_iter()
            .map(|o| Replacement {
                occurrence: o,
                text: repl.to_string(),
            })
            .collect();
        assert_eq!(splice(src, &reps), *want, "{src:?}");
    }
}

#[test]
fn escaped_is_shown_literally() {
    let src = "see \\<<agentx page=\"A\">> here\n";
    let occ = find(src, MarkdownConfig::default());
    let lit = literal_text(occ[0].source(src));
    assert_eq!(lit, "\\<\\<agentx page=\"A\">>");
    let out = splice(
        src,
        &[Replacement {
            occurrence: occ[0].clone(),
            text: lit,
        }],
    );
    let html = {
        let mut s = String::new();
        pulldown_cmark::html::push_html(&mut s, MarkdownConfig::default().parser(&out));
        s
    };
    assert_eq!(html, "<p>see &lt;&lt;agentx page=“A”&gt;&gt; here</p>\n");
}

/// A broken directive covers its line without the line break or trailing
/// whitespace, so splicing keeps them.
#[test]
fn broken_directive_ranges_stop_before_line_ends() {
    let table: &[(&str, &str)] = &[
        ("<<agentx page=\"a\"\r\n\r\nmore\r\n", "<<agentx page=\"a\""),
        ("<<agentx page=\"a\"   \n", "<<agentx page=\"a\""),
        ("<<agentx page=\"a\" x>> y\n", "<<agentx page=\"a\" x>>"),
    ];
    for (src, want) in table {
        let occ = find(src, MarkdownConfig::default());
        assert_eq!(occ.len(), 1, "{src:?}");
        assert_eq!(occ[0].source(src), *want, "{src:?}");
    }
}

/// Pieces chapters are made of: directives whole and broken, escapes,
/// containers, code, CRLF, trailing spaces, multibyte text.
fn chapter_piece() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(vec![
        "<<agentx page=\"A\">>",
        "<<agentx page=\"a\"",
        "<<agentx page=\"",
        "<<agentx page='é' level=\"9\">>",
        "<<agentx <<agentx page=\"A\">> >>",
        "<<agentx",
        "<<agentxfoo",
        "\\",
        "\\<<agentx page=\"A\">>",
        ">>",
        "\r\n",
        "\n",
        "\r",
        "\n\n",
        "   ",
        "\t",
        "> ",
        "- ",
        "1. ",
        "    ",
        "```\n",
        "`",
        "<!--",
        "-->",
        "<div>",
        "text",
        "Ünïcödé ✓",
        "🚀",
        "| a | b |\n|---|---|\n",
        "[link](x.md)",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Any chapter: no panic; occurrences in order, inside the chapter, on
    /// character boundaries, not overlapping; splicing keeps every byte
    /// outside them.
    #[test]
    fn any_chapter_finds_and_splices(pieces in proptest::collection::vec(chapter_piece(), 0..40)) {
        let chapter: String = pieces.concat();
        let occ = find(&chapter, MarkdownConfig::default());
        let mut last_end = 0;
        for o in &occ {
            prop_assert!(o.range.start >= last_end && o.range.start < o.range.end);
            prop_assert!(o.range.end <= chapter.len());
            prop_assert!(chapter.is_char_boundary(o.range.start));
            prop_assert!(chapter.is_char_boundary(o.range.end));
            prop_assert!(o.source(&chapter).trim_start_matches('\\').starts_with(OPEN));
            last_end = o.range.end;
        }
        let reps: Vec<Replacement> = occ
            .iter()
            .map(|o| Replacement { occurrence: o.clone(), text: "X\n\nY\n".into() })
            .collect();
        let out = splice(&chapter, &reps);
        let kept: usize = chapter.len() - occ.iter().map(|o| o.range.len()).sum::<usize>();
        prop_assert!(out.len() >= kept);
        if occ.is_empty() {
            prop_assert_eq!(out, chapter);
        }
    }
}
