//! Markdown → HTML for one chapter: heading ids (explicit `{#id}` or derived
//! like mdBook's), `.md` links rewritten to pages, highlighted code blocks with
//! a Copy button named by what it copies, a Copy link button after every
//! command-set heading, and tables whose cells carry their column's header.
//!
//! The set markup made here (Copy buttons named "Copy Prefill worker", the
//! Copy link outside the heading text, process titles as headings) is what
//! WCAG 2.1 AA asked of the pages; when the AgentX assets (issue 13) take
//! over the set features, they must keep all three.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pulldown_cmark::{CodeBlockKind, CowStr, Event, HeadingLevel, Tag, TagEnd, html};

use super::heading_ids::UniqueIds;
use crate::site::highlight::{escape_html, highlight};
use crate::util::cmark::MarkdownConfig;
use crate::util::escape::html_into;
use crate::util::fs::normalize;

/// Class the renderer puts on command-set headings (`{#id .agentx-set}`).
pub(crate) const SET_CLASS: &str = "agentx-set";
/// Class the renderer puts on a set's process headings (`.agentx-process`).
pub(crate) const PROCESS_CLASS: &str = crate::render::PROCESS_CLASS;

/// How internal links and ids are written.
#[derive(Debug, Clone)]
pub(crate) enum LinkMode {
    /// One HTML file per chapter: `x.md#a` → `x.html#a`.
    Pages,
    /// The whole book in one file: every id is prefixed with its chapter's
    /// prefix, and links to chapters become in-page links.
    SingleFile {
        /// Chapter source path (relative to src) → id prefix.
        prefixes: HashMap<PathBuf, String>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Heading {
    pub level: u8,
    pub id: String,
    pub text: String,
    pub kind: HeadingKind,
}

/// What a heading heads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum HeadingKind {
    Plain,
    /// A command set (`.agentx-set`).
    Set,
    /// One process of a command set, or its Env Vars (`.agentx-process`).
    Process,
}

#[derive(Debug, Clone)]
pub(crate) struct RenderedMarkdown {
    pub html: String,
    pub headings: Vec<Heading>,
    /// Files written beside the page (a model page's whole launch data,
    /// site/pages/lazy.rs), paths relative to the site.
    pub beside: Vec<(PathBuf, Arc<Vec<u8>>)>,
}

/// Renders a chapter. `chapter` is its path relative to the source dir;
/// `options` are the book's `[output.html]` Markdown switches.
pub(crate) fn render(
    markdown: &str,
    chapter: &Path,
    mode: &LinkMode,
    options: MarkdownConfig,
) -> RenderedMarkdown {
    let mut r = ChapterRender {
        chapter,
        mode,
        prefix: match mode {
            LinkMode::Pages => None,
            LinkMode::SingleFile { prefixes } => prefixes.get(chapter).cloned(),
        },
        ids: UniqueIds::default(),
        headings: Vec::new(),
        names: CopyNames::default(),
    };
    let events: Vec<Event<'_>> = options.parser(markdown).collect();
    let mut out: Vec<Event<'_>> = Vec::with_capacity(events.len());
    let mut i = 0;
    while i < events.len() {
        match &events[i] {
            Event::Start(Tag::Heading {
                level, id, classes, ..
            }) => {
                let end = find_end(&events, i, |e| matches!(e, Event::End(TagEnd::Heading(_))));
                let heading = HeadingTag {
                    level: *level,
                    id: id.as_deref(),
                    classes,
                };
                out.push(r.heading(&heading, &events[i + 1..end]));
                i = end + 1;
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                let end = find_end(&events, i, |e| matches!(e, Event::End(TagEnd::CodeBlock)));
                let name = r.names.for_code_block();
                out.push(code_block(kind, &events[i + 1..end], &name));
                i = end + 1;
            }
            Event::Start(Tag::Table(alignments)) => {
                let end = find_end(&events, i, |e| matches!(e, Event::End(TagEnd::Table)));
                let inner: Vec<Event<'_>> = events[i + 1..end]
                    .iter()
                    .map(|e| rewrite_link(e.clone(), chapter, mode))
                    .collect();
                let html = super::table::table_html(alignments, &inner);
                out.push(Event::Html(CowStr::from(html)));
                r.names.file = None;
                i = end + 1;
            }
            e => {
                if let Event::Start(Tag::Paragraph) = e {
                    r.names.file = lone_code(&events[i + 1..]);
                } else if matches!(e, Event::Start(_)) && !matches!(e, Event::Start(Tag::Paragraph))
                {
                    r.names.file = None;
                }
                out.push(rewrite_link(e.clone(), chapter, mode));
                i += 1;
            }
        }
    }
    // Room for the page up front: growing a page of several hundred KiB by
    // doubling copied it again and again. Highlighted code makes the HTML
    // about twice the Markdown.
    let mut body = String::with_capacity(markdown.len() * 2);
    html::push_html(&mut body, out.into_iter());
    RenderedMarkdown {
        html: body,
        headings: r.headings,
        beside: Vec::new(),
    }
}

/// What one chapter's render keeps between headings.
struct ChapterRender<'a> {
    chapter: &'a Path,
    mode: &'a LinkMode,
    /// The chapter's id prefix in the single file.
    prefix: Option<String>,
    ids: UniqueIds,
    headings: Vec<Heading>,
    names: CopyNames,
}

/// What the next Copy button copies, from the headings and paragraphs above it.
#[derive(Debug, Default)]
struct CopyNames {
    /// The process heading above (`Prefill worker`), inside a command set.
    process: Option<String>,
    /// The last other heading's text.
    section: Option<String>,
    /// A file name given alone in the paragraph just before (`nats.conf`).
    file: Option<String>,
}

/// A Copy button's accessible name. (Its description, the command set's
/// heading, is added by agentx.js: a Copy button needs JavaScript anyway, and
/// the set's id on every button cost 9 KB of the largest real page's 25.5 KB
/// gzip.)
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct CopyName {
    label: String,
}

impl CopyNames {
    fn for_code_block(&mut self) -> CopyName {
        let what = self.file.take().or_else(|| self.process.clone());
        let label = match (what, &self.section) {
            (Some(w), _) => format!("Copy {w}"),
            (None, Some(s)) => format!("Copy code: {s}"),
            (None, None) => "Copy code".to_string(),
        };
        CopyName { label }
    }

    fn heading(&mut self, kind: HeadingKind, text: &str) {
        self.file = None;
        match kind {
            HeadingKind::Process => self.process = Some(process_name(text)),
            HeadingKind::Set | HeadingKind::Plain => {
                self.process = None;
                self.section = Some(text.to_string());
            }
        }
    }
}

/// `7 · Prefill worker` → `Prefill worker`; `etcd — Dynamo control plane`
/// → `etcd`: the name of a process heading as render writes it, without its
/// number and description.
fn process_name(text: &str) -> String {
    let t = text.trim();
    let t = match t.split_once(" · ") {
        Some((n, rest)) if n.chars().all(|c| c.is_ascii_digit()) => rest,
        _ => t,
    };
    t.split(" — ").next().unwrap_or(t).trim().to_string()
}

/// The text of a paragraph made of one code span (`` `nats.conf` ``), given
/// the events after its start.
fn lone_code(after: &[Event<'_>]) -> Option<String> {
    match after {
        [Event::Code(t), Event::End(TagEnd::Paragraph), ..] => Some(t.to_string()),
        _ => None,
    }
}

/// A heading's start tag, as the parser gives it.
struct HeadingTag<'e> {
    level: HeadingLevel,
    /// An explicit `{#id}`.
    id: Option<&'e str>,
    classes: &'e [CowStr<'e>],
}

impl ChapterRender<'_> {
    /// A heading with its (unique) id, a self-link, and on command-set
    /// headings a Copy link button; `inner` is what it holds.
    fn heading<'e>(&mut self, tag: &HeadingTag<'_>, inner: &[Event<'e>]) -> Event<'e> {
        let inner: Vec<Event<'_>> = inner
            .iter()
            .cloned()
            .map(|e| rewrite_link(e, self.chapter, self.mode))
            .collect();
        let text = plain_text(&inner);
        let base = tag
            .id
            .map(str::to_string)
            .unwrap_or_else(|| normalize_id(&text));
        let id = self.ids.unique(&base);
        let has = |class: &str| tag.classes.iter().any(|c| c.as_ref() == class);
        let kind = if has(SET_CLASS) {
            HeadingKind::Set
        } else if has(PROCESS_CLASS) {
            HeadingKind::Process
        } else {
            HeadingKind::Plain
        };
        let full_id = match &self.prefix {
            Some(p) => format!("{p}--{id}"),
            None => id,
        };
        let mut inner_html = String::new();
        html::push_html(&mut inner_html, inner.into_iter());
        let lvl = heading_number(tag.level);
        let id_attr = escape_html(&full_id);
        // Pushed piece by piece: `format!` cost more than the text it wrote.
        let mut h =
            String::with_capacity(2 * id_attr.len() + inner_html.len() + 2 * text.len() + 240);
        h.push_str("<h");
        h.push(char::from(b'0' + lvl));
        h.push_str(" id=\"");
        h.push_str(&id_attr);
        h.push('"');
        if !tag.classes.is_empty() {
            h.push_str(" class=\"");
            for (i, c) in tag.classes.iter().enumerate() {
                if i > 0 {
                    h.push(' ');
                }
                html_into(&mut h, c);
            }
            h.push('"');
        }
        // A command set's and a process's heading link to themselves no
        // more, and a set's Copy link button (which needs JavaScript) is
        // added by agentx.js: on the largest real pages, the 60 sets' self-
        // links and buttons were 2-3 KB of the gzipped page (issue 26: at
        // most 25 KB). Other headings keep their self-link.
        if kind == HeadingKind::Plain {
            h.push_str("><a class=\"header\" href=\"#");
            h.push_str(&id_attr);
            h.push_str("\">");
            h.push_str(&inner_html);
            h.push_str("</a></h");
        } else {
            h.push('>');
            h.push_str(&inner_html);
            h.push_str("</h");
        }
        h.push(char::from(b'0' + lvl));
        h.push_str(">\n");
        self.names.heading(kind, &text);
        self.headings.push(Heading {
            level: lvl,
            id: full_id,
            text,
            kind,
        });
        Event::Html(CowStr::from(h))
    }
}

/// A code block, highlighted, with its Copy button named `name`; `inner` is its text.
fn code_block<'e>(kind: &CodeBlockKind<'_>, inner: &[Event<'_>], name: &CopyName) -> Event<'e> {
    let mut code = String::new();
    for e in inner {
        if let Event::Text(t) = e {
            code.push_str(t);
        }
    }
    let lang = match kind {
        CodeBlockKind::Fenced(info) => info.split([' ', ',', '{']).next().unwrap_or("").to_string(),
        CodeBlockKind::Indented => String::new(),
    };
    Event::Html(CowStr::from(code_block_html(&lang, &code, name)))
}

fn find_end(events: &[Event<'_>], start: usize, is_end: impl Fn(&Event<'_>) -> bool) -> usize {
    events[start..]
        .iter()
        .position(is_end)
        .map(|p| start + p)
        .unwrap_or(events.len() - 1)
}

fn heading_number(level: HeadingLevel) -> u8 {
    level as u8
}

/// A code block with a Copy button whose accessible name says what it
/// copies ("Copy Prefill worker"; the visible text stays "Copy").
fn code_block_html(lang: &str, code: &str, name: &CopyName) -> String {
    let label = if name.label.is_empty() {
        "Copy code"
    } else {
        &name.label
    };
    let highlighted = highlight(lang, code);
    // Written piece by piece into one buffer of the right size: `format!`
    // grew it by doubling and copied the (long) highlighted code each time.
    let mut h = String::with_capacity(highlighted.len() + label.len() + lang.len() + 200);
    h.push_str(
        "<div class=\"codeblock\"><button type=\"button\" class=\"copy-code\" aria-label=\"",
    );
    html_into(&mut h, label);
    h.push_str("\">Copy</button><pre><code");
    if !lang.is_empty() {
        push_attribute(&mut h, "class", "language-", lang);
    }
    h.push('>');
    h.push_str(&highlighted);
    h.push_str("</code></pre></div>\n");
    h
}

/// ` name="<prefix><value>"` onto `h`, the value escaped (the prefix is
/// this module's own text).
fn push_attribute(h: &mut String, name: &str, prefix: &str, value: &str) {
    for piece in [" ", name, "=\"", prefix] {
        h.push_str(piece);
    }
    html_into(h, value);
    h.push('"');
}

fn plain_text(events: &[Event<'_>]) -> String {
    let mut s = String::new();
    for e in events {
        match e {
            Event::Text(t) | Event::Code(t) => s.push_str(t),
            Event::SoftBreak | Event::HardBreak => s.push(' '),
            _ => {}
        }
    }
    s
}

/// mdBook's rule: alphanumerics, `_` and `-` kept (lower-cased), whitespace to `-`.
pub(crate) fn normalize_id(text: &str) -> String {
    text.trim()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_lowercase().collect::<String>())
            } else if c.is_whitespace() {
                Some("-".into())
            } else {
                None
            }
        })
        .collect()
}

fn is_external(url: &str) -> bool {
    url.contains("://") || url.starts_with("mailto:") || url.starts_with("//")
}

fn rewrite_link<'a>(e: Event<'a>, chapter: &Path, mode: &LinkMode) -> Event<'a> {
    match e {
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: CowStr::from(rewrite_url(&dest_url, chapter, mode)),
            title,
            id,
        }),
        other => other,
    }
}

/// Internal link targets, for pages or for the single file.
pub(crate) fn rewrite_url(url: &str, chapter: &Path, mode: &LinkMode) -> String {
    if is_external(url) || url.starts_with('/') {
        return url.to_string();
    }
    let (path, frag) = match url.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (url, None),
    };
    match mode {
        LinkMode::Pages => {
            let path = match path.strip_suffix(".md") {
                Some(stem) => format!("{stem}.html"),
                None => path.to_string(),
            };
            match frag {
                Some(f) => format!("{path}#{f}"),
                None => path,
            }
        }
        LinkMode::SingleFile { prefixes } => {
            let target = if path.is_empty() {
                chapter.to_path_buf()
            } else {
                normalize(&chapter.parent().unwrap_or(Path::new("")).join(path))
            };
            match prefixes.get(&target) {
                Some(p) => match frag {
                    Some(f) => format!("#{p}--{f}"),
                    None => format!("#{p}"),
                },
                None => url.to_string(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_mdbook() {
        assert_eq!(normalize_id("Hello, World! 2"), "hello-world-2");
        assert_eq!(normalize_id("c1 / c4 · SGLang"), "c1--c4--sglang");
        assert_eq!(normalize_id("Ünïcode"), "ünïcode");
    }

    #[test]
    fn headings_links_and_code() {
        let md = "# Title\n\n## Sub\n\n## Sub\n\n### c4 · SGLang {#set-a .agentx-set}\n\n[x](other.md#a) [y](../b.md) [z](https://e.com/a.md)\n\n```bash\necho \"$X\" <y>\n```\n";
        let r = render(
            md,
            Path::new("models/m.md"),
            &LinkMode::Pages,
            MarkdownConfig::default(),
        );
        let ids: Vec<&str> = r.headings.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids, ["title", "sub", "sub-1", "set-a"]);
        assert_eq!(r.headings[3].kind, HeadingKind::Set);
        // A set's heading has no self-link; its Copy link comes from agentx.js.
        assert!(
            r.html
                .contains("<h3 id=\"set-a\" class=\"agentx-set\">c4 · SGLang</h3>\n<p>"),
            "{}",
            r.html
        );
        assert!(
            r.html
                .contains("<h2 id=\"sub\"><a class=\"header\" href=\"#sub\">Sub</a></h2>")
        );
        assert!(r.html.contains("href=\"other.html#a\""));
        assert!(r.html.contains("href=\"../b.html\""));
        assert!(r.html.contains("href=\"https://e.com/a.md\""));
        assert!(
            r.html
                .contains("<div class=\"codeblock\"><button type=\"button\" class=\"copy-code\"")
        );
        assert!(r.html.contains("<code class=\"language-bash\">"));
        assert!(!r.html.contains("<y>"));
    }

    /// (heading text, the name its Copy buttons get)
    const PROCESS_NAMES: &[(&str, &str)] = &[
        ("7 · Prefill worker", "Prefill worker"),
        ("1 · etcd — Dynamo control plane", "etcd"),
        ("Env Vars — set first", "Env Vars"),
        ("12 · Décodeur ×2 — nœud", "Décodeur ×2"),
        ("v2 · not a number", "v2 · not a number"),
    ];

    #[test]
    fn process_names() {
        for (text, name) in PROCESS_NAMES {
            assert_eq!(process_name(text), *name, "{text}");
        }
    }

    #[test]
    fn copy_buttons_say_what_they_copy() {
        let md = "# Page\n\n```sh\nplain\n```\n\n## Setup\n\n```sh\nx\n```\n\n\
                  ### c4 · SGLang {#set-a .agentx-set}\n\n\
                  #### 1 · Prefill worker — the first {#set-a-process-1 .agentx-process}\n\n\
                  Start it on `$HEAD_IP`.\n\n```bash\nrun\n```\n\n`nats.conf`\n\n```text\nconf\n```\n\n\
                  Notes.\n\n```text\nmore\n```\n\n## After\n\n```sh\ny\n```\n";
        let r = render(
            md,
            Path::new("m.md"),
            &LinkMode::Pages,
            MarkdownConfig::default(),
        );
        let names: Vec<&str> = r
            .html
            .split("aria-label=\"")
            .skip(1)
            .map(|s| &s[..s.find('"').unwrap()])
            .collect();
        assert_eq!(
            names,
            [
                "Copy code: Page",
                "Copy code: Setup",
                "Copy Prefill worker",
                "Copy nats.conf",
                "Copy Prefill worker",
                "Copy code: After",
            ]
        );
        // The set's heading describes them once agentx.js runs (60-start.js).
        assert!(!r.html.contains("aria-describedby"));
        let kinds: Vec<HeadingKind> = r.headings.iter().map(|h| h.kind).collect();
        use HeadingKind::*;
        assert_eq!(kinds, [Plain, Plain, Set, Process, Plain]);
        assert!(
            r.html
                .contains("<h4 id=\"set-a-process-1\" class=\"agentx-process\">")
        );
    }

    #[test]
    fn single_file_prefixes() {
        let mut prefixes = HashMap::new();
        prefixes.insert(PathBuf::from("models/m.md"), "c-m".to_string());
        prefixes.insert(PathBuf::from("intro.md"), "c-intro".to_string());
        let mode = LinkMode::SingleFile { prefixes };
        let r = render(
            "## A\n\n[i](../intro.md#x) [s](#a) [n](missing.md)\n",
            Path::new("models/m.md"),
            &mode,
            MarkdownConfig::default(),
        );
        assert_eq!(r.headings[0].id, "c-m--a");
        assert!(r.html.contains("href=\"#c-intro--x\""), "{}", r.html);
        assert!(r.html.contains("href=\"#c-m--a\""), "{}", r.html);
        assert!(r.html.contains("href=\"missing.md\""), "{}", r.html);
    }
}
