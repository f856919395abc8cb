//! Live reload: the client script every served page gets, and server-sent
//! events on the same port (`/__agentx/events`, addressed relative to the
//! page's location so IPv6 hosts and proxies work).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use anyhow::Result;

use super::Shared;

/// Path of the live-reload event stream.
pub(crate) const EVENTS_PATH: &str = "/__agentx/events";

/// What the server writes in place of the generation in a served HTML page
/// ([`with_generation`]). Pages are laid out with this fixed text, so the
/// script does not change between builds and a rebuild lays out again only
/// the pages whose content changed.
pub(super) const GENERATION_SLOT: &str = "/*agentx-generation*/0";

/// The client script added to every served page. Its generation (filled in
/// when the page is served) lets a page loaded just before a rebuild notice
/// it missed the reload. A failed build shows an overlay that leads with the
/// root cause, then what it broke, and can be closed (Esc or its button);
/// the next good build reloads the page.
pub(super) fn live_reload_script() -> String {
    format!(
        r#"(function () {{
  var generation = {GENERATION_SLOT};
  if (!window.EventSource) return;
  var es = new EventSource("{EVENTS_PATH}");
  function close() {{
    var d = document.getElementById("agentx-overlay");
    if (d) d.remove();
  }}
  function line(parent, cls, text) {{
    var p = document.createElement("p");
    p.className = cls;
    p.textContent = text;
    parent.appendChild(p);
  }}
  function overlay(error) {{
    close();
    var d = document.createElement("div");
    d.id = "agentx-overlay";
    d.setAttribute("role", "alert");
    line(d, "overlay-title", "Build failed: showing the last good site");
    line(d, "overlay-cause", error.cause || error.message);
    if (error.consequence) line(d, "overlay-then", "Consequence: " + error.consequence);
    var b = document.createElement("button");
    b.type = "button";
    b.className = "overlay-close";
    b.setAttribute("aria-label", "Close the build error");
    b.textContent = "×";
    b.addEventListener("click", close);
    d.appendChild(b);
    document.body.appendChild(d);
  }}
  document.addEventListener("keydown", function (e) {{
    if (e.key === "Escape") close();
  }});
  es.addEventListener("hello", function (e) {{
    if (Number(e.data) !== generation) location.reload();
  }});
  es.addEventListener("reload", function () {{ location.reload(); }});
  es.addEventListener("build-error", function (e) {{ overlay(JSON.parse(e.data)); }});
}})();"#
    )
}

/// `page` with the live-reload script's generation slot filled in with
/// `generation`; other files as they are. The script is the last thing in a
/// page, so the slot is looked for from the end, once.
pub(super) fn with_generation(path: &str, page: &[u8], generation: u64) -> Option<Vec<u8>> {
    if !path.ends_with(".html") {
        return None;
    }
    let slot = GENERATION_SLOT.as_bytes();
    let at = page.windows(slot.len()).rposition(|w| w == slot)?;
    let number = generation.to_string();
    let mut out = Vec::with_capacity(page.len() - slot.len() + number.len());
    out.extend_from_slice(&page[..at]);
    out.extend_from_slice(number.as_bytes());
    out.extend_from_slice(&page[at + slot.len()..]);
    Some(out)
}

/// A failed build as the overlay shows it: the root cause of the error
/// chain first (a data file's `file:line:column: what is wrong`), then what
/// it broke (the outer messages: the directive that could not expand), and
/// the whole message as the terminal printed it.
pub(super) fn build_error_event(e: &anyhow::Error) -> serde_json::Value {
    let chain: Vec<String> = e.chain().map(|c| c.to_string()).collect();
    let (cause, outer) = chain.split_last().expect("an error has a message");
    serde_json::json!({
        "message": format!("{e:#}"),
        "cause": cause,
        "consequence": (!outer.is_empty()).then(|| outer.join(": ")),
    })
}

pub(super) fn sse_event(name: &str, data: &str) -> String {
    let mut s = format!("event: {name}\n");
    for line in data.lines() {
        s.push_str(&format!("data: {line}\n"));
    }
    if data.is_empty() {
        s.push_str("data: \n");
    }
    s.push('\n');
    s
}

pub(super) fn event_stream(mut stream: TcpStream, shared: &Shared) -> Result<()> {
    stream.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: keep-alive\r\n\r\n",
    )?;
    let (tx, rx) = mpsc::channel::<String>();
    {
        let site = shared.site.read().expect("site lock");
        let mut hello = sse_event("hello", &site.generation.to_string());
        if let Some(data) = &site.error {
            hello.push_str(&sse_event("build-error", data));
        }
        stream.write_all(hello.as_bytes())?;
        stream.flush()?;
        shared.clients.lock().expect("clients lock").push(tx);
    }
    // The read side only tells us when the client goes away.
    let mut probe = stream.try_clone()?;
    probe.set_read_timeout(Some(Duration::from_millis(1)))?;
    loop {
        match rx.recv_timeout(Duration::from_secs(15)) {
            Ok(event) => stream.write_all(event.as_bytes())?,
            // A comment line keeps proxies from closing an idle stream.
            Err(RecvTimeoutError::Timeout) => stream.write_all(b": keep-alive\n\n")?,
            Err(RecvTimeoutError::Disconnected) => return Ok(()),
        }
        stream.flush()?;
        let mut buf = [0u8; 1];
        if let Ok(0) = probe.read(&mut buf) {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlay_leads_with_the_root_cause() {
        let e = anyhow::anyhow!("content/agentx/x.json:128:4: malformed JSON: trailing comma")
            .context("unknown page `X` (known pages: Y); 1 data file(s) failed to load and may define it")
            .context("content/models/x.md:8:1");
        let v = build_error_event(&e);
        assert_eq!(
            v["cause"],
            "content/agentx/x.json:128:4: malformed JSON: trailing comma"
        );
        assert_eq!(
            v["consequence"],
            "content/models/x.md:8:1: unknown page `X` (known pages: Y); 1 data file(s) failed to load and may define it"
        );
        assert_eq!(
            v["message"],
            format!(
                "{}: {}",
                v["consequence"].as_str().unwrap(),
                v["cause"].as_str().unwrap()
            )
        );
        let single = build_error_event(&anyhow::anyhow!("book.toml: bad"));
        assert_eq!(single["cause"], "book.toml: bad");
        assert!(single["consequence"].is_null());
    }

    #[test]
    fn served_pages_carry_their_generation() {
        let page = format!(
            "<p>{GENERATION_SLOT}</p><script>{}</script>",
            live_reload_script()
        );
        let served =
            String::from_utf8(with_generation("a/b.html", page.as_bytes(), 42).unwrap()).unwrap();
        // Only the script's slot (the last one) is filled in.
        assert!(
            served.starts_with(&format!("<p>{GENERATION_SLOT}</p>")),
            "{served}"
        );
        assert!(served.contains("var generation = 42;"), "{served}");
        assert_eq!(served.matches(GENERATION_SLOT).count(), 1);
        assert_eq!(with_generation("a/b.js", page.as_bytes(), 42), None);
        assert_eq!(with_generation("a.html", b"<p>no script</p>", 42), None);
    }

    #[test]
    fn sse_format() {
        assert_eq!(sse_event("reload", "3"), "event: reload\ndata: 3\n\n");
        assert_eq!(sse_event("x", "a\nb"), "event: x\ndata: a\ndata: b\n\n");
    }
}
