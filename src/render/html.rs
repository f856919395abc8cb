//! The raw HTML render writes itself around Markdown: the set wrapper's
//! attributes, status badges, the selector's JSON. Every data string in it
//! goes through `util::escape` (HTML for attributes, Markdown text for what
//! the Markdown parser reads between tags, script JSON for the data).
//!
//! May use: `util::escape`, `decode` (statuses).

use crate::decode::Status;
use crate::util::escape;

/// An attribute value (quoted) in raw HTML.
pub(crate) fn attribute(s: &str) -> String {
    escape::html(s)
}

/// JSON for inside `<script type="application/json">`: no data can close
/// the script or open a comment.
pub(crate) fn script_json<T: serde::Serialize + ?Sized>(v: &T) -> String {
    escape::script_json(v).unwrap_or_else(|_| "null".into())
}

/// A hidden mount for a script (`<div class="MOUNT" hidden>`) and its data
/// (`<script type="application/json" class="DATA">`), both classes fixed
/// literals of the caller, the data's JSON written by [`script_json`].
pub(crate) fn mount_with_data<T: serde::Serialize + ?Sized>(
    mount: &'static str,
    data: &'static str,
    v: &T,
) -> String {
    mount_with_json(mount, None, data, &script_json(v))
}

/// [`mount_with_data`] for JSON already written by [`script_json`], the
/// mount with one more attribute (`name` a fixed literal, the value
/// escaped here). One buffer of the final size: `format!` grew it by
/// doubling, copying the (long) JSON each time.
pub(crate) fn mount_with_json(
    mount: &'static str,
    extra: Option<(&'static str, &str)>,
    data: &'static str,
    json: &str,
) -> String {
    let extra = extra.map_or_else(String::new, |(name, value)| {
        format!(" {name}=\"{}\"", attribute(value))
    });
    let pieces = [
        "<div class=\"",
        mount,
        "\"",
        &extra,
        " hidden></div>\n<script type=\"application/json\" class=\"",
        data,
        "\">",
        json,
        "</script>\n\n",
    ];
    let mut out = String::with_capacity(pieces.iter().map(|p| p.len()).sum());
    pieces.iter().for_each(|p| out.push_str(p));
    out
}

/// A status badge: `<span class="agentx-badge agentx-badge-<id>">` with
/// `label` (the exact label, or a short mark of it) as Markdown text, which
/// the parser reads between the two tags.
pub(crate) fn badge(status: &Status, label: &str) -> String {
    format!(
        "<span class=\"agentx-badge agentx-badge-{}\">{}</span>",
        status.id(),
        escape::text(label)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_json_cannot_close_the_script() {
        let v = serde_json::json!({"a": "</script><!-- & \"q\""});
        let s = script_json(&v);
        assert!(
            !s.contains('<') && !s.contains('>') && !s.contains('&'),
            "{s}"
        );
        assert_eq!(serde_json::from_str::<serde_json::Value>(&s).unwrap(), v);
    }

    #[test]
    fn badges_keep_the_label_as_text() {
        let s = Status::InProgress { pr: "12<3".into() };
        assert_eq!(
            badge(&s, &s.label()),
            "<span class=\"agentx-badge agentx-badge-in-progress\">◐ In progress in SemiAnalysis \
             InferenceX AgentX (PR #12\\<3)</span>"
        );
    }
}
