//! YAML as InferenceX and srt-slurm read it: PyYAML's `safe_load` (YAML 1.1
//! scalars: `on`/`yes` are booleans, `1.5e5` is a string, `010` is octal),
//! with the line of every node kept so errors can name it.
//!
//! Parsing is yaml-rust2's event API; this module only builds the tree and
//! resolves plain scalars. What the text may hold is checked in [`text`]
//! (characters PyYAML refuses; scalars that open mdBook's include syntax),
//! each refusal with its line. Uses only `util::escape` of the crate.

use std::collections::HashMap;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

mod text;
use text::refuse_mdbook_link;

/// A YAML value. Mappings keep their key order (recipe order matters for
/// frontend arguments) and their keys as written.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::sync) enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(String, Node)>),
}

/// A value and the 1-based line it starts on.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::sync) struct Node {
    pub value: Value,
    pub line: usize,
}

impl Node {
    pub(in crate::sync) fn new(value: Value, line: usize) -> Node {
        Node { value, line }
    }

    /// The value under `key` of a mapping.
    pub(in crate::sync) fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(in crate::sync) fn as_map(&self) -> Option<&[(String, Node)]> {
        match &self.value {
            Value::Map(entries) => Some(entries),
            _ => None,
        }
    }

    pub(in crate::sync) fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(items) => Some(items),
            _ => None,
        }
    }

    pub(in crate::sync) fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(in crate::sync) fn as_int(&self) -> Option<i64> {
        match &self.value {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub(in crate::sync) fn as_bool(&self) -> Option<bool> {
        match &self.value {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub(in crate::sync) fn is_null(&self) -> bool {
        matches!(self.value, Value::Null)
    }

    /// Python's `str(value)` of a scalar, as srtctl puts values on a command
    /// line; `None` for sequences and mappings.
    pub(in crate::sync) fn python_str(&self) -> Option<String> {
        Some(match &self.value {
            Value::Null => "None".to_string(),
            Value::Bool(true) => "True".to_string(),
            Value::Bool(false) => "False".to_string(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => python_float(*f),
            Value::Str(s) => s.clone(),
            Value::Seq(_) | Value::Map(_) => return None,
        })
    }

    /// A short name of the kind of value, for messages.
    pub(in crate::sync) fn kind(&self) -> &'static str {
        match &self.value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }
}

/// Python's `repr(float)`: shortest round-trip digits, positional between
/// 1e-4 and 1e16, otherwise `1e-05` / `1.5e+16`.
pub(in crate::sync) fn python_float(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if f == f.trunc() && f.abs() < 1e16 {
        return format!("{f:.1}");
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..16).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    } else {
        format!("{f}")
    }
}

/// The most nodes a document's aliases may copy, all aliases together.
/// PyYAML shares an aliased node; this tree copies it, so nine lines of
/// aliases to aliases (a "billion laughs") would copy 9⁹ nodes, and took
/// over 6 GB before this bound. Real master configs and recipes copy a few
/// hundred (`<<: *dep` merges of a dozen keys).
pub(in crate::sync) const MAX_ALIAS_NODES: usize = 100_000;

/// Sequences and mappings nested deeper than this are refused: the tree is
/// dropped, cloned and walked recursively. Real master configs and recipes
/// nest under ten levels.
pub(super) const MAX_DEPTH: usize = 64;

/// Parses one YAML document. Errors name the line.
pub(in crate::sync) fn parse(text: &str) -> Result<Node, String> {
    text::printable(text)?;
    let mut builder = Builder::default();
    let mut parser = Parser::new_from_str(text);
    // The events are pulled here rather than through yaml-rust2's `load`,
    // which recurses once per nesting level (`- - - … 1` is two bytes a
    // level): the parser itself is a state machine, and the builder keeps
    // its own stack, bounded by MAX_DEPTH. One document, as `load(_, false)`.
    loop {
        let (event, mark) = parser
            .next_token()
            .map_err(|e| format!("line {}: {}", e.marker().line(), e.info()))?;
        if matches!(event, Event::DocumentEnd | Event::StreamEnd) {
            break;
        }
        builder.on_event(event, mark);
    }
    if let Some(e) = builder.error {
        return Err(e);
    }
    Ok(builder.root.unwrap_or_else(|| Node::new(Value::Null, 1)))
}

enum Frame {
    Seq {
        items: Vec<Node>,
        line: usize,
        anchor: usize,
        /// Nodes in the sequence so far, itself included.
        nodes: usize,
    },
    Map {
        /// Entries in order; `None` where the mapping's own key replaced
        /// one that came in through `<<`.
        entries: Vec<Option<(String, Node)>>,
        /// Where each key is in `entries`, and whether it came through `<<`:
        /// so a key is checked once, not against every key before it
        /// (100,000 keys took 20 s).
        index: HashMap<String, (usize, bool)>,
        key: Option<(String, bool, usize)>,
        line: usize,
        anchor: usize,
        /// Nodes in the mapping so far, itself included.
        nodes: usize,
    },
}

#[cfg(test)]
thread_local! {
    /// Mapping-key lookups on this thread: what the test of the bound counts.
    static KEY_LOOKUPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts one lookup of a key among a mapping's keys (in tests only).
fn key_looked_up() {
    #[cfg(test)]
    KEY_LOOKUPS.with(|n| n.set(n.get() + 1));
}

#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    /// Anchored nodes, with how many nodes each holds.
    anchors: HashMap<usize, (Node, usize)>,
    /// Nodes copied by aliases so far (see [`MAX_ALIAS_NODES`]).
    copied: usize,
    root: Option<Node>,
    error: Option<String>,
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.event(ev, mark.line()) {
            self.error = Some(e);
        }
    }
}

impl Builder {
    fn event(&mut self, ev: Event, line: usize) -> Result<(), String> {
        match ev {
            Event::Scalar(text, style, anchor, tag) => {
                refuse_mdbook_link(&text, line)?;
                let plain_key = style == TScalarStyle::Plain && tag.is_none();
                if self.expects_key() {
                    return self.set_key(text, plain_key, line);
                }
                let node = Node::new(resolve_scalar(&text, style, tag.as_ref(), line)?, line);
                self.remember(anchor, &node, 1, line)?;
                self.push_value(node, 1)
            }
            Event::Alias(id) => {
                let (node, nodes) = self
                    .anchors
                    .get(&id)
                    .ok_or_else(|| format!("line {line}: alias to an unknown anchor"))?;
                if self.expects_key() {
                    return Err(format!("line {line}: an alias cannot be a mapping key"));
                }
                let (node, nodes) = (node.clone(), *nodes);
                self.copy(nodes, line)?;
                self.push_value(node, nodes)
            }
            Event::SequenceStart(anchor, tag) => {
                self.check_container(tag.as_ref(), "seq", line)?;
                self.stack.push(Frame::Seq {
                    items: Vec::new(),
                    line,
                    anchor,
                    nodes: 1,
                });
                Ok(())
            }
            Event::MappingStart(anchor, tag) => {
                self.check_container(tag.as_ref(), "map", line)?;
                self.stack.push(Frame::Map {
                    entries: Vec::new(),
                    index: HashMap::new(),
                    key: None,
                    line,
                    anchor,
                    nodes: 1,
                });
                Ok(())
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(),
            _ => Ok(()),
        }
    }

    fn check_container(&self, tag: Option<&Tag>, want: &str, line: usize) -> Result<(), String> {
        if self.expects_key() {
            return Err(format!("line {line}: a mapping key must be a scalar"));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(format!(
                "line {line}: sequences and mappings nested deeper than {MAX_DEPTH} \
                 (mdbook-agentx's bound on YAML nesting)"
            ));
        }
        match tag {
            None => Ok(()),
            Some(t) if t.handle == "tag:yaml.org,2002:" && t.suffix == want => Ok(()),
            Some(t) => Err(format!(
                "line {line}: unsupported tag `{}{}`",
                t.handle, t.suffix
            )),
        }
    }

    fn expects_key(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Map { key: None, .. }))
    }

    fn set_key(&mut self, text: String, plain: bool, line: usize) -> Result<(), String> {
        if let Some(Frame::Map {
            entries,
            index,
            key,
            ..
        }) = self.stack.last_mut()
        {
            let is_merge = plain && text == "<<";
            if !is_merge {
                key_looked_up();
                match index.get(&text) {
                    // The mapping's own key replaces one merged in.
                    Some(&(at, true)) => {
                        entries[at] = None;
                        index.remove(&text);
                    }
                    Some(_) => return Err(format!("line {line}: duplicate key `{text}`")),
                    None => {}
                }
            }
            *key = Some((text, is_merge, line));
        }
        Ok(())
    }

    /// Keeps a copy of `node` (of `nodes` nodes, from `line`) under its
    /// anchor, if it has one.
    fn remember(
        &mut self,
        anchor: usize,
        node: &Node,
        nodes: usize,
        line: usize,
    ) -> Result<(), String> {
        if anchor > 0 {
            self.copy(nodes, line)?;
            self.anchors.insert(anchor, (node.clone(), nodes));
        }
        Ok(())
    }

    /// Counts `nodes` more nodes copied for an anchor or an alias at `line`,
    /// before they are: past [`MAX_ALIAS_NODES`], the refusal.
    fn copy(&mut self, nodes: usize, line: usize) -> Result<(), String> {
        self.copied = self.copied.saturating_add(nodes);
        if self.copied > MAX_ALIAS_NODES {
            return Err(format!(
                "line {line}: the document's anchors and aliases copy more than \
                 {MAX_ALIAS_NODES} nodes (mdbook-agentx's bound on YAML aliases, which an alias \
                 to aliases multiplies); write the values out or use fewer aliases"
            ));
        }
        Ok(())
    }

    fn close(&mut self) -> Result<(), String> {
        let (node, anchor, nodes) = match self.stack.pop() {
            Some(Frame::Seq {
                items,
                line,
                anchor,
                nodes,
            }) => (Node::new(Value::Seq(items), line), anchor, nodes),
            Some(Frame::Map {
                entries,
                line,
                anchor,
                nodes,
                ..
            }) => {
                let entries = entries.into_iter().flatten().collect();
                (Node::new(Value::Map(entries), line), anchor, nodes)
            }
            None => return Ok(()),
        };
        self.remember(anchor, &node, nodes, node.line)?;
        self.push_value(node, nodes)
    }

    /// Adds `node`, of `nodes` nodes, to what is being built.
    fn push_value(&mut self, node: Node, nodes: usize) -> Result<(), String> {
        match self.stack.last_mut() {
            None => {
                self.root = Some(node);
                Ok(())
            }
            Some(Frame::Seq {
                items, nodes: n, ..
            }) => {
                *n = n.saturating_add(nodes);
                items.push(node);
                Ok(())
            }
            Some(Frame::Map {
                entries,
                index,
                key,
                nodes: n,
                ..
            }) => {
                *n = n.saturating_add(nodes);
                let (k, is_merge, line) = key.take().unwrap_or_default();
                if is_merge {
                    merge_into(entries, index, node, line)
                } else {
                    index.insert(k.clone(), (entries.len(), false));
                    entries.push(Some((k, node)));
                    Ok(())
                }
            }
        }
    }
}

/// `<<: *anchor` (or a list of them): keys not already present are added, as PyYAML does.
fn merge_into(
    entries: &mut Vec<Option<(String, Node)>>,
    index: &mut HashMap<String, (usize, bool)>,
    node: Node,
    line: usize,
) -> Result<(), String> {
    let sources: Vec<Node> = match node.value {
        Value::Map(_) => vec![node],
        Value::Seq(items) => items,
        _ => {
            return Err(format!(
                "line {line}: `<<` needs a mapping or a list of them"
            ));
        }
    };
    for src in sources {
        let Value::Map(src_entries) = src.value else {
            return Err(format!(
                "line {line}: `<<` needs a mapping or a list of them"
            ));
        };
        for (k, v) in src_entries {
            key_looked_up();
            if !index.contains_key(&k) {
                index.insert(k.clone(), (entries.len(), true));
                entries.push(Some((k, v)));
            }
        }
    }
    Ok(())
}

fn resolve_scalar(
    text: &str,
    style: TScalarStyle,
    tag: Option<&Tag>,
    line: usize,
) -> Result<Value, String> {
    if let Some(t) = tag {
        if t.handle != "tag:yaml.org,2002:" {
            return Err(format!(
                "line {line}: unsupported tag `{}{}`",
                t.handle, t.suffix
            ));
        }
        let plain = resolve_plain(text, line)?;
        return match (t.suffix.as_str(), plain) {
            ("str", _) => Ok(Value::Str(text.to_string())),
            ("int", v @ Value::Int(_))
            | ("float", v @ Value::Float(_))
            | ("bool", v @ Value::Bool(_))
            | ("null", v @ Value::Null) => Ok(v),
            ("float", Value::Int(i)) => Ok(Value::Float(i as f64)),
            (s, _) => Err(format!("line {line}: `{text}` is not a valid !!{s}")),
        };
    }
    if style != TScalarStyle::Plain {
        return Ok(Value::Str(text.to_string()));
    }
    resolve_plain(text, line)
}

/// PyYAML's implicit resolvers for plain scalars (YAML 1.1).
fn resolve_plain(text: &str, line: usize) -> Result<Value, String> {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Ok(Value::Null),
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Ok(Value::Bool(true));
        }
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Ok(Value::Bool(false));
        }
        _ => {}
    }
    if let Some(v) = resolve_int(text) {
        return v
            .map(Value::Int)
            .ok_or_else(|| format!("line {line}: `{text}` is an integer too large for this tool"));
    }
    if is_sexagesimal(text) {
        return Err(format!(
            "line {line}: `{text}` is a YAML 1.1 base-60 number; quote it if it is text"
        ));
    }
    if let Some(f) = resolve_float(text) {
        return Ok(Value::Float(f));
    }
    Ok(Value::Str(text.to_string()))
}

/// `Some(None)`: an integer that does not fit; `None`: not an integer.
fn resolve_int(text: &str) -> Option<Option<i64>> {
    let (neg, body) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (radix, digits) = if let Some(d) = body.strip_prefix("0b") {
        (2, d)
    } else if let Some(d) = body.strip_prefix("0x") {
        (16, d)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    let clean: String = digits.chars().filter(|c| *c != '_').collect();
    let valid = !clean.is_empty()
        && clean.chars().all(|c| c.is_digit(radix))
        && digits.chars().all(|c| c == '_' || c.is_digit(radix))
        && (radix != 10 || !body.starts_with('_'));
    if !valid {
        return None;
    }
    let parsed = i64::from_str_radix(&clean, radix).ok();
    Some(parsed.map(|v| if neg { -v } else { v }))
}

fn is_sexagesimal(text: &str) -> bool {
    let body = text.trim_start_matches(['-', '+']);
    let mut parts = body.split(':');
    let first = parts.next().unwrap_or("");
    let rest: Vec<&str> = parts.collect();
    !rest.is_empty()
        && first.starts_with(|c: char| c.is_ascii_digit())
        && first.chars().all(|c| c.is_ascii_digit() || c == '_')
        && rest.iter().enumerate().all(|(i, p)| {
            let p = if i + 1 == rest.len() {
                p.split('.').next().unwrap_or("")
            } else {
                p
            };
            !p.is_empty() && p.len() <= 2 && p.chars().all(|c| c.is_ascii_digit())
        })
}

fn resolve_float(text: &str) -> Option<f64> {
    match text {
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return Some(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Some(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Some(f64::NAN),
        _ => {}
    }
    let body = text.trim_start_matches(['-', '+']);
    let signed = body.len() != text.len();
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int_part, frac) = mantissa.split_once('.')?;
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit() || c == '_');
    let int_ok = if int_part.is_empty() {
        !signed && !frac.is_empty() && frac.starts_with(|c: char| c.is_ascii_digit())
    } else {
        int_part.starts_with(|c: char| c.is_ascii_digit()) && digits(int_part)
    };
    let exp_ok = match exponent {
        None => true,
        Some(e) => {
            let d = e.strip_prefix(['-', '+']);
            d.is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
        }
    };
    if !(int_ok && digits(frac) && exp_ok) {
        return None;
    }
    text.replace('_', "").parse::<f64>().ok()
}

#[cfg(test)]
mod tests;
