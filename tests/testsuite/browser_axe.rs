//! Chromium helpers the browser tests share: asynchronous scripts, the
//! DevTools protocol (viewport, colour scheme) and axe-core.

use serde_json::{Value, json};

use std::path::PathBuf;

use crate::browser::Driver;
use crate::support;

/// Runs an asynchronous script: it ends by calling its last argument.
pub(crate) fn exec_async(d: &Driver, script: &str, args: Value) -> Value {
    d.cmd(
        "POST",
        "/execute/async",
        Some(json!({ "script": script, "args": args })),
    )
}

/// A Chrome DevTools command (media emulation, device metrics, downloads).
pub(crate) fn cdp(d: &Driver, cmd: &str, params: Value) -> Value {
    d.cmd(
        "POST",
        "/goog/cdp/execute",
        Some(json!({ "cmd": cmd, "params": params })),
    )
}

/// The WebDriver id of the first element matching `css`.
pub(crate) fn element_id(d: &Driver, css: &str) -> String {
    let e = d.cmd(
        "POST",
        "/element",
        Some(json!({"using": "css selector", "value": css})),
    );
    let id = e.as_object().unwrap().values().next().unwrap();
    id.as_str().unwrap().to_string()
}

/// Whether a missing axe-core fails the test: in CI (`CI=true`, which also
/// sets `AGENTX_REQUIRE_BROWSER` and `AGENTX_REQUIRE_SHARED=1`) it must run.
fn axe_required() -> bool {
    let set = |name: &str, value: Option<&str>| {
        std::env::var(name).is_ok_and(|v| value.is_none_or(|want| v == want))
    };
    set("AGENTX_REQUIRE_BROWSER", None)
        || set("AGENTX_REQUIRE_SHARED", Some("1"))
        || set("CI", Some("true"))
}

/// The axe-core script, or `None` (the test is skipped) when it is not
/// installed and [`axe_required`] is false.
pub(crate) fn axe_source() -> Option<String> {
    let path = std::env::var_os("AGENTX_AXE")
        .map(PathBuf::from)
        .unwrap_or_else(|| support::repo().join("target/axe/node_modules/axe-core/axe.min.js"));
    match std::fs::read_to_string(&path) {
        Ok(s) => Some(s),
        Err(e) if axe_required() => panic!(
            "axe-core is required here (CI, AGENTX_REQUIRE_BROWSER or AGENTX_REQUIRE_SHARED=1) \
             but {} cannot be read ({e}): run `npm install --no-save --prefix target/axe axe-core@4`",
            path.display()
        ),
        Err(_) => {
            eprintln!(
                "SKIPPED: axe-core is not installed ({}); run `npm install --no-save --prefix target/axe axe-core@4`",
                path.display()
            );
            None
        }
    }
}

/// Window size and colour scheme of the next page loads.
pub(crate) fn view(d: &Driver, width: u32, height: u32, dark: bool) {
    cdp(
        d,
        "Emulation.setDeviceMetricsOverride",
        json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 500}),
    );
    let scheme = if dark { "dark" } else { "light" };
    cdp(
        d,
        "Emulation.setEmulatedMedia",
        json!({"features": [{"name": "prefers-color-scheme", "value": scheme}]}),
    );
}

/// mdBook's own menu bar and sidebar, as axe contexts: mdBook 0.5.4's
/// sidebar toggle (a `label` with `aria-expanded` and `aria-label`) has
/// critical and serious findings of its own, mdBook's markup, kept intact.
pub(crate) const MDBOOK_OWN: [[&str; 1]; 2] = [["#mdbook-menu-bar"], ["#mdbook-sidebar"]];

/// The serious and critical axe violations of the page as it is now.
pub(crate) fn axe_violations(d: &Driver, axe: &str) -> Vec<String> {
    axe_violations_in(d, axe, Value::Null)
}

/// [`axe_violations`] in axe's `context` (the whole page when null): under
/// mdBook, everything but mdBook's own menu bar and sidebar.
pub(crate) fn axe_violations_in(d: &Driver, axe: &str, context: Value) -> Vec<String> {
    d.exec(
        "if (!window.axe) { var s = document.createElement('script'); s.textContent = arguments[0]; document.head.appendChild(s); }",
        json!([axe]),
    );
    let r = exec_async(
        d,
        "var done = arguments[arguments.length - 1];
         axe.run(arguments[0] || document, { resultTypes: ['violations'], preload: false }).then(function (r) {
           done(r.violations.filter(function (v) { return v.impact === 'serious' || v.impact === 'critical'; })
             .map(function (v) { return v.impact + ' ' + v.id + ' (' + v.help + '): ' + v.nodes.length + ' nodes, e.g. ' +
               v.nodes.slice(0, 3).map(function (n) { return n.target.join(' ') + ' — ' + n.failureSummary; }).join(' | '); }));
         }, function (e) { done(['axe failed: ' + e]); });",
        json!([context]),
    );
    r.as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}
