//! HTML read as a browser reads it (html5ever, the WHATWG parsing
//! algorithm): the elements with their attributes, entities decoded, names
//! lower-cased, `<image>` already turned into `<img>`, raw-text elements
//! (`<style>`, `<script>`, `<textarea>`) kept whole. No tree is built: the
//! checks that use this look at each element on its own.

use std::borrow::Cow;
use std::cell::{Ref, RefCell};

use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{Attribute, QualName, local_name, ns, parse_document};

/// One element of a parsed document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Element {
    /// Local name, lower case (`img`, `image` for SVG's `<image>`).
    pub name: String,
    /// Whether it is in the SVG namespace.
    pub svg: bool,
    /// Attributes as `(name, value)`; a prefixed one is `xlink:href`.
    pub attrs: Vec<(String, String)>,
    /// Text directly inside it (the CSS of a `<style>`).
    pub text: String,
}

impl Element {
    /// The value of attribute `name`, if set.
    pub(crate) fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Every element of an HTML document, in document order.
pub(crate) fn elements(html: &str) -> Vec<Element> {
    let sink = Sink::default();
    let sink = parse_document(sink, Default::default()).one(StrTendril::from(html));
    sink.nodes
        .into_inner()
        .into_iter()
        .filter_map(|n| n.element)
        .collect()
}

/// A node: its name (elements only need one, but the parser asks for it by
/// handle) and, for elements, what is recorded.
struct Node {
    name: QualName,
    element: Option<Element>,
    /// The node holding a `<template>`'s contents.
    contents: Option<usize>,
}

/// Records nodes in a flat list; handles are indices into it.
struct Sink {
    nodes: RefCell<Vec<Node>>,
}

impl Default for Sink {
    fn default() -> Self {
        Sink {
            nodes: RefCell::new(vec![Sink::other()]),
        }
    }
}

impl Sink {
    fn other() -> Node {
        Node {
            name: QualName::new(None, ns!(), local_name!("")),
            element: None,
            contents: None,
        }
    }

    fn push(&self, node: Node) -> usize {
        let mut nodes = self.nodes.borrow_mut();
        nodes.push(node);
        nodes.len() - 1
    }

    fn append_text(&self, parent: usize, child: NodeOrText<usize>) {
        if let NodeOrText::AppendText(t) = child
            && let Some(e) = self.nodes.borrow_mut()[parent].element.as_mut()
        {
            e.text.push_str(&t);
        }
    }
}

fn attribute_name(a: &Attribute) -> String {
    match &a.name.prefix {
        Some(p) => format!("{p}:{}", a.name.local),
        None => a.name.local.to_string(),
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
        Ref::map(self.nodes.borrow(), |n| &n[*target].name)
    }
    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> usize {
        let contents = flags.template.then(|| self.push(Sink::other()));
        let element = Element {
            name: name.local.to_string(),
            svg: name.ns == ns!(svg),
            attrs: attrs
                .iter()
                .map(|a| (attribute_name(a), a.value.to_string()))
                .collect(),
            text: String::new(),
        };
        self.push(Node {
            name,
            element: Some(element),
            contents,
        })
    }
    fn create_comment(&self, _text: StrTendril) -> usize {
        self.push(Sink::other())
    }
    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> usize {
        self.push(Sink::other())
    }
    fn append(&self, parent: &usize, child: NodeOrText<usize>) {
        self.append_text(*parent, child);
    }
    fn append_based_on_parent_node(
        &self,
        element: &usize,
        _prev_element: &usize,
        child: NodeOrText<usize>,
    ) {
        self.append_text(*element, child);
    }
    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {}
    fn get_template_contents(&self, target: &usize) -> usize {
        self.nodes.borrow()[*target].contents.unwrap_or(*target)
    }
    fn same_node(&self, x: &usize, y: &usize) -> bool {
        x == y
    }
    fn set_quirks_mode(&self, _mode: QuirksMode) {}
    fn append_before_sibling(&self, _sibling: &usize, _new_node: NodeOrText<usize>) {}
    fn add_attrs_if_missing(&self, target: &usize, attrs: Vec<Attribute>) {
        if let Some(e) = self.nodes.borrow_mut()[*target].element.as_mut() {
            for a in &attrs {
                let name = attribute_name(a);
                if e.attr(&name).is_none() {
                    e.attrs.push((name, a.value.to_string()));
                }
            }
        }
    }
    fn remove_from_parent(&self, _target: &usize) {}
    fn reparent_children(&self, _node: &usize, _new_parent: &usize) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_like_a_browser() {
        let html = "<p>x<IMAGE SRC='a&colon;b'><svg><image xlink:href=&#x68;ttp://e/x></svg>\
                    <style>a{b:url(x)}</style><template><img src=t></template>";
        let els = elements(html);
        let names: Vec<(&str, bool)> = els.iter().map(|e| (e.name.as_str(), e.svg)).collect();
        assert!(names.contains(&("img", false)), "{names:?}");
        assert!(names.contains(&("image", true)), "{names:?}");
        let img = els.iter().find(|e| e.name == "img").unwrap();
        assert_eq!(img.attr("src"), Some("a:b"));
        let svg_image = els.iter().find(|e| e.name == "image").unwrap();
        assert_eq!(svg_image.attr("xlink:href"), Some("http://e/x"));
        let style = els.iter().find(|e| e.name == "style").unwrap();
        assert_eq!(style.text, "a{b:url(x)}");
        assert!(els.iter().any(|e| e.attr("src") == Some("t")));
    }
}
