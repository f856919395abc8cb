//! What in a page could run or load something, read by the WHATWG parser
//! (html5ever) as a browser reads it: script elements, `on*` attributes,
//! `javascript:`/`vbscript:`/`data:` URLs, and elements that embed, load or
//! submit. Written here, independently of the library's own HTML reading,
//! so the test does not trust the code it checks.

use std::borrow::Cow;
use std::cell::{Ref, RefCell};
use std::collections::BTreeMap;

use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{Attribute, QualName, local_name, ns, parse_document};

/// Elements that embed, load, submit or style something.
const ACTIVE: &[&str] = &[
    "applet", "audio", "base", "embed", "form", "frame", "frameset", "iframe", "image", "img",
    "input", "link", "math", "meta", "noscript", "object", "portal", "select", "source", "style",
    "svg", "template", "textarea", "video",
];

/// Attributes that hold a URL a browser follows, loads or submits to.
const URL_ATTRIBUTES: &[&str] = &[
    "action",
    "background",
    "cite",
    "data",
    "formaction",
    "href",
    "lowsrc",
    "ping",
    "poster",
    "src",
    "srcset",
    "xlink:href",
];

/// The signatures of a page and how often each occurs: `script src=…`,
/// `script inline`, `on <tag> <attribute>`, `url <tag> <attribute> <value>`
/// for script-capable and data URLs, `element <tag>`.
pub(crate) fn signatures(html: &str) -> BTreeMap<String, usize> {
    let sink = parse_document(Sink::default(), Default::default()).one(StrTendril::from(html));
    let mut out = BTreeMap::new();
    for (name, attrs) in sink.elements.into_inner() {
        let mut add = |s: String| *out.entry(s).or_insert(0) += 1;
        if name == "script" {
            let src = attrs
                .iter()
                .find(|(n, _)| n == "src" || n.ends_with("href"));
            add(match src {
                Some((_, v)) => format!("script src={v}"),
                None => "script inline".into(),
            });
        }
        if ACTIVE.contains(&name.as_str()) {
            add(format!("element {name}"));
        }
        for (attr, value) in &attrs {
            if attr.to_ascii_lowercase().starts_with("on") {
                add(format!("on {name} {attr}"));
            }
            let url = browser_url(value);
            let scripted = ["javascript:", "vbscript:", "data:"]
                .iter()
                .any(|s| url.starts_with(s));
            if URL_ATTRIBUTES.contains(&attr.as_str()) && scripted {
                add(format!("url {name} {attr} {value}"));
            }
        }
    }
    out
}

/// A URL as a browser reads its scheme: surrounding spaces and control
/// characters dropped, tabs and line breaks removed, lower case.
fn browser_url(value: &str) -> String {
    value
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect::<String>()
        .to_ascii_lowercase()
}

/// An element's attributes as `(name, value)`.
type Attributes = Vec<(String, String)>;

/// Records element names and attributes; handles index `names`.
struct Sink {
    names: RefCell<Vec<QualName>>,
    elements: RefCell<Vec<(String, Attributes)>>,
}

impl Default for Sink {
    fn default() -> Self {
        Sink {
            names: RefCell::new(vec![QualName::new(None, ns!(), local_name!(""))]),
            elements: RefCell::new(Vec::new()),
        }
    }
}

impl Sink {
    fn node(&self, name: QualName) -> usize {
        let mut names = self.names.borrow_mut();
        names.push(name);
        names.len() - 1
    }
}

impl TreeSink for Sink {
    type Handle = usize;
    type Output = Self;
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> Self {
        self
    }
    fn parse_error(&self, _msg: Cow<'static, str>) {}
    fn get_document(&self) -> usize {
        0
    }
    fn elem_name<'a>(&'a self, target: &'a usize) -> Ref<'a, QualName> {
        Ref::map(self.names.borrow(), |n| &n[*target])
    }
    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, _: ElementFlags) -> usize {
        let attrs = attrs
            .iter()
            .map(|a| {
                let n = match &a.name.prefix {
                    Some(p) => format!("{p}:{}", a.name.local),
                    None => a.name.local.to_string(),
                };
                (n, a.value.to_string())
            })
            .collect();
        self.elements
            .borrow_mut()
            .push((name.local.to_string(), attrs));
        self.node(name)
    }
    fn create_comment(&self, _: StrTendril) -> usize {
        self.node(QualName::new(None, ns!(), local_name!("")))
    }
    fn create_pi(&self, _: StrTendril, _: StrTendril) -> usize {
        self.node(QualName::new(None, ns!(), local_name!("")))
    }
    fn append(&self, _: &usize, _: NodeOrText<usize>) {}
    fn append_based_on_parent_node(&self, _: &usize, _: &usize, _: NodeOrText<usize>) {}
    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {}
    fn get_template_contents(&self, target: &usize) -> usize {
        *target
    }
    fn same_node(&self, x: &usize, y: &usize) -> bool {
        x == y
    }
    fn set_quirks_mode(&self, _: QuirksMode) {}
    fn append_before_sibling(&self, _: &usize, _: NodeOrText<usize>) {}
    fn add_attrs_if_missing(&self, _: &usize, _: Vec<Attribute>) {}
    fn remove_from_parent(&self, _: &usize) {}
    fn reparent_children(&self, _: &usize, _: &usize) {}
}

/// The checker itself: each injected form is seen.
#[test]
fn signatures_see_injected_markup() {
    let table: &[(&str, &str)] = &[
        ("<SCRIPT>x</SCRIPT>", "script inline"),
        ("<img src=x OnError=y>", "on img onerror"),
        (
            "<a href=' JaVa\tScRiPt:x'>a</a>",
            "url a href  JaVa\tScRiPt:x",
        ),
        (
            "<iframe src=\"data:text/html,x\"></iframe>",
            "element iframe",
        ),
        (
            "<svg><a xlink:href=javascript:x>a</a></svg>",
            "url a xlink:href javascript:x",
        ),
        ("<p>&lt;script&gt;</p>", ""),
    ];
    for (html, want) in table {
        let sig = signatures(html);
        if want.is_empty() {
            assert!(
                sig.keys()
                    .all(|k| k.starts_with("element ") && !k.contains("script")),
                "{sig:?}"
            );
        } else {
            assert!(sig.contains_key(*want), "{html}: {sig:?}");
        }
    }
}
