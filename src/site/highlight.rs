//! Syntax highlighting with syntect: class-based spans (so one generated CSS
//! file serves light and dark schemes) and caches so each distinct block is
//! highlighted once per process — derived command sets repeat many blocks —
//! and each distinct line once per parser state on each thread ([`lines`]).

use std::cell::RefCell;
use std::sync::{Arc, Mutex, OnceLock};

use std::str::FromStr;

use syntect::highlighting::{Highlighter, ScopeSelectors, Style, Theme, ThemeSet};
use syntect::parsing::{
    ParseState, Scope, ScopeStack, SyntaxDefinition, SyntaxReference, SyntaxSet,
};
use syntect::util::LinesWithEndings;

use crate::util::hash::FastMap;

mod lines;
use lines::{ParserAt, line_tokens};

/// Token classes: a scope selector, the short class it becomes, and a scope
/// whose colour in each bundled theme gives the class its colour.
///
/// Why not syntect's `ClassedHTMLGenerator`: it writes every scope atom as a
/// class on nested spans (`hl-variable hl-other hl-readwrite …`), which made
/// the command pages four times larger than their text. One short class per
/// token keeps the markup light and still lets a stylesheet theme it.
const TOKEN_CLASSES: [(&str, &str, &str); 10] = [
    ("comment", "cm", "comment.line"),
    ("string", "st", "string.quoted.double"),
    ("constant.numeric", "nu", "constant.numeric"),
    (
        "constant.language, constant.character, constant.other",
        "co",
        "constant.language",
    ),
    ("keyword, storage", "kw", "keyword.control"),
    ("variable.parameter", "pa", "variable.parameter"),
    (
        "variable, support.variable, punctuation.definition.variable",
        "va",
        "variable.other",
    ),
    (
        "entity.name.function, support.function, variable.function, meta.function-call.identifier",
        "fn",
        "entity.name.function",
    ),
    (
        "entity.name, entity.other.attribute-name, support.type.property-name",
        "tg",
        "entity.name.tag",
    ),
    (
        "support.type, support.class, entity.name.type",
        "ty",
        "support.type",
    ),
    // No class for a line's continuation `\`: one span on nearly every
    // line of every command was 6-7 KB gzip of the largest real pages
    // (issue 26: ≤ 25 KB gzip); it reads as plain text.
];

fn selectors() -> &'static [(ScopeSelectors, &'static str)] {
    static SEL: OnceLock<Vec<(ScopeSelectors, &'static str)>> = OnceLock::new();
    SEL.get_or_init(|| {
        TOKEN_CLASSES
            .iter()
            .map(|(sel, class, _)| {
                (
                    ScopeSelectors::from_str(sel).expect("valid selector"),
                    *class,
                )
            })
            .collect()
    })
}

/// The token class for a scope stack: the best-matching selector, as a theme would pick.
fn class_for(stack: &[Scope]) -> Option<&'static str> {
    selectors()
        .iter()
        .filter_map(|(sel, class)| sel.does_match(stack).map(|p| (p, *class)))
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, c)| c)
}

/// [`class_for`], remembered per thread. Why: matching the selectors for
/// every token was the largest single cost of a build (12% of a sample-book
/// build), while a grammar yields only a few hundred distinct scope stacks.
fn class_for_cached(stack: &[Scope]) -> Option<&'static str> {
    thread_local! {
        static CLASSES: RefCell<FastMap<Vec<Scope>, Option<&'static str>>> =
            RefCell::new(FastMap::default());
    }
    CLASSES.with(|c| {
        if let Some(class) = c.borrow().get(stack) {
            return *class;
        }
        let class = class_for(stack);
        let mut c = c.borrow_mut();
        // Bounded like the other caches, though grammars stay far below it.
        if c.len() >= 10_000 {
            c.clear();
        }
        c.insert(stack.to_vec(), class);
        class
    })
}
const TOML_SYNTAX: &str = include_str!("syntaxes/TOML.sublime-syntax");
const LIGHT_THEME: &str = "InspiredGitHub";
const DARK_THEME: &str = "base16-ocean.dark";

/// syntect's default syntaxes, loaded on first use.
fn defaults() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// TOML lives in its own small set: adding it to the defaults would mean
/// re-linking every bundled grammar at start-up.
fn toml_set() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(|| {
        let mut b = SyntaxSet::new().into_builder();
        b.add(
            SyntaxDefinition::load_from_str(TOML_SYNTAX, true, Some("TOML"))
                .expect("the bundled TOML grammar parses"),
        );
        b.build()
    })
}

/// The syntax set and grammar for a fence language, if one is known.
fn syntax_for(lang: &str) -> Option<(&'static SyntaxSet, &'static SyntaxReference)> {
    let lang = lang.trim().to_ascii_lowercase();
    let token = match lang.as_str() {
        "" | "text" | "plain" | "plaintext" | "console" | "output" => return None,
        "sh" | "shell" | "zsh" | "bash" => "bash",
        "yml" => "yaml",
        "py" => "python",
        "rs" => "rust",
        "js" | "javascript" | "jsx" => "js",
        "md" => "markdown",
        other => other,
    };
    if token == "toml" {
        let set = toml_set();
        return set.find_syntax_by_token("toml").map(|s| (set, s));
    }
    let set = defaults();
    set.find_syntax_by_token(token).map(|s| (set, s))
}

/// Bounds of the highlight caches (entries); reaching one empties the cache.
/// A sample-book build highlights about 600 distinct blocks (2.7 MB with
/// their HTML); 5,000 blocks hold about 24 MB. Repeats come mostly from
/// within one page (a cell's concurrency points and routers), so a larger
/// cache only cost memory: at 50,000 a 100× book peaked 30 MB higher.
const MAX_CACHED_BLOCKS: usize = 5_000;

/// Text keyed by an outer name (language, grammar) and the text itself, so
/// a lookup borrows both keys instead of copying a block to ask for it.
#[derive(Debug)]
struct TwoLevelCache<V> {
    by_name: FastMap<String, FastMap<Box<str>, V>>,
    len: usize,
    max: usize,
}

impl<V> TwoLevelCache<V> {
    fn new(max: usize) -> Self {
        Self {
            by_name: FastMap::default(),
            len: 0,
            max,
        }
    }

    fn get(&self, name: &str, text: &str) -> Option<&V> {
        self.by_name.get(name)?.get(text)
    }

    fn get_mut(&mut self, name: &str, text: &str) -> Option<&mut V> {
        self.by_name.get_mut(name)?.get_mut(text)
    }

    /// Inserts; past the bound the cache starts over (`serve` runs for
    /// hours and every edit adds entries).
    fn insert(&mut self, name: &str, text: &str, value: V) {
        if self.len >= self.max {
            self.by_name.clear();
            self.len = 0;
        }
        let texts = match self.by_name.get_mut(name) {
            Some(texts) => texts,
            None => self.by_name.entry(name.to_string()).or_default(),
        };
        if texts.insert(text.into(), value).is_none() {
            self.len += 1;
        }
    }
}

/// Highlights code into HTML spans; unknown languages are escaped only.
pub(crate) fn highlight(lang: &str, code: &str) -> Arc<str> {
    static CACHE: OnceLock<Mutex<TwoLevelCache<Arc<str>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(TwoLevelCache::new(MAX_CACHED_BLOCKS)));
    if let Some(hit) = cache.lock().expect("cache lock").get(lang, code) {
        return hit.clone();
    }
    let html: Arc<str> = highlight_uncached(lang, code).into();
    cache
        .lock()
        .expect("cache lock")
        .insert(lang, code, html.clone());
    html
}

fn highlight_uncached(lang: &str, code: &str) -> String {
    let Some((set, syntax)) = syntax_for(lang) else {
        return escape_html(code);
    };
    let mut at = ParserAt {
        state: ParseState::new(syntax),
        stack: ScopeStack::new(),
    };
    let mut out = String::with_capacity(code.len() * 2);
    // Adjacent text with the same class shares one span.
    let mut pending = String::new();
    let mut pending_class: Option<&'static str> = None;
    let flush = |out: &mut String, text: &mut String, class: Option<&'static str>| {
        if text.is_empty() {
            return;
        }
        match class {
            Some(c) => {
                out.push_str("<span class=\"hl-");
                out.push_str(c);
                out.push_str("\">");
                crate::util::escape::html_into(out, text);
                out.push_str("</span>");
            }
            None => crate::util::escape::html_into(out, text),
        }
        text.clear();
    };
    for line in LinesWithEndings::from(code) {
        let mut on_piece = |piece: &str, class: Option<&'static str>| {
            if class != pending_class {
                flush(&mut out, &mut pending, pending_class);
                pending_class = class;
            }
            pending.push_str(piece);
        };
        let parsed = line_tokens(&mut at, line, set, &syntax.name, &mut on_piece);
        if parsed.is_none() {
            // A grammar failure must not lose the text: fall back to plain.
            return escape_html(code);
        }
    }
    flush(&mut out, &mut pending, pending_class);
    out
}

/// HTML text and attribute values: the escaping module's.
pub(crate) use crate::util::escape::html as escape_html;

/// CSS for the token classes: colours read from a light bundled theme, and
/// from a dark one under `prefers-color-scheme: dark`.
pub(crate) fn theme_css() -> String {
    let themes = ThemeSet::load_defaults();
    let mut css = String::from(
        "/* Generated by mdbook-agentx from syntect's bundled themes, each colour made to reach \
         4.5:1 against the code background (WCAG 2.1 AA). Override with agentx-theme/highlight.css. */\n",
    );
    css.push_str(&format!("/* light: {LIGHT_THEME} */\n"));
    css.push_str(&class_rules(&themes.themes[LIGHT_THEME], "", CODE_BG_LIGHT));
    css.push_str(&format!(
        "/* dark: {DARK_THEME} */\n@media (prefers-color-scheme: dark) {{\n{}}}\n",
        class_rules(&themes.themes[DARK_THEME], "  ", CODE_BG_DARK)
    ));
    css
}

/// The code blocks' background in each scheme (`--code-bg` of
/// `theme/book.css`; a test keeps the two in step): token colours are made
/// readable against it.
pub(crate) const CODE_BG_LIGHT: Rgb = Rgb(0xf6, 0xf8, 0xfa);
pub(crate) const CODE_BG_DARK: Rgb = Rgb(0x2b, 0x30, 0x3b);

/// The contrast every token colour reaches against the code background:
/// WCAG 2.1 AA asks 4.5:1 of text; the margin absorbs rounding to bytes.
const MIN_CONTRAST: f64 = 4.6;

/// A colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// WCAG 2.1 relative luminance.
    fn luminance(self) -> f64 {
        let lin = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.03928 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(self.0) + 0.7152 * lin(self.1) + 0.0722 * lin(self.2)
    }

    /// WCAG 2.1 contrast ratio of two colours (1 to 21).
    pub(crate) fn contrast(self, other: Rgb) -> f64 {
        let (a, b) = (self.luminance(), other.luminance());
        (a.max(b) + 0.05) / (a.min(b) + 0.05)
    }

    /// This colour moved toward black (on a light background) or white (on
    /// a dark one) just far enough to reach [`MIN_CONTRAST`] against `bg`:
    /// the theme's hue is kept, only its lightness changes.
    fn readable_on(self, bg: Rgb) -> Rgb {
        let target = if bg.luminance() > 0.18 { 0.0 } else { 255.0 };
        let mut c = self;
        let mut step = 0;
        while c.contrast(bg) < MIN_CONTRAST && step < 100 {
            step += 1;
            let k = f64::from(step) / 100.0;
            let m = |v: u8| (f64::from(v) + (target - f64::from(v)) * k).round() as u8;
            c = Rgb(m(self.0), m(self.1), m(self.2));
        }
        c
    }

    fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

fn class_rules(theme: &Theme, indent: &str, bg: Rgb) -> String {
    let h = Highlighter::new(theme);
    let mut css = String::new();
    for (_, class, scope) in TOKEN_CLASSES {
        let stack: Vec<Scope> = scope
            .split(' ')
            .map(|s| Scope::new(s).expect("valid scope"))
            .collect();
        let style: Style = h.style_for_stack(&stack);
        let c = style.foreground;
        let color = Rgb(c.r, c.g, c.b).readable_on(bg);
        let mut rule = format!("color: {};", color.hex());
        if style
            .font_style
            .contains(syntect::highlighting::FontStyle::ITALIC)
        {
            rule.push_str(" font-style: italic;");
        }
        if style
            .font_style
            .contains(syntect::highlighting::FontStyle::BOLD)
        {
            rule.push_str(" font-weight: bold;");
        }
        css.push_str(&format!("{indent}.hl-{class} {{ {rule} }}\n"));
    }
    css
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_languages_are_known() {
        for lang in [
            "bash", "sh", "json", "toml", "yaml", "python", "rust", "markdown",
        ] {
            assert!(syntax_for(lang).is_some(), "{lang}");
        }
        assert!(syntax_for("text").is_none());
        assert!(syntax_for("nginx-unknown").is_none());
    }

    #[test]
    fn highlighting_keeps_the_text() {
        let code = "ETCD=\"http://$ETCD_IP:2379\" \\\npython3 -m x \\\n  --a '<b>' \\\n  --c 1\n";
        let html = highlight("bash", code);
        assert!(html.contains("<span class=\"hl-"), "{html}");
        let text = strip_tags(&html);
        assert_eq!(text, escape_html(code));
        let toml = highlight("toml", "[book]\ntitle = \"x\" # c\nn = 3\n");
        assert!(toml.contains("<span class=\"hl-tg\">book</span>"), "{toml}");
        assert!(toml.contains("<span class=\"hl-cm\"># c</span>"), "{toml}");
        assert_eq!(
            &*highlight("bash", "A=1 \\\n  --port \"$X\"\n"),
            "<span class=\"hl-va\">A</span><span class=\"hl-kw\">=</span><span class=\"hl-st\">1</span> \\\n  <span class=\"hl-fn\">--port</span> <span class=\"hl-st\">&quot;</span><span class=\"hl-va\">$X</span><span class=\"hl-st\">&quot;</span>\n"
        );
        assert_eq!(&*highlight("text", "<a>"), "&lt;a&gt;");
    }

    fn strip_tags(html: &str) -> String {
        let mut out = String::new();
        let mut in_tag = false;
        for c in html.chars() {
            match c {
                '<' => in_tag = true,
                '>' if in_tag => in_tag = false,
                c if !in_tag => out.push(c),
                _ => {}
            }
        }
        out
    }

    /// Every token colour reaches 4.5:1 against the code background of its
    /// scheme, and that background is the stylesheet's `--code-bg`.
    #[test]
    fn token_colours_are_readable_in_both_schemes() {
        let css = theme_css();
        let (light, dark) = css.split_once("@media").unwrap();
        for (part, bg) in [(light, CODE_BG_LIGHT), (dark, CODE_BG_DARK)] {
            let mut n = 0;
            for (i, _) in part.match_indices("color: #") {
                let hex = &part[i + 8..i + 14];
                let v = |k: usize| u8::from_str_radix(&hex[k..k + 2], 16).unwrap();
                let ratio = Rgb(v(0), v(2), v(4)).contrast(bg);
                assert!(ratio >= 4.5, "#{hex} on {} is {ratio:.2}:1", bg.hex());
                n += 1;
            }
            assert_eq!(n, TOKEN_CLASSES.len());
        }
        let book_css = include_str!("../../assets/builder/book.css");
        let (light_vars, dark_vars) = book_css.split_once("prefers-color-scheme: dark").unwrap();
        assert!(light_vars.contains(&format!("--code-bg: {};", CODE_BG_LIGHT.hex())));
        assert!(dark_vars.contains(&format!("--code-bg: {};", CODE_BG_DARK.hex())));
        // The colours keep their hue: an already readable one is unchanged.
        assert_eq!(
            Rgb(0x18, 0x36, 0x91).readable_on(CODE_BG_LIGHT),
            Rgb(0x18, 0x36, 0x91)
        );
        assert!((Rgb(0, 0, 0).contrast(Rgb(255, 255, 255)) - 21.0).abs() < 1e-9);
    }

    #[test]
    fn css_has_both_schemes() {
        let css = theme_css();
        assert!(css.contains(".hl-cm { color: #"));
        assert!(css.contains("@media (prefers-color-scheme: dark)"));
    }
}
