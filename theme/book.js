// mdbook-agentx: copy buttons, permalinks to command sets, and search.
// Works from file:// and plain http:// (falls back from the async clipboard API);
// without JavaScript the page stays fully readable.
(function () {
  "use strict";

  // Last text put on the clipboard, readable by browser tests.
  window.__agentxLastCopy = null;

  function fallbackCopy(text) {
    var ta = document.createElement("textarea");
    ta.value = text;
    ta.setAttribute("readonly", "");
    ta.style.position = "fixed";
    ta.style.opacity = "0";
    document.body.appendChild(ta);
    ta.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(ta);
    return ok;
  }

  function copyText(text) {
    window.__agentxLastCopy = text;
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).catch(function () { return fallbackCopy(text); });
    }
    return Promise.resolve(fallbackCopy(text));
  }

  function flash(button, label) {
    var old = button.getAttribute("data-label") || button.textContent;
    button.setAttribute("data-label", old);
    button.textContent = label;
    button.classList.add("copied");
    setTimeout(function () { button.textContent = old; button.classList.remove("copied"); }, 1500);
  }

  // The exact command text: the code's text without the final newline.
  function codeText(button) {
    var code = button.parentElement.querySelector("pre code");
    return code ? code.textContent.replace(/\n$/, "") : "";
  }

  function linkFor(anchor) {
    return location.href.split("#")[0] + "#" + anchor;
  }

  document.addEventListener("click", function (ev) {
    var b = ev.target.closest && ev.target.closest("button");
    if (!b) return;
    if (b.classList.contains("copy-code")) {
      copyText(codeText(b)).then(function () { flash(b, "Copied"); });
    } else if (b.classList.contains("copy-link")) {
      ev.preventDefault();
      copyText(linkFor(b.getAttribute("data-anchor"))).then(function () { flash(b, "Link copied"); });
    }
  });

  // Highlight the command set the URL points at: its heading and everything
  // up to the next heading of the same or a higher level.
  function highlightTarget() {
    var old = document.querySelectorAll(".targeted");
    for (var i = 0; i < old.length; i++) old[i].classList.remove("targeted");
    var id = decodeURIComponent(location.hash.slice(1));
    if (!id) return;
    var el = document.getElementById(id);
    if (!el || !el.classList.contains("agentx-set")) return;
    var level = Number(el.tagName.slice(1));
    el.classList.add("targeted");
    for (var n = el.nextElementSibling; n; n = n.nextElementSibling) {
      if (/^H[1-6]$/.test(n.tagName) && Number(n.tagName.slice(1)) <= level) break;
      n.classList.add("targeted");
    }
    el.scrollIntoView();
  }
  window.addEventListener("hashchange", highlightTarget);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", highlightTarget);
  } else {
    highlightTarget();
  }

  // Search over page titles, headings and command-set ids. The index is a
  // script (search-index.js), not fetched, so it works under file:// too.
  var input = document.getElementById("search-input");
  var list = document.getElementById("search-results");
  var root = document.body.getAttribute("data-root") || "";
  if (input && list) {
    input.addEventListener("input", function () {
      var q = input.value.trim().toLowerCase();
      list.innerHTML = "";
      var index = window.AGENTX_SEARCH_INDEX || [];
      if (q.length < 2) { list.hidden = true; return; }
      var terms = q.split(/\s+/);
      var hits = 0;
      for (var i = 0; i < index.length && hits < 30; i++) {
        var e = index[i];
        var hay = (e.t + " " + e.s).toLowerCase();
        var all = true;
        for (var j = 0; j < terms.length; j++) if (hay.indexOf(terms[j]) < 0) { all = false; break; }
        if (!all) continue;
        var li = document.createElement("li");
        var a = document.createElement("a");
        a.href = root + e.u;
        a.textContent = e.t;
        var k = document.createElement("span");
        k.className = "kind";
        k.textContent = e.k === "set" ? "launch" : e.k;
        li.appendChild(a);
        li.appendChild(k);
        list.appendChild(li);
        hits++;
      }
      list.hidden = hits === 0;
    });
  }
})();
