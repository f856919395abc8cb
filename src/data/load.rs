//! Loading a data file: the JS module form's wrapper blanked out (so JSON
//! errors keep their line:column), JSON paths in errors, ignored keys listed.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use super::schema::AgentxData;
use super::validate::{unique_keys, utf8_text, validate};

/// A data file after loading.
#[derive(Debug, Clone)]
pub(crate) struct Loaded {
    pub data: AgentxData,
    /// JSON paths of keys this tool does not know and ignored on purpose.
    pub ignored: Vec<String>,
}

/// Reads and parses one data file; errors name the file and the JSON path.
pub(crate) fn load_file(path: &Path) -> Result<Loaded> {
    // A file named on the command line: any path, but a regular file of
    // bounded size (`/dev/zero` or a FIFO must not take memory or hang).
    let max = crate::util::fs::DEFAULT_MAX_FILE_MIB << 20;
    let text = utf8_file(crate::util::fs::read_regular(path, max)?, path)?;
    parse_str(&text, path)
}

/// A data file's bytes as UTF-8 text; an error names `shown` and, for text
/// in another encoding, where it stops being UTF-8 or that it is UTF-16.
pub(crate) fn utf8_file(bytes: Vec<u8>, shown: &Path) -> Result<String> {
    utf8_text(bytes).map_err(|e| anyhow::anyhow!("{}: {e}", shown.display()))
}

/// Parses data text. `path` is used for messages only.
pub(crate) fn parse_str(text: &str, path: &Path) -> Result<Loaded> {
    let json = json_text(text).with_context(|| format!("{}", path.display()))?;
    // Malformed JSON is found here first: say where, as the parse below would.
    unique_keys(&json).map_err(|e| match e.is_syntax() || e.is_eof() {
        true => anyhow::anyhow!("{}", located(path, &e)),
        false => anyhow::anyhow!("{}: {}", path.display(), describe_json_error(&e)),
    })?;
    let mut ignored = Vec::new();
    let mut de = serde_json::Deserializer::from_str(&json);
    let mut on_ignored = |p: serde_ignored::Path<'_>| ignored.push(p.to_string());
    let tracked = serde_ignored::Deserializer::new(&mut de, &mut on_ignored);
    let data: AgentxData = serde_path_to_error::deserialize(tracked).map_err(|e| {
        let path_str = e.path().to_string();
        let inner = e.into_inner();
        let what = describe_json_error(&inner);
        if inner.is_syntax() || inner.is_eof() {
            anyhow::anyhow!("{}", located(path, &inner))
        } else if path_str == "." {
            anyhow::anyhow!("{}: {what}", path.display())
        } else {
            anyhow::anyhow!("{}: {path_str}: {what}", path.display())
        }
    })?;
    de.end()
        .map_err(|e| anyhow::anyhow!("{}", located(path, &e)))?;
    validate(&data).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    Ok(Loaded { data, ignored })
}

/// The page name (`model`) of data text, without decoding the rest: what an
/// index of many data files needs. `path` is used for messages only.
pub(crate) fn page_name(text: &str, path: &Path) -> Result<String> {
    #[derive(Deserialize)]
    struct Head {
        model: String,
    }
    let json = json_text(text).with_context(|| format!("{}", path.display()))?;
    let model = serde_json::from_str::<Head>(&json)
        .map(|h| h.model)
        .map_err(|e| match e.is_syntax() || e.is_eof() {
            true => anyhow::anyhow!("{}", located(path, &e)),
            false => anyhow::anyhow!("{}: {}", path.display(), describe_json_error(&e)),
        })?;
    if model.trim().is_empty() {
        bail!("{}: model: empty; give the page a name", path.display());
    }
    Ok(model)
}

/// A JSON syntax error as compilers and editors write positions:
/// `file:line:column: malformed JSON: what`.
fn located(path: &Path, e: &serde_json::Error) -> String {
    let msg = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    let what = msg.strip_suffix(&position).unwrap_or(&msg);
    format!(
        "{}:{}:{}: malformed JSON: {what}",
        path.display(),
        e.line(),
        e.column()
    )
}

fn describe_json_error(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    if e.is_syntax() || e.is_eof() {
        format!("malformed JSON: {msg}")
    } else {
        msg
    }
}

/// Extracts the JSON object from either form. The JS wrapper is blanked out
/// rather than cut, so line:column in parse errors still point into the file.
pub(crate) fn json_text(text: &str) -> Result<String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let body_start = skip_comments_and_space(text);
    let rest = &text[body_start..];
    if rest.starts_with('{') || rest.is_empty() {
        return Ok(text.to_string());
    }
    const PREFIX: &str = "export const agentx";
    if !rest.starts_with(PREFIX) {
        bail!(
            "not an AgentX data file: expected a JSON object or `export const agentx = {{...}};` \
             at line {}",
            line_of(text, body_start)
        );
    }
    let after = &rest[PREFIX.len()..];
    let eq = after.trim_start();
    if !eq.starts_with('=') {
        bail!(
            "expected `=` after `export const agentx` at line {}",
            line_of(text, body_start)
        );
    }
    let obj_start = body_start + PREFIX.len() + (after.len() - eq.len()) + 1;
    let trimmed_end = text.trim_end();
    let obj_end = trimmed_end
        .strip_suffix(';')
        .map(|s| s.len())
        .unwrap_or(trimmed_end.len());
    if obj_end < obj_start {
        bail!("`export const agentx =` is not followed by an object");
    }
    let mut out = String::with_capacity(text.len());
    blank_into(&mut out, &text[..obj_start]);
    out.push_str(&text[obj_start..obj_end]);
    blank_into(&mut out, &text[obj_end..]);
    Ok(out)
}

/// Byte offset of the first character that is neither whitespace nor inside a `//` comment.
fn skip_comments_and_space(text: &str) -> usize {
    let mut i = 0;
    let bytes = text.as_bytes();
    while i < bytes.len() {
        if bytes[i].is_ascii_whitespace() {
            i += 1;
        } else if text[i..].starts_with("//") {
            i += text[i..].find('\n').unwrap_or(text.len() - i);
        } else {
            break;
        }
    }
    i
}

/// Replaces every character except newlines with spaces (one byte each).
fn blank_into(out: &mut String, s: &str) {
    for ch in s.chars() {
        out.push(if ch == '\n' { '\n' } else { ' ' });
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

/// Every data file (`.json`, `.jsx`, `.js`) directly in or below `dir`, sorted.
pub(crate) fn data_files_in(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = crate::util::fs::files_below(dir, |_| false)?;
    files.retain(|p| is_data_file(p));
    Ok(files)
}

pub(crate) fn is_data_file(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("json" | "jsx" | "js")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_module_keeps_line_numbers() {
        let text = "// header\n// more\nexport const agentx = {\n \"model\": 5\n};\n";
        let json = json_text(text).unwrap();
        assert!(json.trim_start().starts_with('{'), "{json}");
        assert_eq!(json.len(), text.len());
        assert_eq!(json.lines().count(), text.lines().count());
        let err = parse_str(text, Path::new("x.jsx")).unwrap_err().to_string();
        assert!(err.contains("model"), "{err}");
        assert!(err.contains("line 4"), "{err}");
    }

    #[test]
    fn malformed_json_names_line_and_column() {
        let err = parse_str("{\n \"model\": \"x\",\n}", Path::new("bad.json"))
            .unwrap_err()
            .to_string();
        assert_eq!(err, "bad.json:3:1: malformed JSON: trailing comma");
    }

    #[test]
    fn not_agentx_is_rejected() {
        let err = format!(
            "{:#}",
            parse_str("const x = 1;", Path::new("a.js")).unwrap_err()
        );
        assert!(err.starts_with("a.js: not an AgentX data file"), "{err}");
    }
}
