//! The `nginx.conf` of a Dynamo front door with several frontends: the
//! directives srt-slurm's template writes, in its order (docs/sync.md,
//! "nginx"), in this tool's own words. When a page of `--previous` holds a
//! file of the same directives, its text is taken instead, so a regenerated
//! page keeps the bytes a reviewer already saw. Uses nothing else of the crate.

use std::collections::BTreeMap;

/// What the file depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::sync) struct NginxSpec {
    /// Frontends behind nginx, each on port 8180.
    pub frontends: u32,
    /// `Some(header)`: hash each session onto one frontend by this header.
    pub affinity_header: Option<String>,
    /// `keepalive_timeout` of client and upstream connections (`600s` unless the recipe says).
    pub keepalive_timeout: String,
}

/// The file text.
pub(in crate::sync) fn conf(spec: &NginxSpec) -> String {
    let mut s = String::from(
        "# nginx in front of the Dynamo frontends: clients connect to port 8000,\n\
         # each frontend listens on port 8180.\n\
         worker_processes auto;\n\nhttp {\n    \
         # Agentic requests can exceed nginx's 1 MiB default body size.\n    \
         client_max_body_size 45m;\n    access_log off;\n",
    );
    if let Some(header) = &spec.affinity_header {
        let var = format!("$http_{}", header.to_ascii_lowercase().replace('-', "_"));
        s.push_str(&format!(
            "\n    # One session stays on one frontend; requests without a session id spread out.\n    \
             map {var} $frontend_hash_key {{\n        default {var};\n        \"\" $request_id;\n    }}\n"
        ));
    }
    let keepalive = &spec.keepalive_timeout;
    s.push_str(&format!(
        "\n    # Agentic sessions sit idle between turns for longer than nginx's 75 s default.\n    \
         keepalive_timeout {keepalive};\n\n    upstream backend_servers {{\n"
    ));
    if spec.affinity_header.is_some() {
        s.push_str("        hash $frontend_hash_key consistent;\n");
    }
    for i in 0..spec.frontends {
        s.push_str(&format!("        server $FRONTEND_{i}_IP:8180;\n"));
    }
    s.push_str(&format!(
        "        keepalive 512;\n        keepalive_timeout {keepalive};\n    }}\n\n    \
         server {{\n        listen 8000;\n\n        location / {{\n            \
         proxy_pass http://backend_servers;\n            proxy_buffering off;\n            \
         proxy_read_timeout 24h;\n            proxy_send_timeout 24h;\n            \
         # Upstream keepalive needs HTTP/1.1 without a Connection header.\n            \
         proxy_http_version 1.1;\n            proxy_set_header Connection \"\";\n        \
         }}\n    }}\n}}\n\nevents {{\n    worker_connections 65535;\n    multi_accept on;\n    \
         use epoll;\n}}\n"
    ));
    s
}

/// A config file's directives: comments, blank lines and indentation
/// removed, runs of blanks made one. Two files that normalize the same tell a
/// server the same thing.
pub(in crate::sync) fn directives(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let code = strip_comment(line);
        let words: Vec<&str> = code.split_whitespace().collect();
        if words.is_empty() {
            continue;
        }
        out.push_str(&words.join(" "));
        out.push('\n');
    }
    out
}

/// The line up to a `#` that starts a comment (not one inside quotes).
fn strip_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, '#') => return &line[..i],
            _ => {}
        }
    }
    line
}

/// Config files of `--previous`, by file name and directives: the text a
/// generated file of the same directives takes.
#[derive(Debug, Clone, Default)]
pub(in crate::sync) struct KnownFiles {
    by_directives: BTreeMap<(String, String), String>,
}

impl KnownFiles {
    /// Adds a file; the first text seen for a (name, directives) pair stays.
    pub(in crate::sync) fn add(&mut self, name: &str, content: &str) {
        self.by_directives
            .entry((name.to_string(), directives(content)))
            .or_insert_with(|| content.to_string());
    }

    /// The one text `--previous` holds under `name`; `None` when it holds
    /// none, or several that differ.
    pub(in crate::sync) fn by_name(&self, name: &str) -> Option<String> {
        let mut texts = self
            .by_directives
            .iter()
            .filter(|((n, _), _)| n == name)
            .map(|(_, t)| t);
        let first = texts.next()?;
        texts.next().is_none().then(|| first.clone())
    }

    /// The known text with the same directives as `content`, else `content`.
    pub(in crate::sync) fn text_for(&self, name: &str, content: String) -> String {
        let key = (name.to_string(), directives(&content));
        self.by_directives.get(&key).cloned().unwrap_or(content)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(frontends: u32, affinity: bool) -> NginxSpec {
        NginxSpec {
            frontends,
            affinity_header: affinity.then(|| "X-Dynamo-Session-ID".to_string()),
            keepalive_timeout: "600s".into(),
        }
    }

    #[test]
    fn directives_ignore_comments_blanks_and_indentation() {
        let a =
            "# head\nhttp {\n    listen 8000; # port\n\n  proxy_set_header Connection \"#x\";\n}\n";
        assert_eq!(
            directives(a),
            "http {\nlisten 8000;\nproxy_set_header Connection \"#x\";\n}\n"
        );
    }

    #[test]
    fn the_file_lists_one_server_per_frontend_and_hashes_sessions_when_asked() {
        let with = conf(&spec(3, true));
        assert_eq!(with.matches("server $FRONTEND_").count(), 3);
        assert!(with.contains("map $http_x_dynamo_session_id $frontend_hash_key {"));
        assert!(with.contains("hash $frontend_hash_key consistent;"));
        assert_eq!(with.matches("keepalive_timeout 600s;").count(), 2);
        let without = conf(&spec(2, false));
        assert!(!without.contains("hash "), "{without}");
        let slow = conf(&NginxSpec {
            keepalive_timeout: "900s".into(),
            ..spec(5, true)
        });
        assert_eq!(slow.matches("keepalive_timeout 900s;").count(), 2);
    }

    #[test]
    fn a_known_text_of_the_same_directives_is_taken() {
        let mut known = KnownFiles::default();
        let theirs = format!(
            "# their comment\n{}",
            conf(&spec(2, false)).replace("    ", "\t")
        );
        known.add("nginx.conf", &theirs);
        assert_eq!(known.text_for("nginx.conf", conf(&spec(2, false))), theirs);
        let ours = conf(&spec(3, false));
        assert_eq!(known.text_for("nginx.conf", ours.clone()), ours);
        assert_eq!(
            known.text_for("other.conf", conf(&spec(2, false))),
            conf(&spec(2, false))
        );
    }
}
