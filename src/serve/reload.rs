//! Live reload: the client script every served page gets, and server-sent
//! events on the same port (`/__agentx/events`, addressed relative to the
//! page's location so IPv6 hosts and proxies work).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use anyhow::Result;

use super::*;

/// Path of the live-reload event stream.
pub(crate) const EVENTS_PATH: &str = "/__agentx/events";

/// The client script added to every served page. `generation` lets a page
/// loaded just before a rebuild notice it missed the reload.
pub(super) fn live_reload_script(generation: u64) -> String {
    format!(
        r#"(function () {{
  var generation = {generation};
  if (!window.EventSource) return;
  var es = new EventSource("{EVENTS_PATH}");
  function overlay(message) {{
    var d = document.getElementById("agentx-overlay");
    if (!d) {{
      d = document.createElement("div");
      d.id = "agentx-overlay";
      d.setAttribute("role", "alert");
      document.body.appendChild(d);
    }}
    d.textContent = "mdbook-agentx: the last build failed; showing the previous site.\n\n" + message;
  }}
  es.addEventListener("hello", function (e) {{
    if (Number(e.data) !== generation) location.reload();
  }});
  es.addEventListener("reload", function () {{ location.reload(); }});
  es.addEventListener("build-error", function (e) {{ overlay(JSON.parse(e.data).message); }});
}})();"#
    )
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
        if let Some(e) = &site.error {
            hello.push_str(&sse_event(
                "build-error",
                &serde_json::json!({ "message": e }).to_string(),
            ));
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
    fn sse_format() {
        assert_eq!(sse_event("reload", "3"), "event: reload\ndata: 3\n\n");
        assert_eq!(sse_event("x", "a\nb"), "event: x\ndata: a\ndata: b\n\n");
    }
}
