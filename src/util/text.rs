//! Text helpers: the slug of anchors and file names, and the closest known
//! name for "did you mean" hints.

/// Lower-case ASCII slug: runs of anything but `[a-z0-9]` become one `-`.
pub(crate) fn slug(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        let c = ch.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

/// What [`url_path`] percent-encodes in a path segment: controls, space and
/// everything that would end it or change its meaning (non-ASCII is always
/// encoded). Parentheses too: the agent files write these URLs as Markdown
/// link targets, where an unbalanced `)` ends the link.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'(')
    .add(b')')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// A relative file path as a URL path: `/` between its parts, each part
/// percent-encoded, so `models/a b.html` is `models/a%20b.html`.
pub(crate) fn url_path(path: &std::path::Path) -> String {
    let parts: Vec<String> = path
        .components()
        .map(|c| {
            percent_encoding::utf8_percent_encode(&c.as_os_str().to_string_lossy(), SEGMENT)
                .to_string()
        })
        .collect();
    parts.join("/")
}

/// The known name closest to `name` by edit distance, if it is close enough to be a typo.
pub(crate) fn closest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    let lower = name.to_lowercase();
    known
        .iter()
        .map(|k| (strsim::levenshtein(&lower, &k.to_lowercase()), *k))
        .filter(|(d, k)| *d <= (k.chars().count() / 3).max(2))
        .min()
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(
            slug("qwen3.8next-fp4-b300-sglang-agentic-mtp#0"),
            "qwen3-8next-fp4-b300-sglang-agentic-mtp-0"
        );
        assert_eq!(slug("a#1@c16"), "a-1-c16");
        assert_eq!(slug("--X__y--"), "x-y");
    }

    #[test]
    fn url_paths() {
        use std::path::Path;
        let cases = [
            ("models/x/a-1.html", "models/x/a-1.html"),
            ("a b/c#d?.html", "a%20b/c%23d%3F.html"),
            ("ünï/100%.html", "%C3%BCn%C3%AF/100%25.html"),
            ("a.b-c_d~e!.html", "a.b-c_d~e!.html"),
            ("a(f).html", "a%28f%29.html"),
            ("a)b.html", "a%29b.html"),
        ];
        for (path, url) in cases {
            assert_eq!(url_path(Path::new(path)), url, "{path}");
        }
    }

    #[test]
    fn closest_name() {
        let known = ["DeepSeek-V4", "DeepSeek-V4.1", "Qwen3.5", "Muse Spark Open"];
        assert_eq!(closest("DeepSeek-V4.2", &known), Some("DeepSeek-V4.1"));
        assert_eq!(closest("deepseek-v4", &known), Some("DeepSeek-V4"));
        assert_eq!(closest("Muse-Spark-Open", &known), Some("Muse Spark Open"));
        assert_eq!(closest("Llama", &known), None);
    }

    #[test]
    fn edit_distances_count_characters() {
        // What `closest` relies on: distances in characters, not bytes.
        assert_eq!(strsim::levenshtein("kitten", "sitting"), 3);
        assert_eq!(strsim::levenshtein("", "abc"), 3);
        assert_eq!(strsim::levenshtein("ä", "a"), 1);
    }
}
