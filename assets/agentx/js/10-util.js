
  // ---- Small helpers: elements, copying, downloading, scrolling ----
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) {
      if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]);
    }
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // .md links of the data → the built pages' .html.
  function pageHref(href) { return href.replace(/\.md(#|$)/, ".html$1"); }
  function setOf(anchor) {
    return document.querySelector('div.agentx-set[data-anchor="' + anchor.replace(/"/g, "") + '"]');
  }
  function hashId() {
    try { return decodeURIComponent(location.hash.slice(1)); } catch (e) { return ""; }
  }

  // One polite live region ("Copied Prefill worker" is announced): the
  // builder's, or one of our own under mdBook.
  function announce(text) {
    var region = document.getElementById("agentx-announce");
    if (!region) {
      region = el("div", { id: "agentx-announce", "class": "agentx-visually-hidden", role: "status",
        "aria-live": "polite" });
      document.body.appendChild(region);
    }
    region.textContent = "";
    setTimeout(function () { region.textContent = text; }, 50);
  }
  function flash(button, label) {
    var old = button.getAttribute("data-label") || button.textContent;
    button.setAttribute("data-label", old);
    button.textContent = label;
    setTimeout(function () { button.textContent = old; }, 1500);
  }

  window.__agentxLastCopy = null;
  window.__agentxLastDownload = null;
  function fallbackCopy(text) {
    var ta = el("textarea", { readonly: "" });
    ta.value = text;
    ta.style.position = "fixed";
    ta.style.opacity = "0";
    document.body.appendChild(ta);
    ta.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(ta);
    return ok;
  }
  // Copies `text`; the button says so, and "Copied <what>" is announced.
  function copyText(text, button, what) {
    window.__agentxLastCopy = text;
    var done = function () {
      flash(button, "Copied");
      announce("Copied " + (what || "to the clipboard"));
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
    } else {
      fallbackCopy(text);
      done();
    }
  }
  // Saves `text` as the file `name`: the same bytes as the block's Copy.
  function download(text, name, button) {
    window.__agentxLastDownload = { name: name, text: text };
    var url = URL.createObjectURL(new Blob([text], { type: "text/x-shellscript" }));
    var a = el("a", { href: url, download: name });
    a.style.display = "none";
    document.body.appendChild(a);
    a.click();
    document.body.removeChild(a);
    setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
    flash(button, "Downloaded");
    announce("Downloaded " + name);
  }
  // `1 · Prefill worker` → `1-prefill-worker.sh`
  function scriptName(title) {
    return title.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") + ".sh";
  }
  // A code block's exact text (its `pre > code`): without the final newline
  // the HTML adds. Our builder wraps each in div.codeblock, mdBook does not.
  function codeText(code) {
    return code ? code.textContent.replace(/\n$/, "") : "";
  }

  // The bottom of the host's sticky or fixed top bar (the builder's 56 px
  // .topbar, mdBook's menu bar), 0 when none covers the page's top now.
  function barBottom() {
    var bottom = 0;
    var e = document.elementFromPoint(Math.floor(window.innerWidth / 2), 1);
    for (; e && e !== document.body && e !== document.documentElement; e = e.parentElement) {
      var p = getComputedStyle(e).position;
      if (p === "fixed" || p === "sticky") {
        var r = e.getBoundingClientRect();
        if (r.top <= 1) bottom = Math.max(bottom, r.bottom);
      }
    }
    return bottom;
  }
  // Scrolls so that `first` to `last` shows below the top bar: not at all
  // when they do, to the page's top when they fit from there, else to
  // `first` just below the bar.
  function reveal(first, last) {
    var bar = barBottom(), a = first.getBoundingClientRect().top, b = last.getBoundingClientRect().bottom;
    if (a >= bar && b <= window.innerHeight) return;
    var y = window.pageYOffset;
    if (b + y <= window.innerHeight && a + y >= bar) { window.scrollTo(0, 0); return; }
    // Both fit: the first just below the bar. Else (the rows stacked on a
    // phone) the last whole, at the bottom of the view: it holds Copy all.
    if (b - a <= window.innerHeight - bar - 8) window.scrollTo(0, Math.max(0, a + y - bar - 8));
    else window.scrollTo(0, Math.max(0, b + y - window.innerHeight + 8));
  }

  // The launch a link led to is marked (a tint), and only then: not when
  // a chip or the page itself chose it.
  function markTargeted(node) {
    Array.prototype.forEach.call(document.querySelectorAll(".agentx-targeted"), function (e) {
      e.classList.remove("agentx-targeted");
    });
    if (node) node.classList.add("agentx-targeted");
  }
  // Whether this page was opened by following a link (not reloaded, nor
  // reached by back/forward).
  function followedLink() {
    var nav = window.performance && performance.getEntriesByType && performance.getEntriesByType("navigation")[0];
    return !nav || nav.type === "navigate";
  }
