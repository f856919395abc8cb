//! What loading refuses that serde alone would accept: text that is not
//! UTF-8, duplicate JSON keys, names that reach a shell unquoted, and
//! values that would make broken pages (an empty page name or cell id, a
//! `hw` the file does not list, zero GPUs, one hardware id twice). Every
//! message names the JSON path (or the byte, line and column) and the fix.

use std::collections::HashSet;
use std::fmt;

use indexmap::IndexMap;
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::limits::{check_counts, check_length};
use super::schema::{AgentxData, Cell, Env};
use super::untrusted::{TextKind, check_string};
use crate::util::escape::mdbook_link_opening;
use crate::util::text::slug;

/// Data file bytes as text: UTF-8 (a BOM is allowed), or an error that says
/// where it stops being UTF-8, or that the file is UTF-16.
pub(crate) fn utf8_text(bytes: Vec<u8>) -> Result<String, String> {
    if let Some(endian) = utf16(&bytes) {
        return Err(format!(
            "the file is UTF-16 ({endian}); save it as UTF-8 (JSON text must be UTF-8)"
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let valid = &e.as_bytes()[..at];
        let line = valid.iter().filter(|b| **b == b'\n').count() + 1;
        let line_start = valid.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&valid[line_start..])
            .chars()
            .count()
            + 1;
        format!(
            "not valid UTF-8 at byte {at} (line {line}, column {column}): byte 0x{:02x}; save \
             the file as UTF-8",
            e.as_bytes()[at]
        )
    })
}

/// `little-endian` / `big-endian` when the bytes look like UTF-16: a byte
/// order mark, or the NUL of every other byte that ASCII text has in UTF-16.
fn utf16(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0xFF, 0xFE, ..] => return Some("little-endian, with a byte order mark"),
        [0xFE, 0xFF, ..] => return Some("big-endian, with a byte order mark"),
        _ => {}
    }
    let head = &bytes[..bytes.len().min(64) & !1];
    if head.len() < 2 {
        return None;
    }
    let nul_at = |parity: usize| {
        head.iter()
            .enumerate()
            .filter(|(i, b)| i % 2 == parity && **b == 0)
            .count()
    };
    let pairs = head.len() / 2;
    // ASCII in UTF-16: every high byte is NUL; UTF-8 JSON has none at all.
    if nul_at(1) * 4 >= pairs * 3 && nul_at(0) == 0 {
        Some("little-endian")
    } else if nul_at(0) * 4 >= pairs * 3 && nul_at(1) == 0 {
        Some("big-endian")
    } else {
        None
    }
}

/// Checks that no JSON object repeats a key, anywhere in the document, and
/// every string against what it becomes ([`check_string`]):
/// serde keeps the last of two equal keys without a word, so `"args":
/// {"--tp": ["4"], "--tp": ["8"]}` would print one of them silently. Every
/// string is also checked for the opening of mdBook's `{{#include …}}`
/// syntax ([`mdbook_link_opening`]): text escaping defuses it, but commands
/// and code are printed verbatim, and a link may begin in one string and end
/// in another.
pub(crate) fn unique_keys(json: &str) -> Result<(), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(json);
    let mut path = Vec::new();
    UniqueKeys { path: &mut path }.deserialize(&mut de)?;
    de.end()
}

/// One step of a JSON path.
enum Step {
    Key(String),
    Index(usize),
}

fn path_text(path: &[Step]) -> String {
    let mut s = String::new();
    for step in path {
        match step {
            Step::Key(k) if s.is_empty() => s.push_str(k),
            Step::Key(k) => {
                s.push('.');
                s.push_str(k);
            }
            Step::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// What the string at `path` becomes: config file text (`files.*.content`),
/// command text (anything under a key that holds commands, env values or
/// arguments: blocks, patches, `envs`, the Mooncake and HiCache donors'
/// `args`/`env`, setup and install lines), or text.
fn text_kind(path: &[Step]) -> TextKind {
    const COMMAND_KEYS: [&str; 10] = [
        "blocks",
        "patch",
        "master",
        "envs",
        "env",
        "decode_env",
        "args",
        "install",
        "command",
        "script",
    ];
    fn key(s: &Step) -> Option<&str> {
        match s {
            Step::Key(k) => Some(k),
            Step::Index(_) => None,
        }
    }
    match (path.first().and_then(key), path.last().and_then(key)) {
        (Some("files"), Some("content")) => TextKind::File,
        _ if path
            .iter()
            .filter_map(key)
            .any(|k| COMMAND_KEYS.contains(&k)) =>
        {
            TextKind::Command
        }
        _ => TextKind::Text,
    }
}

/// A value whose objects are checked for repeated keys; `path` is where it is.
struct UniqueKeys<'p> {
    path: &'p mut Vec<Step>,
}

impl<'de> DeserializeSeed<'de> for UniqueKeys<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for UniqueKeys<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            check_length(&key, "a key", &|| path_text(self.path)).map_err(de::Error::custom)?;
            if !seen.insert(key.clone()) {
                let at = path_text(self.path);
                let at = if at.is_empty() {
                    "the top level".into()
                } else {
                    at
                };
                return Err(de::Error::custom(format!(
                    "{at}: key `{key}` is given twice (JSON readers keep only the last one, so \
                     one would be dropped silently); remove one"
                )));
            }
            self.path.push(Step::Key(key));
            // Keys are text too: unknown ones are printed as ignored.
            if let Step::Key(k) = self.path.last().expect("pushed") {
                check_string(k, TextKind::Text)
                    .map_err(|e| de::Error::custom(format!("{}: key {e}", path_text(self.path))))?;
            }
            map.next_value_seed(UniqueKeys { path: self.path })?;
            self.path.pop();
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0;
        loop {
            self.path.push(Step::Index(i));
            let more = seq.next_element_seed(UniqueKeys { path: self.path })?;
            self.path.pop();
            if more.is_none() {
                return Ok(());
            }
            i += 1;
        }
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<(), E> {
        check_length(s, "a string", &|| path_text(self.path)).map_err(E::custom)?;
        let at = || path_text(self.path);
        if let Some(open) = mdbook_link_opening(s) {
            return Err(E::custom(format!(
                "{}: `{}` opens mdBook's include syntax (`{{{{#include …}}}}`): mdBook's \
                 `links` preprocessor runs after agentx over the whole page, also across \
                 strings and lines (this one and the next env value, argument or line), and \
                 would put a file of the build machine there; data cannot use it",
                at(),
                quoted_around(s, open)
            )));
        }
        check_string(s, text_kind(self.path)).map_err(|e| E::custom(format!("{}: {e}", at())))
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
}

/// The text of `s` at `at` and a little after it (up to 40 characters), so
/// a message shows which `{{` it means.
fn quoted_around(s: &str, at: std::ops::Range<usize>) -> &str {
    let end = s[at.end..]
        .char_indices()
        .nth(40)
        .map_or(s.len(), |(i, _)| at.end + i);
    &s[at.start..end]
}

/// An environment variable name as a shell reads `NAME=value cmd`:
/// `[A-Za-z_][A-Za-z0-9_]*`. Anything else would run as shell text.
pub(crate) fn check_env_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not an environment variable name: it goes unquoted into the command, so \
             it must be letters, digits and `_`, not starting with a digit \
             ([A-Za-z_][A-Za-z0-9_]*)"
        ))
    }
}

/// A command-line flag as the commands print it, unquoted:
/// `--[A-Za-z0-9][-_.A-Za-z0-9]*`.
pub(crate) fn check_flag_name(flag: &str) -> Result<(), String> {
    let ok = flag.strip_prefix("--").is_some_and(|rest| {
        let mut chars = rest.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
            && chars.all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    });
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{flag}` is not a flag name: it goes unquoted into the command, so it must be `--` \
             and then letters, digits, `-`, `_` or `.` (--[A-Za-z0-9][-_.A-Za-z0-9]*)"
        ))
    }
}

/// Deserializes an env map whose names are all [`check_env_name`]'s.
pub(crate) fn env_names<'de, D: Deserializer<'de>>(d: D) -> Result<Env, D::Error> {
    let env = Env::deserialize(d)?;
    for name in env.keys() {
        check_env_name(name).map_err(de::Error::custom)?;
    }
    Ok(env)
}

/// An env map checked by [`env_names`], as one entry of a list.
#[derive(Deserialize)]
pub(crate) struct CheckedEnv(#[serde(deserialize_with = "env_names")] pub(crate) Env);

/// Deserializes `envs`: a list of env maps, each checked by [`env_names`].
pub(crate) fn env_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Env>, D::Error> {
    let list = Vec::<CheckedEnv>::deserialize(d)?;
    Ok(list.into_iter().map(|e| e.0).collect())
}

/// Deserializes a diff's `args`, whose keys are flags.
pub(crate) fn flag_keys<'de, D, V>(d: D) -> Result<IndexMap<String, V>, D::Error>
where
    D: Deserializer<'de>,
    V: Deserialize<'de>,
{
    let map = IndexMap::<String, V>::deserialize(d)?;
    for flag in map.keys() {
        check_flag_name(flag).map_err(de::Error::custom)?;
    }
    Ok(map)
}

/// Deserializes a diff's `env`, whose keys are variable names.
pub(crate) fn env_keys<'de, D, V>(d: D) -> Result<IndexMap<String, V>, D::Error>
where
    D: Deserializer<'de>,
    V: Deserialize<'de>,
{
    let map = IndexMap::<String, V>::deserialize(d)?;
    for name in map.keys() {
        check_env_name(name).map_err(de::Error::custom)?;
    }
    Ok(map)
}

/// A config file's name, as commands name it and the copied text's
/// comments show it: one plain file name.
fn check_file_name(name: &str) -> Result<(), String> {
    let ok = !name.starts_with('.')
        && !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not a plain file name; use letters, digits, `-`, `_` and `.` \
             (e.g. nginx.conf)"
        ))
    }
}

/// Checks what the types accept but a page cannot use; the error names the
/// JSON path and the fix.
pub(crate) fn validate(data: &AgentxData) -> Result<(), String> {
    check_counts(data)?;
    if data.model.trim().is_empty() {
        return Err(
            "model: empty; give the page a name (directives select it with \
                    <<agentx page=\"…\">>)"
                .into(),
        );
    }
    let mut hardware: Vec<&str> = Vec::new();
    for (i, h) in data.hardware.iter().enumerate() {
        if let Some(first) = hardware.iter().position(|id| *id == h.id) {
            return Err(format!(
                "hardware[{i}].id: `{}` is also hardware[{first}].id; each hardware id must be \
                 listed once",
                h.id
            ));
        }
        hardware.push(&h.id);
    }
    for (key, f) in &data.files {
        check_file_name(&f.name).map_err(|e| format!("files.{key}.name: {e}"))?;
    }
    for (ci, cell) in data.cells.iter().enumerate() {
        validate_cell(cell, &hardware).map_err(|e| format!("cells[{ci}].{e}"))?;
    }
    Ok(())
}

fn validate_cell(cell: &Cell, hardware: &[&str]) -> Result<(), String> {
    if slug(&cell.id).is_empty() {
        return Err(format!(
            "id: `{}` has no letter or digit, so it gives no anchor or page name; use an id like \
             `<configKey>#<n>`",
            cell.id
        ));
    }
    if !hardware.contains(&cell.hw.as_str()) {
        let listed = if hardware.is_empty() {
            "the file lists no `hardware`".to_string()
        } else {
            format!("it lists: {}", hardware.join(", "))
        };
        return Err(format!(
            "hw: `{}` is not in the top-level `hardware` ({listed}); add {{\"id\": \"{}\", \
             \"label\": \"…\"}} there or fix the id",
            cell.hw, cell.hw
        ));
    }
    if cell.gpus == 0 {
        return Err("gpus: 0; a deployment uses at least one GPU".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests;
