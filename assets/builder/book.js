// mdbook-agentx builder chrome: Copy buttons, permalinks to command sets,
// the phone sidebar, keyboard keys and search.
// Works from file:// and plain http:// (no fetch(); the clipboard falls back
// from the async API); without JavaScript the page stays fully readable.
(function () {
  "use strict";

  // Last text put on the clipboard, readable by browser tests.
  window.__agentxLastCopy = null;

  // One polite live region: "Copied Prefill worker" is announced.
  var announcer = document.createElement("div");
  announcer.className = "visually-hidden";
  announcer.setAttribute("role", "status");
  announcer.setAttribute("aria-live", "polite");
  announcer.id = "agentx-announce";
  document.body.appendChild(announcer);
  function announce(text) {
    announcer.textContent = "";
    setTimeout(function () { announcer.textContent = text; }, 50);
  }

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

  // What a button copies, from its name ("Copy Prefill worker" → "Prefill worker").
  function copiedWhat(button) {
    var name = button.getAttribute("aria-label") || "";
    return name.replace(/^Copy (link to )?/, "");
  }

  // Copy and Copy link of the static pages live here (the AgentX assets
  // mark a set opened by its link); they keep the button names, the
  // "Copied" announcement and the Copy link outside the heading.
  document.addEventListener("click", function (ev) {
    var b = ev.target.closest && ev.target.closest("button");
    if (!b) return;
    if (b.classList.contains("copy-code")) {
      copyText(codeText(b)).then(function () {
        flash(b, "Copied");
        announce("Copied " + copiedWhat(b));
      });
    } else if (b.classList.contains("copy-link")) {
      ev.preventDefault();
      copyText(linkFor(b.getAttribute("data-anchor"))).then(function () {
        flash(b, "Link copied");
        announce("Link copied to " + copiedWhat(b));
      });
    }
  });

  // A command set opened by its link is marked by agentx.js (the AgentX
  // assets own the sets: the window, where it shows, and when to mark it).

  // ---- Sidebar: scrolled to the current page; a drawer on phones. ----
  var sidebar = document.getElementById("sidebar");
  var toggle = document.querySelector(".menu-toggle");
  var backdrop = null;
  function scrollSidebarToCurrent() {
    var a = sidebar && sidebar.querySelector("[aria-current=page]");
    if (!a) return;
    var top = a.getBoundingClientRect().top - sidebar.getBoundingClientRect().top;
    sidebar.scrollTop += top - sidebar.clientHeight / 3;
  }
  function sidebarOpen() { return document.body.classList.contains("sidebar-open"); }
  function setSidebar(open, focusAfter) {
    if (!sidebar || !toggle) return;
    document.body.classList.toggle("sidebar-open", open);
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
    if (open) {
      backdrop = document.createElement("div");
      backdrop.className = "sidebar-backdrop";
      backdrop.addEventListener("click", function () { setSidebar(false, true); });
      document.body.appendChild(backdrop);
      scrollSidebarToCurrent();
      var first = sidebar.querySelector("[aria-current=page]") || sidebar.querySelector("a");
      if (first) first.focus();
    } else {
      if (backdrop) { backdrop.remove(); backdrop = null; }
      if (focusAfter) toggle.focus();
    }
  }
  if (toggle) {
    toggle.addEventListener("click", function () { setSidebar(!sidebarOpen(), true); });
  }
  // Tabbing out of the open drawer closes it.
  document.addEventListener("focusin", function (ev) {
    if (sidebarOpen() && !sidebar.contains(ev.target) && ev.target !== toggle) setSidebar(false, false);
  });
  window.addEventListener("resize", function () {
    if (sidebarOpen() && getComputedStyle(toggle).display === "none") setSidebar(false, false);
  });
  scrollSidebarToCurrent();

  // ---- Keys: / or s searches; ← and → go to the previous and next chapter. ----
  function typing(el) {
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  }
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && sidebarOpen()) { setSidebar(false, true); return; }
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.defaultPrevented || typing(ev.target)) return;
    if ((ev.key === "/" || ev.key === "s") && search.input) {
      ev.preventDefault();
      search.input.focus();
      search.input.select();
    } else if ((ev.key === "ArrowLeft" || ev.key === "ArrowRight") && !ev.shiftKey) {
      if (search.panel && search.panel.contains(ev.target)) return;
      var link = document.querySelector(ev.key === "ArrowLeft" ? ".pager a[rel=prev]" : ".pager a[rel=next]");
      if (link) { ev.preventDefault(); location.href = link.href; }
    }
  });

  // ---- Search over what a reader knows (index: src/site/search.rs). ----
  var search = {
    box: document.querySelector(".search"),
    input: document.getElementById("search-input"),
    panel: document.getElementById("search-panel"),
    status: document.getElementById("search-status"),
    list: document.getElementById("search-results"),
    index: null,
    loading: false,
    waiting: [],
  };
  var SHOWN = 50;
  var WEIGHT = { title: 8, id: 6, ctx: 4, body: 1 };
  var KIND_ORDER = { page: 0, set: 1, heading: 2 };
  var BADGES = {
    "verified": "✓ Verified",
    "verified-pr": "✓ Verified · PR pending merge",
    "in-progress": "◐ In progress",
    "derived": "Derived — not run",
  };
  // Same rules as src/site/tokens.rs (normalize, is_word_break, is_part_break).
  var WORD_BREAK = /[\s,;()\[\]{}<>"'`|·»—–+*!?\\✓◐]+/;
  var PART_BREAK = /[-_/.=:#$@]+/;
  function normalizeWord(w) {
    return w.replace(/^[-$#]+/, "").replace(/[.:=,]+$/, "").toLowerCase();
  }

  function prepare(raw) {
    var ids = new Map();
    raw.w.forEach(function (w, i) { ids.set(w, i); });
    var pages = raw.p.map(function (p) {
      return { title: p[0], url: p[1], anchors: p[2], model: p[3], status: p[4],
               t: new Set(p[5]), c: new Set(p[6]), i: new Set(p[7]), s: new Set(p[8]) };
    });
    return { ids: ids, pages: pages, headings: raw.h, sets: raw.s,
             groups: raw.g.map(function (g) { return new Set(g); }) };
  }

  // Calls `done` once the index is there: it is injected as a script on
  // first use (or parsed from the single file's inline JSON).
  function loadIndex(done) {
    if (search.index) { done(); return; }
    search.waiting.push(done);
    var ready = function () {
      search.index = prepare(window.AGENTX_SEARCH_INDEX);
      var w = search.waiting;
      search.waiting = [];
      w.forEach(function (f) { f(); });
    };
    if (window.AGENTX_SEARCH_INDEX) { ready(); return; }
    var inline = document.getElementById("agentx-search-data");
    if (inline) {
      window.AGENTX_SEARCH_INDEX = JSON.parse(inline.textContent);
      ready();
      return;
    }
    if (search.loading) return;
    search.loading = true;
    var s = document.createElement("script");
    s.src = document.body.getAttribute("data-search-index");
    s.onload = ready;
    s.onerror = function () { showStatus("The search index could not be loaded."); };
    document.head.appendChild(s);
  }

  // The query's words; a count and its noun (`12 gpus`, `2 node`) are one
  // word, as the index holds sizes (`12gpus`, `2nodes`: src/site/search.rs).
  function queryWords(query) {
    var words = query.split(WORD_BREAK).map(normalizeWord).filter(Boolean), out = [];
    for (var i = 0; i < words.length; i++) {
      if (/^\d+$/.test(words[i]) && /^(gpus?|nodes?)$/.test(words[i + 1] || "")) {
        out.push(words[i] + words[i + 1]);
        i++;
      } else {
        out.push(words[i]);
      }
    }
    return out;
  }

  // Each query word must be a whole token; a word the index does not hold
  // as a whole (`gb200/agg`) must hold all its parts. Null: nothing can match.
  function required(query) {
    var out = [];
    var words = queryWords(query);
    for (var k = 0; k < words.length; k++) {
      var id = search.index.ids.get(words[k]);
      if (id !== undefined) { out.push(id); continue; }
      var parts = words[k].split(PART_BREAK).filter(Boolean);
      if (!parts.length) continue;
      for (var j = 0; j < parts.length; j++) {
        var pid = search.index.ids.get(parts[j]);
        if (pid === undefined) return null;
        out.push(pid);
      }
    }
    return out.filter(function (v, i, a) { return a.indexOf(v) === i; });
  }

  function has(field, id) { return field.has ? field.has(id) : field.indexOf(id) >= 0; }

  // The entry's score: per required token, the weight of the best field
  // holding it; 0 when one is missing.
  function score(req, fields) {
    var total = 0;
    for (var k = 0; k < req.length; k++) {
      var best = 0;
      for (var f = 0; f < fields.length; f++) {
        if (fields[f][1] > best && has(fields[f][0], req[k])) best = fields[f][1];
      }
      if (!best) return 0;
      total += best;
    }
    return total;
  }

  // `sglang` without `dynamo` names the SGLang router (every set runs
  // SGLang; "Dynamo + SGLang" is the other router): src/site/search.rs.
  function sglangRouterOnly(query) {
    var words = queryWords(query);
    return words.indexOf("sglang") >= 0 && !words.some(function (w) { return w.indexOf("dynamo") === 0; });
  }

  function run(query) {
    var req = required(query);
    if (!req || !req.length) return [];
    var ix = search.index, hits = [], order = 0, sglangOnly = sglangRouterOnly(query);
    ix.pages.forEach(function (p, n) {
      var s = score(req, [[p.t, WEIGHT.title], [p.i, WEIGHT.id], [p.c, WEIGHT.ctx], [p.s, WEIGHT.ctx]]);
      if (s) hits.push({ kind: "page", score: s, page: p, title: p.title, url: p.url, status: p.status, order: order++, n: n });
    });
    ix.sets.forEach(function (e) {
      if (sglangOnly && e[8] === "dynamo") return;
      var p = ix.pages[e[0]];
      var s = score(req, [[e[4], WEIGHT.title], [e[6], WEIGHT.id], [p.i, WEIGHT.id], [e[5], WEIGHT.ctx],
                          [p.t, WEIGHT.ctx], [p.c, WEIGHT.ctx], [ix.groups[e[7]], WEIGHT.body]]);
      if (s) hits.push({ kind: "set", score: s, page: p, title: e[2], url: p.anchors + e[1], status: e[3], order: order++ });
    });
    ix.headings.forEach(function (e) {
      var p = ix.pages[e[0]];
      var s = score(req, [[e[3], WEIGHT.title], [p.i, WEIGHT.id], [p.t, WEIGHT.ctx], [p.c, WEIGHT.ctx]]);
      if (s) hits.push({ kind: "heading", score: s, page: p, title: e[1], url: p.anchors + e[2], status: "", order: order++ });
    });
    // Best score first; then pages, launches, headings; measured launches
    // before derived ones; then reading order.
    hits.sort(function (a, b) {
      return b.score - a.score || KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
        (a.status === "derived") - (b.status === "derived") || a.order - b.order;
    });
    return hits;
  }

  // `model » deployment » set`: the path above, the hit in bold.
  function pathOf(hit) {
    var p = hit.page, parts = [];
    if (hit.kind === "page") {
      if (p.model) parts.push(p.model);
    } else {
      if (p.model) parts.push(p.model);
      parts.push(p.title);
    }
    return parts.join(" » ");
  }

  function showStatus(text) { search.status.textContent = text; }

  function render() {
    var q = search.input.value.trim();
    search.list.textContent = "";
    if (!q) { closePanel(); return; }
    openPanel();
    if (!search.index) { showStatus("Loading the search index…"); return; }
    var hits = run(q);
    var root = document.body.getAttribute("data-root") || "";
    hits.slice(0, SHOWN).forEach(function (hit) {
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = (hit.url.charAt(0) === "#" ? "" : root) + hit.url;
      a.setAttribute("data-kind", hit.kind);
      var path = pathOf(hit);
      if (path) {
        var ps = document.createElement("span");
        ps.className = "sr-path";
        ps.textContent = path + " »";
        a.appendChild(ps);
        a.appendChild(document.createTextNode(" "));
      }
      var t = document.createElement("span");
      t.className = "sr-title";
      t.textContent = hit.title;
      a.appendChild(t);
      if (hit.status && BADGES[hit.status]) {
        var b = document.createElement("span");
        b.className = "badge badge-" + hit.status;
        b.textContent = BADGES[hit.status];
        a.appendChild(document.createTextNode(" "));
        a.appendChild(b);
      }
      a.addEventListener("click", function () { closePanel(); });
      li.appendChild(a);
      search.list.appendChild(li);
    });
    var n = hits.length;
    if (!n) {
      showStatus("No results for “" + q + "”. Every word must match: try fewer words, a model, a GPU, a concurrency such as c16, or a flag.");
    } else if (n > SHOWN) {
      showStatus(n + " results; showing the best " + SHOWN + ". Add a word to narrow them.");
    } else {
      showStatus(n === 1 ? "1 result" : n + " results");
    }
  }

  function openPanel() { search.panel.hidden = false; }
  function closePanel() { search.panel.hidden = true; }
  function resultLinks() { return Array.prototype.slice.call(search.list.querySelectorAll("a")); }

  if (search.box && search.input) {
    search.box.hidden = false;
    var start = function () { loadIndex(render); };
    search.input.addEventListener("focus", function () { loadIndex(function () {}); if (search.input.value.trim()) start(); });
    search.input.addEventListener("input", start);
    search.input.addEventListener("keydown", function (ev) {
      var links = resultLinks();
      if (ev.key === "ArrowDown" && links.length) { ev.preventDefault(); openPanel(); links[0].focus(); }
      else if (ev.key === "Enter" && links.length && !search.panel.hidden) { ev.preventDefault(); links[0].click(); }
      else if (ev.key === "Escape") {
        ev.preventDefault();
        if (!search.panel.hidden) closePanel(); else { search.input.value = ""; search.input.blur(); }
      }
    });
    search.list.addEventListener("keydown", function (ev) {
      var links = resultLinks(), i = links.indexOf(document.activeElement);
      if (ev.key === "ArrowDown" && i < links.length - 1) { ev.preventDefault(); links[i + 1].focus(); }
      else if (ev.key === "ArrowUp") { ev.preventDefault(); (i > 0 ? links[i - 1] : search.input).focus(); }
      else if (ev.key === "Escape") { ev.preventDefault(); closePanel(); search.input.focus(); }
    });
    document.addEventListener("click", function (ev) {
      if (!search.box.contains(ev.target)) closePanel();
    });
  }
  // For tests and scripts: the ranked hits of a query, once the index is loaded.
  window.__agentxSearch = function (query, done) {
    loadIndex(function () { done(run(query).map(function (h) {
      return { kind: h.kind, path: pathOf(h), title: h.title, url: h.url, status: h.status, score: h.score };
    })); });
  };
})();
