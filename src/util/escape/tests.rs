//! The escapes against the Markdown parser mdBook uses: what the parser
//! reads back must be the input, and nothing else (no element, link or
//! HTML that the input did not ask for as text).

use proptest::prelude::*;
use pulldown_cmark::{Event, Tag, TagEnd};

use super::*;
use crate::util::cmark::MarkdownConfig;

/// mdBook's parser without smart punctuation, which would turn quotes and
/// dashes of the text into typographic ones (on purpose, not markup).
fn events(md: &str) -> Vec<Event<'_>> {
    let config = MarkdownConfig {
        smart_punctuation: false,
        ..MarkdownConfig::default()
    };
    config.parser(md).collect()
}

/// What a reader sees of `s` once it is text: one line, trimmed.
fn shown(s: &str) -> String {
    one_line(s).trim().to_string()
}

/// Hostile and awkward data text: markup, directive, entities, block
/// markers at the start, multibyte, CRLF.
const CASES: &[&str] = &[
    "plain",
    "<script>alert(1)</script>",
    "\"><img src=x onerror=alert(1)>",
    "</SCRIPT><svg onload=alert(1)>",
    "[click](javascript:alert(1))",
    "![img](https://e.com/x.png)",
    "<https://e.com>",
    "<<agentx page=\"X\">>",
    "a `b` c ``d`` `",
    "```",
    "*em* _em_ **strong** ~~gone~~",
    "a | b | c",
    "\\ \\\\ \\| \\`",
    "&amp; &lt;script&gt; &#60; &colon;",
    "# heading",
    "heading ends #",
    "x ## {#id}",
    "title {#id onclick=alert(1)}",
    "- item",
    "+ item",
    "1. item",
    "12) item",
    "> quote",
    ": definition",
    "=== ---",
    "    indented code",
    "[^1] footnote",
    "[ ] task",
    "Ünïcödé ✓ 中文 🚀 <é>",
    "line one\r\nline two\nthree\rfour",
    "trailing backslash \\",
    "ends with two spaces  ",
    "<!-- comment -->",
    "$x$ and $$y$$",
    "nul \0 bom \u{feff} ls \u{2028} nbsp \u{a0}",
];

/// Text and inline markup events (no block, link or HTML).
fn inline_text(events: &[Event<'_>]) -> (String, Vec<String>) {
    let mut text = String::new();
    let mut markup = Vec::new();
    for e in events {
        match e {
            Event::Text(t) => text.push_str(t),
            Event::SoftBreak | Event::HardBreak => markup.push(format!("{e:?}")),
            Event::Start(Tag::Paragraph | Tag::Item | Tag::List(_) | Tag::Heading { .. })
            | Event::End(TagEnd::Paragraph | TagEnd::Item | TagEnd::List(_) | TagEnd::Heading(_)) =>
                {}
            Event::Start(Tag::Table(_) | Tag::TableHead | Tag::TableRow | Tag::TableCell)
            | Event::End(
                TagEnd::Table | TagEnd::TableHead | TagEnd::TableRow | TagEnd::TableCell,
            ) => {}
            other => markup.push(format!("{other:?}")),
        }
    }
    (text, markup)
}

/// `text(s)` in every context render uses it in: read back exactly, no markup.
fn assert_text_round_trips(s: &str) {
    let t = text(s);
    let want = shown(s);
    let contexts = [
        (format!("x {t} y\n"), format!("x {want} y")),
        (format!("- x {t}\n"), format!("x {want}")),
        (format!("{t}\n"), want.clone()),
        (format!("- {t}\n"), want.clone()),
        (format!("# x {t} {{#id}}\n"), format!("x {want}")),
    ];
    for (md, expected) in &contexts {
        let ev = events(md);
        let (got, markup) = inline_text(&ev);
        assert_eq!(got, expected.trim_end(), "{s:?} in {md:?}: {ev:?}");
        assert!(markup.is_empty(), "{s:?} in {md:?}: markup {markup:?}");
        if md.starts_with('#') {
            let id = ev.iter().find_map(|e| match e {
                Event::Start(Tag::Heading { id, attrs, .. }) => Some((id.clone(), attrs.len())),
                _ => None,
            });
            assert_eq!(
                id,
                Some((Some("id".into()), 0)),
                "{s:?}: heading attributes"
            );
        }
    }
    let cell = format!("| h |\n|---|\n| {} |\n", table_cell(&t));
    let ev = events(&cell);
    let (got, markup) = inline_text(&ev);
    assert_eq!(got, format!("h{want}"), "{s:?} in a table: {ev:?}");
    assert!(markup.is_empty(), "{s:?} in a table: {markup:?}");
    let cells = ev
        .iter()
        .filter(|e| matches!(e, Event::Start(Tag::TableCell)))
        .count();
    assert_eq!(cells, 2, "{s:?}: the table kept one column");
}

#[test]
fn text_reads_back_exactly() {
    for s in CASES {
        assert_text_round_trips(s);
    }
}

#[test]
fn text_table() {
    let table: &[(&str, &str)] = &[
        ("GB300", "GB300"),
        ("Agg TP4·EP4", "Agg TP4·EP4"),
        ("a|b", "a\\|b"),
        ("<script>", "\\<script\\>"),
        ("[x](y)", "\\[x\\](y)"),
        ("- x", "\\- x"),
        ("1. x", "1\\. x"),
        ("10) x", "10\\) x"),
        ("x - 1.", "x - 1."),
        ("3.10", "3.10"),
        ("-5 --x", "-5 -\\-x"),
        ("-- x", "\\-\\- x"),
        ("it's \"x\"...", "it\\'s \\\"x\\\".\\.\\."),
        ("1.", "1\\."),
        ("PR #4174", "PR #4174"),
        ("#1 a # b ##", "\\#1 a \\# b \\#\\#"),
        ("a\r\nb", "a b"),
        ("  a  ", "a"),
    ];
    for (input, want) in table {
        assert_eq!(text(input), *want, "{input:?}");
    }
}

/// `code(s)` is one code span holding exactly `s` (on one line).
fn assert_code_round_trips(s: &str) {
    let c = code(s);
    let want = one_line(s).into_owned();
    if want.is_empty() {
        assert_eq!(c, "");
        return;
    }
    for md in [format!("x {c} y\n"), format!("{c}\n"), format!("- {c}\n")] {
        let ev = events(&md);
        let codes: Vec<&str> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Code(t) => Some(t.as_ref()),
                _ => None,
            })
            .collect();
        assert_eq!(codes, [want.as_str()], "{s:?} in {md:?}: {ev:?}");
    }
    let cell = format!("| h |\n|---|\n| {} |\n", table_cell(&c));
    let ev = events(&cell);
    let code_in_cell = ev.iter().find_map(|e| match e {
        Event::Code(t) => Some(t.to_string()),
        _ => None,
    });
    // GFM turns `\|` back into `|` even in code; only a backslash right
    // before a pipe is lost, never the cell boundary.
    assert_eq!(
        code_in_cell.map(|t| t.replace("\\|", "|")),
        Some(want.replace("\\|", "|")),
        "{s:?} in a table: {ev:?}"
    );
}

#[test]
fn code_reads_back_exactly() {
    for s in CASES {
        assert_code_round_trips(s);
    }
    for s in ["`", "``", "a`", "`a", " a ", "   ", " `` ", "x ``` y `` z"] {
        assert_code_round_trips(s);
    }
}

#[test]
fn code_fences() {
    assert_eq!(code("a"), "`a`");
    assert_eq!(code("a`b"), "``a`b``");
    assert_eq!(code("a``b`c"), "```a``b`c```");
    assert_eq!(code("`x"), "`` `x ``");
    assert_eq!(fenced("bash", "echo"), "```bash\necho\n```\n\n");
    assert_eq!(fenced("text", "a ```` b"), "`````text\na ```` b\n`````\n\n");
}

/// Links: http(s) and relative references link, with exactly that URL;
/// everything else is the label as text.
#[test]
fn links_only_to_safe_urls() {
    let safe = [
        "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/1",
        "HTTP://e.com/a_(b)?c=1&d=<2>#f",
        "../x.html#a",
        "#anchor",
        "//cdn.example/x",
        "javascript&colon;alert(1)",
        "javascript&#58;alert(1)",
        "a\\b`c[d]|e",
    ];
    for url in safe {
        let md = format!("{}\n", link(&text("label"), url));
        let ev = events(&md);
        let dest = ev.iter().find_map(|e| match e {
            Event::Start(Tag::Link { dest_url, .. }) => Some(dest_url.to_string()),
            _ => None,
        });
        assert_eq!(dest.as_deref(), Some(url), "{url}: {ev:?}");
    }
    let unsafe_urls = [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        " javascript:alert(1)",
        "java\tscript:alert(1)",
        "java\nscript:alert(1)",
        "\u{1}javascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "vbscript:x",
        "file:///etc/passwd",
        "https://e.com/a b",
        "",
    ];
    for url in unsafe_urls {
        let out = link(&text("label"), url);
        assert_eq!(out, "label", "{url:?}");
    }
}

#[test]
fn table_cells_escape_pipes_once() {
    assert_eq!(table_cell("a|b"), "a\\|b");
    assert_eq!(table_cell("a\\|b"), "a\\|b");
    assert_eq!(table_cell("a\\\\|b"), "a\\\\\\|b");
}

#[test]
fn scripts_cannot_be_closed() {
    let v = serde_json::json!({"t": "</SCRIPT><script>x</script><!-- & \u{2028}"});
    let json = script_json(&v).unwrap();
    assert!(!json.contains(['<', '>', '&', '\u{2028}']), "{json}");
    assert_eq!(serde_json::from_str::<serde_json::Value>(&json).unwrap(), v);
    assert_eq!(
        inline_script("a='</SCRIPT>'; b='</script'; c='<!--'; d='</scr'"),
        "a='<\\/SCRIPT>'; b='<\\/script'; c='<\\!--'; d='</scr'"
    );
    assert_eq!(inline_style("a{}</StYlE>"), "a{}<\\/StYlE>");
    assert_eq!(
        html("<a href=\"x\">'&"),
        "&lt;a href=&quot;x&quot;&gt;&#39;&amp;"
    );
}

/// The escaping of one character at a time that the byte-wise
/// [`html_into`] and [`script_json`] replaced; they must agree with it.
fn html_by_char(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '&' => "&amp;".to_string(),
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '"' => "&quot;".to_string(),
            '\'' => "&#39;".to_string(),
            c => c.to_string(),
        })
        .collect()
}

fn script_json_by_char(v: &serde_json::Value) -> String {
    serde_json::to_string(v)
        .unwrap()
        .chars()
        .map(|c| match c {
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => format!("\\u{:04x}", c as u32),
            c => c.to_string(),
        })
        .collect()
}

#[test]
fn backtick_runs_are_counted_by_bytes() {
    for (s, longest, shortest_absent) in [
        ("", 0, 1),
        ("no ticks é✓", 0, 1),
        ("`", 1, 2),
        ("a`b``c", 2, 3),
        ("é```✓`🚀``", 3, 4),
        ("``", 2, 1),
    ] {
        assert_eq!(longest_run(s, b'`'), longest, "{s:?}");
        assert_eq!(shortest_absent_run(s, b'`'), shortest_absent, "{s:?}");
    }
}

#[test]
fn byte_wise_escapes_match_the_char_wise_ones() {
    let cases = [
        "",
        "plain",
        "&",
        "<<>>",
        "é<✓>🚀&\"'",
        "a\u{2028}b\u{2029}c",
        "– en dash, no escape",
        "x&amp;y",
        "'quoted' \"both\"",
        "日本語<b>",
    ];
    for s in cases {
        assert_eq!(html(s), html_by_char(s), "{s:?}");
        let mut onto = String::from("kept ");
        html_into(&mut onto, s);
        assert_eq!(onto, format!("kept {}", html_by_char(s)));
        let v = serde_json::json!({ "t": s });
        assert_eq!(script_json(&v).unwrap(), script_json_by_char(&v), "{s:?}");
    }
}

/// Characters that mean something to Markdown or HTML, with letters,
/// spaces, line breaks and multibyte characters.
fn hostile_string() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            proptest::sample::select(vec![
                '\\', '`', '*', '_', '~', '[', ']', '(', ')', '<', '>', '&', '|', '{', '}', '#',
                '-', '+', '=', ':', '.', '!', '^', '"', '\'', '$', ' ', '\t', '\n', '\r', '1', '9',
                'a', 'Z', ';', '/', 'é', '✓', '🚀',
            ]),
            proptest::char::any(),
        ],
        0..24,
    )
    .prop_map(|v| v.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_text_reads_back(s in hostile_string()) {
        assert_text_round_trips(&s);
    }

    #[test]
    fn escapes_equal_the_char_wise_ones(s in hostile_string()) {
        prop_assert_eq!(html(&s), html_by_char(&s));
        let v = serde_json::json!([s, { "k": s }]);
        prop_assert_eq!(script_json(&v).unwrap(), script_json_by_char(&v));
    }

    #[test]
    fn any_code_reads_back(s in hostile_string()) {
        assert_code_round_trips(&s);
    }

    #[test]
    fn any_url_links_exactly_or_not_at_all(s in hostile_string()) {
        let md = format!("{}\n", link("label", &s));
        let ev = events(&md);
        let dest = ev.iter().find_map(|e| match e {
            Event::Start(Tag::Link { dest_url, .. }) => Some(dest_url.to_string()),
            _ => None,
        });
        match safe_url(&s) {
            Some(_) => prop_assert_eq!(dest.as_deref(), Some(s.as_str())),
            None => prop_assert_eq!(dest, None),
        }
    }
}

/// Under smart punctuation (mdBook's default) the text stays as written:
/// flags, ids, quotes and dots are not made typographic (issue 26).
#[test]
fn text_is_exact_under_smart_punctuation() {
    let smart = MarkdownConfig::default();
    for s in CASES.iter().copied().chain([
        "--max-running-requests 48",
        "a---b -- c - d",
        "it's \"quoted\" 'single'",
        "wait... .. ....",
        "dsv4--x · -",
    ]) {
        for md in [text(s), format!("# {} {{#id}}", text(s))] {
            let events: Vec<Event<'_>> = smart.parser(&md).collect();
            let (got, markup) = inline_text(&events);
            assert_eq!(got, shown(s), "{md:?}");
            assert!(markup.is_empty(), "{md:?}: {markup:?}");
        }
    }
}

/// The pieces of a script JSON text join back to it, each at most `max`
/// bytes plus the rest of a character it would cut, cut only at character
/// boundaries (multibyte text included), as even as that allows; texts a
/// script could not hold in pieces are refused.
#[test]
fn script_json_parts_join_back_and_cut_at_characters() {
    let cases: &[(&str, usize, &[&str])] = &[
        ("{\"a\":1}", 100, &["{\"a\":1}"]),
        ("abcdef", 2, &["ab", "cd", "ef"]),
        ("abcdefg", 3, &["abc", "def", "g"]),
        ("abcdefg", 4, &["abcd", "efg"]),
        // Each `é` is 2 bytes, `€` 3, `🦀` 4: a cut inside one moves past it.
        ("ééé", 3, &["éé", "é"]),
        ("a€b€", 2, &["a€", "b€"]),
        ("🦀🦀x", 3, &["🦀", "🦀", "x"]),
        ("x", 0, &["x"]),
    ];
    for (json, max, want) in cases {
        let got = script_json_parts(json, *max).unwrap();
        assert_eq!(got, *want, "{json:?} by {max}");
        assert_eq!(got.concat(), *json);
    }
    for bad in ["", "a<b", "a>b", "a&b", "a\nb", "a\rb"] {
        assert_eq!(script_json_parts(bad, 10), None, "{bad:?}");
    }
    // What script_json writes for hostile data splits, and joins back.
    let json = script_json(&serde_json::json!({"x": "</script><!-- & é\u{2028}"})).unwrap();
    for max in 1..json.len() + 2 {
        let parts = script_json_parts(&json, max).unwrap();
        assert_eq!(parts.concat(), json, "by {max}");
    }
}
