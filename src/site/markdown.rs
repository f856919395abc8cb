//! Markdown → HTML for one chapter: heading ids (explicit `{#id}` or derived
//! like mdBook's), `.md` links rewritten to pages, highlighted code blocks with
//! a Copy button, and a Copy link button on every command-set heading.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use pulldown_cmark::{CodeBlockKind, CowStr, Event, HeadingLevel, Tag, TagEnd, html};

use super::highlight::{escape_html, highlight};
use crate::util::fs::normalize;
use crate::util::markdown::MarkdownConfig;

/// Class the renderer puts on command-set headings (`{#id .agentx-set}`).
pub(crate) const SET_CLASS: &str = "agentx-set";

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
    /// A command-set heading.
    pub is_set: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct RenderedMarkdown {
    pub html: String,
    pub headings: Vec<Heading>,
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
        used_ids: HashSet::new(),
        headings: Vec::new(),
    };
    let events: Vec<Event<'_>> = options.parser(markdown).collect();
    let mut out: Vec<Event<'_>> = Vec::new();
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
                out.push(code_block(kind, &events[i + 1..end]));
                i = end + 1;
            }
            e => {
                out.push(rewrite_link(e.clone(), chapter, mode));
                i += 1;
            }
        }
    }
    let mut body = String::new();
    html::push_html(&mut body, out.into_iter());
    RenderedMarkdown {
        html: body,
        headings: r.headings,
    }
}

/// What one chapter's render keeps between headings.
struct ChapterRender<'a> {
    chapter: &'a Path,
    mode: &'a LinkMode,
    /// The chapter's id prefix in the single file.
    prefix: Option<String>,
    used_ids: HashSet<String>,
    headings: Vec<Heading>,
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
        let id = unique_id(&base, &mut self.used_ids);
        let is_set = tag.classes.iter().any(|c| c.as_ref() == SET_CLASS);
        let full_id = match &self.prefix {
            Some(p) => format!("{p}--{id}"),
            None => id,
        };
        let mut inner_html = String::new();
        html::push_html(&mut inner_html, inner.into_iter());
        let lvl = heading_number(tag.level);
        let class_attr = if tag.classes.is_empty() {
            String::new()
        } else {
            let c: Vec<&str> = tag.classes.iter().map(|c| c.as_ref()).collect();
            format!(" class=\"{}\"", escape_html(&c.join(" ")))
        };
        let mut h = format!(
            "<h{lvl} id=\"{}\"{class_attr}><a class=\"header\" href=\"#{}\">{inner_html}</a>",
            escape_html(&full_id),
            escape_html(&full_id)
        );
        if is_set {
            h.push_str(&format!(
                " <button type=\"button\" class=\"copy-link\" data-anchor=\"{}\" title=\"Copy a link to this command set\">Copy link</button>",
                escape_html(&full_id)
            ));
        }
        h.push_str(&format!("</h{lvl}>\n"));
        self.headings.push(Heading {
            level: lvl,
            id: full_id,
            text,
            is_set,
        });
        Event::Html(CowStr::from(h))
    }
}

/// A code block, highlighted, with its Copy button; `inner` is its text.
fn code_block<'e>(kind: &CodeBlockKind<'_>, inner: &[Event<'_>]) -> Event<'e> {
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
    Event::Html(CowStr::from(code_block_html(&lang, &code)))
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

/// A code block with its Copy button. The button copies the block's text.
pub(crate) fn code_block_html(lang: &str, code: &str) -> String {
    let class = if lang.is_empty() {
        String::new()
    } else {
        format!(" class=\"language-{}\"", escape_html(lang))
    };
    format!(
        "<div class=\"codeblock\"><button type=\"button\" class=\"copy-code\" title=\"Copy to clipboard\">Copy</button><pre><code{class}>{}</code></pre></div>\n",
        highlight(lang, code)
    )
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

fn unique_id(base: &str, used: &mut HashSet<String>) -> String {
    let base = if base.is_empty() { "section" } else { base };
    if used.insert(base.to_string()) {
        return base.to_string();
    }
    let mut n = 1;
    loop {
        let candidate = format!("{base}-{n}");
        if used.insert(candidate.clone()) {
            return candidate;
        }
        n += 1;
    }
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
        assert!(r.headings[3].is_set);
        assert!(r.html.contains("<h3 id=\"set-a\" class=\"agentx-set\"><a class=\"header\" href=\"#set-a\">c4 · SGLang</a> <button type=\"button\" class=\"copy-link\" data-anchor=\"set-a\""), "{}", r.html);
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
