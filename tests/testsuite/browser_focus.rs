//! What axe-core does not check (its colour rule covers text only): the
//! non-text contrast of controls and their keyboard focus, WCAG 2.1 AA
//! 1.4.11 and 2.4.7. On the page as it is open, in the browser:
//! - every visible button and text field has a border of at least 3:1 against
//!   the background around it;
//! - every visible keyboard-focusable element (links, buttons, fields,
//!   `summary`, `tabindex` ≥ 0), focused from script with no pointer used,
//!   matches `:focus-visible` and draws an outline at least 2 px wide whose
//!   colour reaches 3:1 against the background it is drawn on.
//!
//! Called from [`crate::browser_chrome`] on each page type in both schemes.

use serde_json::{Value, json};

use crate::browser::Driver;

/// The check, run in the page; returns `{ checked, problems }`.
const SCRIPT: &str = r#"
function rgba(s) {
  var m = s.match(/rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/);
  return m ? [+m[1], +m[2], +m[3], m[4] === undefined ? 1 : +m[4]] : null;
}
function lum(c) {
  var v = c.slice(0, 3).map(function (x) { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
  return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
}
function ratio(a, b) { var x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); }
// The first opaque background at or above `el` (the page's when none is).
function background(el) {
  for (; el && el.nodeType === 1; el = el.parentElement) {
    var c = rgba(getComputedStyle(el).backgroundColor);
    if (c && c[3] > 0.5) return c;
  }
  return rgba(getComputedStyle(document.body).backgroundColor) || [255, 255, 255, 1];
}
function shown(el) {
  var r = el.getBoundingClientRect(), s = getComputedStyle(el);
  return r.width > 0 && r.height > 0 && s.visibility === 'visible';
}
function name(el) {
  return el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : '') +
    ' "' + (el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 40) + '"';
}
var problems = [], checked = { borders: 0, focus: 0 };
document.querySelectorAll('button, input:not([type=hidden])').forEach(function (el) {
  if (!shown(el)) return;
  var s = getComputedStyle(el);
  if (parseFloat(s.borderTopWidth) === 0) return;
  checked.borders++;
  var r = ratio(rgba(s.borderTopColor), background(el.parentElement));
  if (r < 3) problems.push('border ' + r.toFixed(2) + ':1 ' + name(el));
});
var focusable = 'a[href], button, input:not([type=hidden]), summary, [tabindex]';
// Queried again for each element: focusing one may re-render others (the
// search box redraws its results).
for (var i = 0; i < document.querySelectorAll(focusable).length; i++) (function (el) {
  if (!shown(el) || el.disabled || el.tabIndex < 0) return;
  el.focus({ preventScroll: true });
  if (document.activeElement !== el) return;
  checked.focus++;
  var s = getComputedStyle(el);
  var width = parseFloat(s.outlineWidth);
  if (!el.matches(':focus-visible') || s.outlineStyle === 'none' || width < 2) {
    problems.push('no visible focus (' + s.outlineStyle + ' ' + s.outlineWidth + ') ' + name(el));
    return;
  }
  var behind = parseFloat(s.outlineOffset) < 0 ? background(el) : background(el.parentElement);
  var r = ratio(rgba(s.outlineColor), behind);
  if (r < 3) problems.push('focus ring ' + r.toFixed(2) + ':1 ' + name(el));
})(document.querySelectorAll(focusable)[i]);
if (document.activeElement) document.activeElement.blur();
return { checked: checked, problems: problems.slice(0, 20), count: problems.length };
"#;

/// Problems with the controls and the focus of the open page, each prefixed
/// with `what`; prints how many elements were checked.
pub(crate) fn controls_and_focus(d: &Driver, what: &str) -> Vec<String> {
    let r: Value = d.exec(SCRIPT, json!([]));
    let checked = &r["checked"];
    eprintln!(
        "controls, {what}: {} borders and {} focus rings checked, {} problems",
        checked["borders"], checked["focus"], r["count"]
    );
    assert!(
        checked["focus"].as_u64().unwrap_or(0) > 0,
        "{what}: nothing focusable was checked: {r}"
    );
    r["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| format!("{what}: {}", p.as_str().unwrap()))
        .collect()
}

/// The check can fail: a pale-bordered button without a focus ring, planted
/// in the open page, is reported twice.
pub(crate) fn planted_control_is_caught(d: &Driver) {
    d.exec(
        "var b = document.createElement('button'); b.textContent = 'planted';
         b.style.cssText = 'border:1px solid #e0e0e0;outline:none;background:inherit';
         document.querySelector('main').appendChild(b);",
        json!([]),
    );
    let p = controls_and_focus(d, "planted");
    assert!(
        p.iter()
            .any(|p| p.contains("border") && p.contains("planted"))
            && p.iter()
                .any(|p| p.contains("no visible focus") && p.contains("planted")),
        "a 1.3:1 border and a missing focus ring went unnoticed: {p:?}"
    );
}
