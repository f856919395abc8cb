/* mdbook-agentx 0.1.0 sha256:96cb09b7edb07b2b — written by `mdbook-agentx install`; run it again to update this file, do not edit it */
// mdbook-agentx reader assets: the launch picker of a model page, the
// selector of a deployment page, and their command windows (tabs, Copy,
// Copy all, Copy link, Download).
//
// Progressive enhancement only: every command set is in the deployment
// pages as static HTML (div.agentx-set), and without this script every
// page reads as it is. The data is emitted at build time from the decoded
// command sets: the model page's once for the whole model
// (script.agentx-model-data, src/render/model_data.rs), each deployment
// page's for itself (script.agentx-selector-data, src/render/selector.rs).
// Nothing is decoded or fetched here, so it works from file://; every
// text is put in with text nodes, never parsed as markup. Independent of
// the builder's chrome (book.js): it runs in mdBook's html output too.
//
// Built from the files of assets/agentx/js/, in name order, by
// src/preprocessor/assets.rs.
(function () {
  "use strict";

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

  // ---- The model page's data (src/render/model_data.rs) ----
  // Shared tables: `text` (each string once), `cmds` (texts of several
  // lines: line indices, or {b: base, d: edits}), `files`, `procs`,
  // `rich` (segments), `wins` (each set's window, by indices).
  function Tables(data) {
    this.d = data;
    this.memo = {};
  }
  // The line indices of cmds[i]: edits are splices `at, removed, n,
  // lines…` in the base's positions, applied last to first.
  Tables.prototype.lines = function (i) {
    if (this.memo[i]) return this.memo[i];
    var c = this.d.cmds[i], out;
    if (Array.isArray(c)) {
      out = c;
    } else {
      out = this.lines(c.b).slice();
      var splices = [], k = 0, d = c.d;
      while (k < d.length) {
        splices.push([d[k], d[k + 1], d.slice(k + 3, k + 3 + d[k + 2])]);
        k += 3 + d[k + 2];
      }
      for (var j = splices.length - 1; j >= 0; j--) {
        Array.prototype.splice.apply(out, [splices[j][0], splices[j][1]].concat(splices[j][2]));
      }
    }
    this.memo[i] = out;
    return out;
  };
  Tables.prototype.block = function (i) {
    var t = this.d.text;
    return this.lines(i).map(function (l) { return t[l]; }).join("\n");
  };
  Tables.prototype.file = function (i) {
    var f = this.d.files[i], t = this.d.text;
    return { name: t[f[0]], head: t[f[1]], content: this.block(f[2]), delim: t[f[3]] };
  };
  Tables.prototype.proc = function (i) {
    var p = this.d.procs[i], t = this.d.text, self = this;
    return { title: t[p[0]], long: t[p[1]], placement: t[p[2]], rich: this.d.rich[p[3]],
      command: this.block(p[4]), files: p[5].map(function (f) { return self.file(f); }) };
  };
  // One set's window: everything its command window shows.
  Tables.prototype.window = function (w) {
    var self = this, t = this.d.text;
    return {
      env: w.e === undefined ? null : this.block(w.e),
      procs: w.p.map(function (p) { return self.proc(p); }),
      loose: (w.l || []).map(function (f) { return self.file(f); }),
      notes: (w.n || []).map(function (n) { return self.d.rich[n]; }),
      changes: (w.c || []).map(function (c) { return self.change(c); }),
      base: w.cb === undefined ? null : t[w.cb],
      meta: w.m === undefined ? null : this.d.rich[w.m],
    };
  };
  // `[title, "+"]`, `[title, "-"]` or `[title, [added], [removed], [old,
  // new, …]]` → a rich line: `Prefill worker: added `a`, `b`; …`.
  Tables.prototype.change = function (c) {
    var t = this.d.text, out = [t[c[0]] + ": "];
    if (c[1] === "+") return out.concat(["added (not in the measured launch)"]);
    if (c[1] === "-") return out.concat(["removed"]);
    var parts = [];
    var codes = function (list) {
      var seg = [];
      list.forEach(function (l, i) { if (i) seg.push(", "); seg.push(["c", t[l]]); });
      return seg;
    };
    if (c[1].length) parts.push(["added "].concat(codes(c[1])));
    if (c[2].length) parts.push(["removed "].concat(codes(c[2])));
    if (c[3].length) {
      var seg = ["changed "];
      for (var i = 0; i < c[3].length; i += 2) {
        if (i) seg.push(", ");
        seg.push(["c", t[c[3][i]]], " → ", ["c", t[c[3][i + 1]]]);
      }
      parts.push(seg);
    }
    parts.forEach(function (p, i) { out = out.concat(i ? ["; "] : [], p); });
    return out;
  };

  // A config file in Copy all: a comment, then the here-document writing it.
  function fileCopy(f) {
    return "# " + f.name + " (written next to the commands)\n" + f.head + "\n" + f.content + "\n" + f.delim;
  }
  // Exactly what `mdbook-agentx decode FILE --cell … --conc … --kv …
  // --router …` prints (CommandSet::copy_all_text in src/decode/model.rs).
  function copyAllOf(win) {
    var parts = [];
    if (win.env !== null) parts.push("# Set per node before running the commands below\n" + win.env);
    win.procs.forEach(function (p) {
      var s = "# " + p.long + "\n# " + p.placement + "\n" + p.command;
      p.files.forEach(function (f) { s += "\n\n" + fileCopy(f); });
      parts.push(s);
    });
    win.loose.forEach(function (f) { parts.push(fileCopy(f)); });
    return parts.join("\n\n") + "\n";
  }

  // Rich text (segments: a string, ["c", code] or ["a", text, href]) as
  // nodes: text nodes only.
  function richNodes(segments, into) {
    (segments || []).forEach(function (s) {
      if (typeof s === "string") into.appendChild(document.createTextNode(s));
      else if (s[0] === "c") into.appendChild(el("code", {}, s[1]));
      else if (s[0] === "a") into.appendChild(el("a", { href: s[2] }, s[1]));
    });
    return into;
  }

  // The model page's sets are written short (src/render/selector.rs,
  // SetExtra): the anchor 0 when it is the usual one, made from the keys
  // ("c1 / c4" → c1-4), the label as an index into the shared texts. Here
  // they get the deployment page's shape.
  function expandModelData(data) {
    data.deps.forEach(function (d) {
      d.sets.forEach(function (s) {
        if (s[3] === 0) s[3] = [d.anchor, d.points[s[0]][0].replace(/ \/ c/g, "-"), s[1], s[2]].join("-");
        s[5] = data.text[s[5]];
      });
    });
  }

  // ---- The whole data from the book's data pages (mdBook's output) ----
  // Each page of `parts` (preprocessor/data_pages.rs) holds a piece of the
  // data's JSON text; it is opened in a hidden frame, where this script
  // posts the piece back (postDataPart): a frame loads from file:// too,
  // where a page can fetch nothing. Only a message from one of these frames
  // counts, and its piece is text, parsed as JSON by the caller.
  function readParts(parts, done, fail) {
    var frames = [], pieces = [], left = parts.length, over = false;
    var onMessage = function (ev) {
      for (var i = 0; i < frames.length; i++) {
        if (frames[i].contentWindow !== ev.source) continue;
        var piece = ev.data && ev.data.agentxDataPart;
        if (typeof piece === "string" && pieces[i] === undefined) {
          pieces[i] = piece;
          if (--left === 0) finish(true);
        }
      }
    };
    var timer = setTimeout(function () { finish(false); }, 20000);
    function finish(ok) {
      if (over) return;
      over = true;
      clearTimeout(timer);
      window.removeEventListener("message", onMessage);
      frames.forEach(function (f) { f.parentNode.removeChild(f); });
      if (ok) done(pieces.join("")); else fail();
    }
    window.addEventListener("message", onMessage);
    parts.forEach(function (p) {
      var f = el("iframe", { src: pageHref(p), hidden: "", tabindex: "-1", "aria-hidden": "true", title: "Launch data" });
      f.onerror = function () { finish(false); };
      frames.push(f);
      document.body.appendChild(f);
    });
  }

  // A data page opened by a picker's frame posts its piece to the picker.
  function postDataPart() {
    var s = document.querySelector("script.agentx-data-part");
    if (s && window.parent !== window) window.parent.postMessage({ agentxDataPart: s.textContent }, "*");
  }

  // ---- The choice: one command set, by its six keys ----
  // `data`: the model page's (every deployment) or a deployment page's
  // (its own); `mount`: the element the rows go into.
  // `prefix`: in the single file, the chapter's id prefix (`ch-x--`) its
  // URLs carry.
  function Selector(data, mount, prefix) {
    this.data = data;
    this.mount = mount;
    this.prefix = prefix || "";
    this.here = data.here || null; // the deployment this page holds, if any
    this.tables = data.text ? new Tables(data) : null; // the model page's
    this.all = false;
    this.tierLabel = {};
    this.routerLabel = {};
    var self = this;
    data.tiers.forEach(function (t) { self.tierLabel[t[0]] = t[1]; });
    data.routers.forEach(function (r) { self.routerLabel[r[0]] = r[1]; });
    // A deployment page's windows: its distinct processes, then per set
    // (in its sets' order) [Env Vars first, [processes], [loose files]].
    if (data.win && data.win.sets) {
      var table = data.win, win = {};
      data.deps[0].sets.forEach(function (s, i) {
        var w = table.sets[i];
        win[s[3]] = { env: !!w[0], procs: w[1].map(function (p) { return table.procs[p]; }), loose: w[2] };
      });
      data.win = win;
    }
    this.byAnchor = {};
    data.deps.forEach(function (d, di) {
      d.sets.forEach(function (s) {
        self.byAnchor[s[3]] = { dep: di, point: s[0], tier: s[1], router: s[2] };
      });
    });
  }

  // The deployments of `hw` (and `ckpt`, unless null) that the GPU budget
  // leaves (35-budget.js).
  Selector.prototype.depsOf = function (hw, ckpt) {
    return this.narrowed(this.data.deps
      .map(function (d, i) { return i; })
      .filter(function (i) {
        var d = this.data.deps[i];
        return d.hw === hw && (ckpt === null || d.ckpt === ckpt);
      }, this));
  };

  Selector.prototype.routersOf = function (dep) {
    var seen = {};
    dep.sets.forEach(function (s) { seen[s[2]] = true; });
    return this.data.routers.map(function (r) { return r[0]; }).filter(function (r) { return seen[r]; });
  };

  Selector.prototype.setFor = function (c) {
    var dep = this.data.deps[c.dep];
    for (var i = 0; i < dep.sets.length; i++) {
      var s = dep.sets[i];
      if (s[0] === c.point && s[1] === c.tier && s[2] === c.router) return s;
    }
    return null;
  };

  // The submitted, measured launch of a deployment's first point.
  Selector.prototype.initial = function (di) {
    var dep = this.data.deps[di];
    return { dep: di, point: 0, tier: dep.points[0][1], router: dep.submitted };
  };

  // A new choice after one row changed, by the widget's rules: another
  // hardware, checkpoint or deployment opens that deployment's measured
  // launch (its first point, the tier it was measured with, the router it
  // was submitted behind); hardware keeps the checkpoint and the
  // deployment's shape where they exist there. Concurrency, KV offload and
  // router keep the other two where they still exist.
  Selector.prototype.choose = function (row, value) {
    var c = this.choice, deps = this.data.deps, old = deps[c.dep];
    if (row === "hw" || row === "ckpt" || row === "dep") {
      var hw = row === "hw" ? value : old.hw;
      var ckpt = row === "ckpt" ? value : old.ckpt;
      var candidates = this.depsOf(hw, null);
      if (!candidates.some(function (i) { return deps[i].ckpt === ckpt; })) ckpt = deps[candidates[0]].ckpt;
      candidates = this.depsOf(hw, ckpt);
      var di = row === "dep" ? value : c.dep;
      if (candidates.indexOf(di) < 0) {
        var same = candidates.filter(function (i) { return deps[i].label === old.label; });
        di = same.length ? same[0] : candidates[0];
      }
      return this.initial(di);
    }
    var dep = deps[c.dep];
    var point = row === "point" ? value : c.point;
    var tier = row === "tier" ? value : c.tier;
    if (dep.available.indexOf(tier) < 0) tier = dep.points[point][1];
    var router = row === "router" ? value : c.router;
    if (this.routersOf(dep).indexOf(router) < 0) router = dep.submitted;
    var next = { dep: c.dep, point: point, tier: tier, router: router };
    if (!this.setFor(next)) next = this.initial(c.dep);
    return next;
  };

  // ---- The chips ----
  Selector.prototype.rows = function () {
    var c = this.choice, dep = this.data.deps[c.dep], self = this;
    var measured = dep.points[c.point][1];
    return (this.here ? [] : this.modelRows()).concat([
      { key: "point", title: "Concurrency", chips: dep.points.map(function (p, i) {
        return { value: i, text: p[0], on: i === c.point };
      }) },
      { key: "tier", title: "KV offload", chips: this.data.tiers.map(function (t) {
        var id = t[0], ok = dep.available.indexOf(id) >= 0;
        return { value: id, text: t[1] + (id === measured ? " ✓" : ""), on: id === c.tier, disabled: !ok,
          sub: !ok ? "not available for this image" : id === measured ? "as measured" : "derived",
          why: ok ? null : dep.unavailable[id] || "not offered for this deployment" };
      }) },
      { key: "router", title: "Router", chips: this.routersOf(dep).map(function (r) {
        return { value: r, text: self.routerLabel[r] + (r === dep.submitted ? " ✓" : ""), on: r === c.router,
          sub: r === dep.submitted ? "as submitted to SA" : "derived" };
      }) },
    ]);
  };

  // The rows only the model page has: its deployments are all in its data.
  Selector.prototype.modelRows = function () {
    var c = this.choice, deps = this.data.deps, dep = deps[c.dep], self = this;
    var hws = [];
    this.narrowed(deps.map(function (d, i) { return i; })).forEach(function (i) {
      if (hws.indexOf(deps[i].hw) < 0) hws.push(deps[i].hw);
    });
    hws.sort(function (a, b) { return a - b; });
    var ckpts = [];
    this.depsOf(dep.hw, null).forEach(function (i) { if (ckpts.indexOf(deps[i].ckpt) < 0) ckpts.push(deps[i].ckpt); });
    return [
      { key: "hw", title: "Hardware", chips: hws.map(function (h) {
        return { value: h, text: self.data.hw[h], on: h === dep.hw };
      }) },
      { key: "ckpt", title: "Checkpoint", chips: ckpts.map(function (k) {
        return { value: k, text: k, on: k === dep.ckpt };
      }) },
      { key: "dep", title: "Deployment", chips: this.depsOf(dep.hw, dep.ckpt).map(function (i) {
        return { value: i, text: deps[i].label, sub: deps[i].sub, on: i === c.dep };
      }), note: "Ordered from low latency (top) to high throughput (bottom)." },
    ];
  };

  Selector.prototype.renderChips = function () {
    var self = this, box = this.chipBox;
    box.textContent = "";
    this.rows().forEach(function (row) {
      var id = "agentx-row-" + row.key + "-" + self.uid;
      var r = el("div", { "class": "agentx-row agentx-row-" + row.key, role: "group", "aria-labelledby": id });
      r.appendChild(el("div", { "class": "agentx-row-title", id: id }, row.title));
      var chips = el("div", { "class": "agentx-chips" });
      row.chips.forEach(function (ch) {
        var b = el("button", { type: "button", "class": "agentx-chip", "aria-pressed": ch.on ? "true" : "false",
          "data-row": row.key, value: String(ch.value), title: ch.why || null });
        if (ch.disabled) b.disabled = true;
        b.appendChild(el("span", { "class": "agentx-chip-text" }, ch.text));
        if (ch.sub) b.appendChild(el("span", { "class": "agentx-chip-sub" }, ch.sub));
        b.addEventListener("click", function () {
          self.select(self.choose(row.key, ch.value), "push");
        });
        chips.appendChild(b);
      });
      r.appendChild(chips);
      if (row.note) r.appendChild(el("div", { "class": "agentx-row-note" }, row.note));
      box.appendChild(r);
    });
  };

  // `<model> · <hardware> · <deployment> · c… · <KV label> · <router label>`
  Selector.prototype.context = function (c) {
    var dep = this.data.deps[c.dep];
    return [this.data.model, this.data.hw[dep.hw], dep.label, dep.points[c.point][0],
      this.tierLabel[c.tier], this.routerLabel[c.router]].join(" · ");
  };

  // ---- The GPU budget: "I have N GPUs on M nodes" (the model page) ----
  // Off by default (both fields empty). With a budget, the picker's
  // hardware, checkpoint and deployment chips narrow to the deployments
  // that fit (`gpus` ≤ N, `nodes` ≤ M: GPUs per node differ by hardware,
  // so both are asked); an empty field is no limit. When nothing fits, a
  // status line says so and names the smallest deployment, and every chip
  // stays. The chosen launch is always among the chips; when a budget
  // rules it out, the picker moves to a launch that fits, by the selector
  // rules (a deployment switch opens its measured launch). Built once,
  // outside the rows the chips are redrawn in, so typing keeps its focus.

  // Whether deployment `i` fits the budget (any, when there is none).
  Selector.prototype.fits = function (i) {
    var b = this.budget, d = this.data.deps[i];
    if (!b) return true;
    return (b.gpus === null || d.gpus <= b.gpus) && (b.nodes === null || d.nodes <= b.nodes);
  };

  // `list` (deployment indices) narrowed to those that fit, and the chosen
  // one; all of `list` when no budget is set, none fits anywhere, or none
  // of `list` fits.
  Selector.prototype.narrowed = function (list) {
    if (!this.budget || !this.anyFits) return list;
    var self = this, chosen = this.choice ? this.choice.dep : -1;
    var out = list.filter(function (i) { return i === chosen || self.fits(i); });
    return out.length ? out : list;
  };

  // `N GPUs on M nodes`, as far as the budget says.
  function budgetText(b) {
    var parts = [];
    if (b.gpus !== null) parts.push(b.gpus + (b.gpus === 1 ? " GPU" : " GPUs"));
    if (b.nodes !== null) parts.push(b.nodes + (b.nodes === 1 ? " node" : " nodes"));
    return parts.join(" on ");
  }
  function sizeText(d) {
    return d.gpus + (d.gpus === 1 ? " GPU" : " GPUs") + " on " + d.nodes + (d.nodes === 1 ? " node" : " nodes");
  }

  // A field's number: a whole number ≥ 0, or null (empty: no limit).
  function fieldValue(input) {
    if (input.value.trim() === "") return null;
    var n = Math.floor(Number(input.value));
    return isFinite(n) ? Math.max(0, n) : null;
  }

  // The budget row: two number fields and a status line.
  Selector.prototype.buildBudget = function () {
    var self = this, id = "agentx-row-budget-" + this.uid;
    var row = el("div", { "class": "agentx-row agentx-row-budget", role: "group", "aria-labelledby": id });
    row.appendChild(el("div", { "class": "agentx-row-title", id: id }, "GPU budget"));
    var fields = el("div", { "class": "agentx-budget-fields" });
    var status = el("div", { "class": "agentx-row-note agentx-budget-status", id: id + "-status",
      role: "status", "aria-live": "polite" });
    function field(cls, before, after) {
      var label = el("label", { "class": "agentx-budget-field" }, before + " ");
      var input = el("input", { type: "number", "class": "agentx-budget-input " + cls, min: "0", step: "1",
        inputmode: "numeric", placeholder: "any", "aria-describedby": status.id });
      label.appendChild(input);
      label.appendChild(document.createTextNode(" " + after));
      fields.appendChild(label);
      input.addEventListener("input", function () { self.setBudget(fieldValue(self.gpusField),
        fieldValue(self.nodesField)); });
      return input;
    }
    this.gpusField = field("agentx-budget-gpus", "I have", "GPUs");
    this.nodesField = field("agentx-budget-nodes", "on", "nodes");
    this.clearBudget = el("button", { type: "button", "class": "agentx-budget-clear", hidden: "" }, "Clear");
    this.clearBudget.addEventListener("click", function () {
      self.gpusField.value = "";
      self.nodesField.value = "";
      self.setBudget(null, null);
      self.gpusField.focus();
    });
    fields.appendChild(this.clearBudget);
    row.appendChild(fields);
    row.appendChild(status);
    this.budgetStatus = status;
    this.budgetRow = row;
    this.showBudget();
    return row;
  };

  // Sets the budget (null, null: off) and narrows the chips to it.
  Selector.prototype.setBudget = function (gpus, nodes) {
    var self = this, deps = this.data.deps;
    this.budget = gpus === null && nodes === null ? null : { gpus: gpus, nodes: nodes };
    var all = deps.map(function (d, i) { return i; });
    var fitting = all.filter(function (i) { return self.fits(i); });
    this.anyFits = fitting.length > 0;
    this.showBudget(fitting);
    if (!this.choice) return;
    if (this.budget && this.anyFits && !this.fits(this.choice.dep)) {
      // The closest launch that fits: same hardware and checkpoint, else
      // same hardware, else the first that fits; its measured launch.
      var now = deps[this.choice.dep];
      var pick = fitting.filter(function (i) { return deps[i].hw === now.hw && deps[i].ckpt === now.ckpt; })[0];
      if (pick === undefined) pick = fitting.filter(function (i) { return deps[i].hw === now.hw; })[0];
      if (pick === undefined) pick = fitting[0];
      this.select(this.initial(pick), "replace");
    } else {
      this.renderChips();
    }
  };

  // The status line and the Clear button, for the budget now.
  Selector.prototype.showBudget = function (fitting) {
    var b = this.budget, deps = this.data.deps, s = this.budgetStatus;
    this.clearBudget.hidden = !b;
    s.classList.toggle("agentx-budget-none", !!b && !this.anyFits);
    if (!b) {
      // One line on a phone: the fields say what to enter.
      s.textContent = "Off: every deployment is shown.";
      return;
    }
    if (this.anyFits) {
      s.textContent = fitting.length + " of " + deps.length + (deps.length === 1 ? " deployment fits " :
        " deployments fit ") + budgetText(b) + ".";
      return;
    }
    var small = deps.slice().sort(function (x, y) { return x.gpus - y.gpus || x.nodes - y.nodes; })[0];
    s.textContent = "No deployment fits " + budgetText(b) + ": the smallest, " + this.data.hw[small.hw] + " · " +
      small.label + ", uses " + sizeText(small) + ". Every deployment is shown.";
  };

  // ---- The command window: header, tabs, Copy, Copy all, Copy link ----

  // The header: the launch, then Copy (the open tab), Copy all, Copy link.
  function windowBar(title, copyTab, copyAll, link) {
    var bar = el("div", { "class": "agentx-window-bar" });
    bar.appendChild(el("h3", { "class": "agentx-window-title" }, title));
    var buttons = el("div", { "class": "agentx-window-buttons" });
    [["agentx-copy-tab", "Copy", copyTab], ["agentx-copy-all", "Copy all", copyAll],
      ["agentx-copy-window-link", "Copy link", link]].forEach(function (b) {
      var button = el("button", { type: "button", "class": b[0] }, b[1]);
      button.addEventListener("click", function () { b[2](button); });
      buttons.appendChild(button);
    });
    bar.appendChild(buttons);
    return bar;
  }

  // A tab list over `panels` (named `names`); `state.tab` is the open one.
  function makeTabs(names, panels, state) {
    var list = el("div", { "class": "agentx-tabs", role: "tablist", "aria-label": "Processes in launch order" });
    var tabs = panels.map(function (panel, i) {
      var t = el("button", { type: "button", role: "tab", "class": "agentx-tab", id: panel.id + "-tab",
        "aria-controls": panel.id }, names[i] || String(i + 1));
      panel.setAttribute("aria-labelledby", t.id);
      list.appendChild(t);
      return t;
    });
    function pick(i, focus) {
      tabs.forEach(function (t, j) {
        t.setAttribute("aria-selected", i === j ? "true" : "false");
        t.tabIndex = i === j ? 0 : -1;
        panels[j].hidden = i !== j;
      });
      state.tab = i;
      if (focus) tabs[i].focus();
    }
    tabs.forEach(function (t, i) {
      t.addEventListener("click", function () { pick(i, false); });
      t.addEventListener("keydown", function (ev) {
        var n = tabs.length, j = { ArrowRight: (i + 1) % n, ArrowLeft: (i + n - 1) % n, Home: 0, End: n - 1 }[ev.key];
        if (j === undefined) return;
        ev.preventDefault();
        pick(j, true);
      });
    });
    pick(0, false);
    return list;
  }

  // Copy and Download of one block, above it (never over the code).
  function blockActions(text, what, file) {
    var p = el("p", { "class": "agentx-block-actions" });
    var copy = el("button", { type: "button", "class": "agentx-copy-block", "aria-label": "Copy " + what }, "Copy");
    copy.addEventListener("click", function () { copyText(text, copy, what); });
    p.appendChild(copy);
    var save = el("button", { type: "button", "class": "agentx-download", "aria-label": "Download " + file }, "Download");
    save.addEventListener("click", function () { download(text, file, save); });
    p.appendChild(save);
    return p;
  }

  // A block of the model page's window; under mdBook highlighted as its
  // own blocks are (highlight.js, when the page has it).
  function codeBlock(text, lang) {
    var pre = el("pre", { "class": "agentx-code", tabindex: "0" });
    var code = el("code", { "class": "language-" + (lang || "bash") }, text);
    pre.appendChild(code);
    var hl = /^(bash|json|yaml)$/.test(lang || "bash") && window.hljs;
    try {
      if (hl && hl.highlightElement) hl.highlightElement(code);
      else if (hl && hl.highlightBlock) hl.highlightBlock(code);
    } catch (e) { /* the plain text stays */ }
    return pre;
  }

  // ---- On a deployment page: the set's static HTML in a window ----
  function panelsOf(div) {
    var heads = Array.prototype.filter.call(div.children, function (e) {
      return e.classList.contains("agentx-process");
    });
    return heads.map(function (h, i) {
      var panel = el("div", { "class": "agentx-panel", role: "tabpanel", id: h.id + "-panel" });
      h.parentNode.insertBefore(panel, h);
      var n = h;
      while (n && n !== heads[i + 1]) {
        var next = n.nextElementSibling;
        panel.appendChild(n);
        n = next;
      }
      return panel;
    });
  }

  // Copy all of a static set: the page's code blocks, in order, with the
  // titles and placements of the data (f = [name, "cat > name <<'EOF'", "EOF"]).
  function staticCopyAll(div, win) {
    var blocks = div.querySelectorAll("pre > code"), k = 0, parts = [];
    function file(f) {
      return "# " + f[0] + " (written next to the commands)\n" + f[1] + "\n" + codeText(blocks[k++]) + "\n" + f[2];
    }
    if (win.env) parts.push("# Set per node before running the commands below\n" + codeText(blocks[k++]));
    win.procs.forEach(function (p) {
      var s = "# " + p[1] + "\n# " + p[2] + "\n" + codeText(blocks[k++]);
      p[3].forEach(function (f) { s += "\n\n" + file(f); });
      parts.push(s);
    });
    win.loose.forEach(function (f) { parts.push(file(f)); });
    return parts.join("\n\n") + "\n";
  }

  // A Download button above each block of the panels: a panel's command
  // (the first block) as `<n>-<long title>.sh` (Env Vars as `env-vars.sh`),
  // each config file after it by its own name (`win`: the process's files,
  // and the loose files after the last process). The bytes are the block's
  // Copy's: the code's text without the final newline.
  function addDownloads(panels, names, win) {
    var procs = win.procs.slice();
    panels.forEach(function (panel, i) {
      var env = i === 0 && names[0] === "Env Vars", n = win.procs.length - procs.length + 1;
      var proc = env ? null : procs.shift() || ["", "command", "", []];
      var files = env ? [] : proc[3].map(function (f) { return f[0]; });
      if (i === panels.length - 1) files = files.concat(win.loose.map(function (f) { return f[0]; }));
      var blocks = panel.querySelectorAll("pre > code");
      // As the model page names it: `4-prefill-worker.sh`.
      var first = env ? "env-vars.sh" : scriptName(n + " · " + proc[1]);
      // Files by name only when the page's blocks are the data's.
      var list = blocks.length === files.length + 1 ? [first].concat(files) : [first];
      list.forEach(function (name, k) {
        var code = blocks[k];
        if (!code) return;
        var p = el("p", { "class": "agentx-block-actions" });
        var save = el("button", { type: "button", "class": "agentx-download", "aria-label": "Download " + name },
          "Download");
        save.addEventListener("click", function () { download(codeText(code), name, save); });
        p.appendChild(save);
        var pre = code.parentNode, at = pre.parentNode.classList.contains("codeblock") ? pre.parentNode : pre;
        at.parentNode.insertBefore(p, at);
      });
    });
  }

  function makeStaticWindow(div, sel, win, keys) {
    if (div.__agentxWindow || !win) return;
    div.__agentxWindow = true;
    div.classList.add("agentx-window");
    var state = { tab: 0 }, panels;
    var bar = windowBar(sel.context(keys), function (b) {
      var panel = panels[state.tab] || div;
      copyText(codeText(panel.querySelector("pre > code")), b, "the open tab");
    }, function (b) {
      copyText(staticCopyAll(div, win), b, "all commands");
    }, function (b) {
      copyText(location.href.split("#")[0] + "#" + div.getAttribute("data-anchor"), b, "link");
    });
    div.insertBefore(bar, div.firstChild);
    panels = panelsOf(div);
    var names = (win.env ? ["Env Vars"] : []).concat(win.procs.map(function (p, i) {
      return (i + 1) + "· " + p[0];
    }));
    notesAfter(div, panels);
    if (panels.length > 1) panels[0].parentNode.insertBefore(makeTabs(names, panels, state), panels[0]);
    addDownloads(panels, names, win);
    focusableBlocks(div);
  }

  // The notes and what a derived set changes go after the commands, so the
  // first command comes right after the status line (on a phone, within
  // two screens of the top); the page without JavaScript keeps its order.
  function notesAfter(div, panels) {
    if (!panels.length) return;
    var status = div.querySelector(".agentx-badge"), from = status && status.closest("div.agentx-set > *");
    if (!from) return;
    var moved = [];
    for (var n = from.nextElementSibling; n && n !== panels[0]; n = n.nextElementSibling) moved.push(n);
    var last = panels[panels.length - 1];
    moved.reverse().forEach(function (n) { last.parentNode.insertBefore(n, last.nextSibling); });
  }

  // A block that scrolls sideways can be scrolled with the keyboard.
  function focusableBlocks(root) {
    Array.prototype.forEach.call(root.querySelectorAll("pre"), function (pre) {
      if (!pre.hasAttribute("tabindex")) pre.setAttribute("tabindex", "0");
    });
  }

  // ---- On the model page: a window built from the model's data ----
  function dataWindow(sel, c, set) {
    var win = sel.tables.window(sel.data.wins[set[6]]), dep = sel.data.deps[c.dep];
    var id = "agentx-w" + sel.uid, state = { tab: 0 };
    var box = el("div", { "class": "agentx-window agentx-data-window", "data-anchor": set[3],
      "data-status": set[4] });
    var panels = [], names = [];
    box.appendChild(windowBar(sel.context(c), function (b) {
      copyText(panels[state.tab].__agentxText, b, "the open tab");
    }, function (b) {
      copyText(copyAllOf(win), b, "all commands");
    }, function (b) {
      copyText(location.href.split("#")[0] + "#" + sel.prefix + set[3], b, "link");
    }));
    var status = el("p", { "class": "agentx-status" });
    status.appendChild(el("span", { "class": "agentx-badge agentx-badge-" + set[4] }, set[5]));
    box.appendChild(status);
    function panel(name, heading, text) {
      var p = el("div", { "class": "agentx-panel", role: "tabpanel", id: id + "-p" + panels.length });
      p.appendChild(el("h4", { "class": "agentx-process" }, heading));
      p.__agentxText = text;
      panels.push(p);
      names.push(name);
      return p;
    }
    if (win.env !== null) {
      var env = panel("Env Vars", "Env Vars — set first", win.env);
      env.appendChild(blockActions(win.env, "Env Vars", "env-vars.sh"));
      env.appendChild(codeBlock(win.env));
    }
    win.procs.forEach(function (pr, i) {
      var heading = (i + 1) + " · " + pr.long, p = panel((i + 1) + "· " + pr.title, heading, pr.command);
      p.appendChild(richNodes(pr.rich, el("p", { "class": "agentx-placement" })));
      p.appendChild(blockActions(pr.command, pr.long, scriptName(heading)));
      p.appendChild(codeBlock(pr.command));
      pr.files.forEach(function (f) { fileBlock(p, f, true); });
    });
    win.loose.forEach(function (f) { fileBlock(panel(f.name, f.name, f.content), f, false); });
    if (panels.length > 1) box.appendChild(makeTabs(names, panels, state));
    panels.forEach(function (p) { box.appendChild(p); });
    // Where the run is recorded, and the notes, after the commands (see
    // notesAfter).
    if (win.meta) {
      var meta = el("p", { "class": "agentx-meta" }, "Measured: ");
      box.appendChild(richNodes(win.meta, meta));
    }
    if (win.notes.length) {
      var notes = el("ul", { "class": "agentx-notes" });
      win.notes.forEach(function (n) { notes.appendChild(richNodes(n, el("li"))); });
      box.appendChild(notes);
    }
    if (win.changes.length) box.appendChild(changesOf(win));
    // (The single file has no deployment pages.)
    if (!sel.prefix) {
      var foot = el("p", { "class": "agentx-window-foot" });
      foot.appendChild(el("a", { href: pageHref(dep.href) + "#" + set[3] }, "This launch on its deployment page"));
      box.appendChild(foot);
    }
    return box;
  }

  // A config file: its name (unless the panel is named by it), Copy and
  // Download, its text.
  function fileBlock(panel, f, named) {
    if (named) {
      var name = el("p", { "class": "agentx-file-name" });
      name.appendChild(el("code", {}, f.name));
      panel.appendChild(name);
    }
    panel.appendChild(blockActions(f.content, f.name, f.name));
    var ext = f.name.split(".").pop();
    panel.appendChild(codeBlock(f.content, { json: "json", yaml: "yaml", yml: "yaml" }[ext] || "text"));
  }

  // What a derived set changes against the measured launch of its point.
  function changesOf(win) {
    var box = el("div", { "class": "agentx-changes" });
    var p = el("p");
    p.appendChild(el("strong", {}, "What this derived launch changes"));
    p.appendChild(document.createTextNode(" against the measured launch of this point (" + win.base +
      "), per process:"));
    box.appendChild(p);
    var ul = el("ul");
    win.changes.forEach(function (c) { ul.appendChild(richNodes(c, el("li"))); });
    box.appendChild(ul);
    return box;
  }

  // ---- Building the selector ----
  // On the model page: the picker, whose window shows the chosen set from
  // the model's data. On a deployment page: this deployment's rows, and
  // its static sets shown one at a time in a window.
  Selector.prototype.build = function () {
    this.uid = Selector.count = (Selector.count || 0) + 1;
    var m = this.mount;
    m.hidden = false;
    m.classList.add("agentx-selector-on");
    var title = el("p", { "class": "agentx-selector-title" }, "Pick a launch");
    // The model page's picker finds a launch by what is typed (55-find.js).
    m.appendChild(this.here ? title : this.buildFind(title));
    if (this.here && this.data.modelHref) {
      // The other deployments are on the model page (this page carries
      // only its own data).
      var dep = this.data.deps[0];
      var line = el("p", { "class": "agentx-launch" }, [this.data.hw[dep.hw], dep.ckpt, dep.label].join(" · ") + " ");
      this.other = el("a", { "class": "agentx-other", href: pageHref(this.data.modelHref) },
        "Other hardware or deployments");
      line.appendChild(this.other);
      m.appendChild(line);
    }
    // The GPU budget narrows the model page's deployments (35-budget.js).
    if (!this.here && this.data.deps.length > 1) m.appendChild(this.buildBudget());
    this.chipBox = el("div", { "class": "agentx-rows" });
    m.appendChild(this.chipBox);
    this.host = el("div", { "class": "agentx-window-host", "aria-live": "polite" });
    if (this.here) {
      var self = this;
      this.toggle = el("button", { type: "button", "class": "agentx-show-all", "aria-pressed": "false" },
        "Show all command sets");
      this.toggle.addEventListener("click", function () { self.showAll(!self.all); });
      m.appendChild(this.toggle);
      m.parentNode.insertBefore(this.host, m.nextSibling);
      document.documentElement.classList.add("agentx-active");
    } else {
      m.appendChild(this.host);
    }
  };

  // Shows the choice: its chips and its command window. `history_`:
  // "push" (a reader's choice: a new history entry), "replace" (one the
  // GPU budget made: the URL names it, without an entry per keystroke) or
  // null (the URL already names it).
  Selector.prototype.select = function (c, history_) {
    var set = this.setFor(c);
    this.choice = c;
    this.renderChips();
    if (history_ && hashId() !== this.prefix + set[3]) {
      history[history_ === "push" ? "pushState" : "replaceState"](null, "", "#" + this.prefix + set[3]);
    }
    if (history_) markTargeted(null);
    if (this.here) {
      this.show(set[3]);
      // The model page's picker opens on this launch.
      if (this.other) this.other.href = pageHref(this.data.modelHref).split("#")[0] + "#" + set[3];
      return;
    }
    if (set[6] < 0) {
      // Beyond what the page carries: the whole data first (site/lazy.rs).
      var self = this;
      this.host.setAttribute("aria-busy", "true");
      this.loadFull(function () {
        self.host.removeAttribute("aria-busy");
        self.select(self.choice, null);
        (self.shownWaiting || []).splice(0).forEach(function (f) { f(); });
      });
      return;
    }
    this.host.textContent = "";
    this.window = dataWindow(this, c, set);
    this.host.appendChild(this.window);
  };

  // Runs `f` once the chosen launch's window shows: now, or once the
  // whole data is in (the page opened at, a link led to, or the reader
  // found (55-find.js) a launch beyond what the page carries; under mdBook
  // its data pages load after the page's own load event).
  Selector.prototype.whenShown = function (f) {
    if (this.host.getAttribute("aria-busy")) (this.shownWaiting = this.shownWaiting || []).push(f);
    else f();
  };

  // The model's whole data, from the script beside the page (a <script
  // src>: it loads from file:// too), or under mdBook from the book's data
  // pages (`parts`: readParts); `done` runs once it is in.
  Selector.prototype.loadFull = function (done) {
    var self = this, name = this.data.full;
    var store = window.AGENTX_MODEL_DATA = window.AGENTX_MODEL_DATA || {};
    if (store[name]) return this.useFull(store[name], done);
    (this.waiting = this.waiting || []).push(done);
    if (this.loading) return;
    this.loading = true;
    var loaded = function () {
      var waiting = self.waiting.splice(0);
      self.useFull(store[name], function () {
        waiting.forEach(function (f) { f(); });
      });
    };
    var failed = function () {
      self.host.textContent = "";
      self.host.appendChild(el("p", { "class": "agentx-status" }, "The launches could not be loaded (" + name + ")."));
    };
    if (this.data.parts) {
      return readParts(this.data.parts, function (text) {
        try { store[name] = JSON.parse(text); } catch (e) { return failed(); }
        loaded();
      }, failed);
    }
    var s = el("script", { src: name });
    s.onload = loaded;
    s.onerror = failed;
    document.head.appendChild(s);
  };

  Selector.prototype.useFull = function (full, done) {
    if (!full) return;
    // A copy of its own: pickers repeating one section share the loaded
    // data, and expanding it is not idempotent.
    full = JSON.parse(JSON.stringify(full));
    expandModelData(full);
    full.here = this.data.here;
    this.data = full;
    this.tables = new Tables(full);
    this.mount.setAttribute("data-full", "loaded");
    done();
  };

  // ---- A deployment page: one static set shown, as a command window ----
  Selector.prototype.show = function (anchor) {
    var div = setOf(anchor);
    if (!div) return;
    if (this.shown && this.shown !== div) this.putBack(this.shown);
    this.shown = div;
    if (!div.__agentxHome) {
      div.__agentxHome = document.createComment("agentx-set");
      div.parentNode.insertBefore(div.__agentxHome, div);
    }
    if (!this.all) this.host.appendChild(div);
    div.classList.add("agentx-shown");
    makeStaticWindow(div, this, this.data.win[anchor], this.byAnchor[anchor]);
    this.window = div;
  };

  Selector.prototype.putBack = function (div) {
    div.classList.remove("agentx-shown");
    if (div.__agentxHome) div.__agentxHome.parentNode.insertBefore(div, div.__agentxHome);
  };

  Selector.prototype.showAll = function (all) {
    this.all = all;
    this.toggle.setAttribute("aria-pressed", all ? "true" : "false");
    this.toggle.textContent = all ? "Show only the selected command set" : "Show all command sets";
    document.documentElement.classList.toggle("agentx-active", !all);
    if (!this.shown) return;
    if (all) this.putBack(this.shown);
    else this.host.appendChild(this.shown);
    this.shown.classList.add("agentx-shown");
  };

  // The set a URL names, when this selector holds it; on the model page a
  // deployment's anchor names its measured launch. In the single file any
  // chapter's `#<chapter>--<anchor>` names it (anchors hold no `--`).
  Selector.prototype.fromHash = function () {
    var id = this.anchorOf(hashId()), k = this.byAnchor[id];
    if (!k && !this.here) {
      var di = this.data.deps.map(function (d) { return d.anchor; }).indexOf(id);
      return di < 0 ? null : this.initial(di);
    }
    if (!k || (this.here && this.data.deps[k.dep].anchor !== this.here)) return null;
    return { dep: k.dep, point: k.point, tier: k.tier, router: k.router };
  };

  Selector.prototype.anchorOf = function (id) {
    return this.prefix ? id.split("--").pop() : id;
  };

  // The first launch: the URL's, else the first deployment's measured one
  // (on a deployment page: its own).
  Selector.prototype.start = function () {
    this.build();
    var c = this.fromHash();
    this.select(c || this.initial(0), null);
    // A deployment page's selection is its URL: opened without a
    // fragment, it gets the shown set's anchor (another fragment, e.g.
    // #combinations, is kept). The model page's is its URL once chosen.
    if (this.here && !c && !location.hash) history.replaceState(null, "", "#" + this.setFor(this.choice)[3]);
    var self = this;
    var follow = function (ev) {
      var h = self.fromHash();
      if (h) self.select(h, null);
      else if (!location.hash && !self.here) self.select(self.initial(0), null);
      // A link within the page (the lane table, Combinations) marks its set.
      if (h && ev.type === "hashchange") {
        self.whenShown(function () {
          markTargeted(self.window);
          self.reveal();
        });
      }
    };
    window.addEventListener("popstate", follow);
    window.addEventListener("hashchange", follow);
    if (!this.here) {
      this.catchLaneLinks();
      // On a phone the lane table's cards would be most of the page: the
      // picker holds every launch, so the table starts closed there.
      var lanes = this.mount.parentNode.querySelector("details.agentx-lanes");
      if (lanes && window.matchMedia && matchMedia("(max-width: 720px)").matches) lanes.open = false;
    }
    if (c && followedLink()) this.whenShown(function () { markTargeted(self.window); });
    // Opened at a set (a deployment page always is: its fragment was just
    // written, and Chromium jumps to it when the load ends): the selector
    // and the window's buttons in view below the top bar, now and after the
    // browser's own jump to the fragment.
    if (c || this.here) {
      if ("scrollRestoration" in history) history.scrollRestoration = "manual";
      this.whenShown(function () { self.reveal(); });
      window.addEventListener("load", function () { self.whenShown(function () { self.reveal(); }); });
    }
  };

  Selector.prototype.reveal = function () {
    var bar = this.window && this.window.querySelector(".agentx-window-bar");
    reveal(this.mount, bar || this.mount);
  };

  // On the model page, the lane table's links to a set select it here
  // instead of opening its deployment page (which they open without
  // JavaScript, or with a modifier key).
  Selector.prototype.catchLaneLinks = function () {
    var self = this, section = this.mount.parentNode;
    section.addEventListener("click", function (ev) {
      var a = ev.target.closest && ev.target.closest("a[href*='#']");
      if (!a || ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.altKey) return;
      var anchor = self.anchorOf(a.getAttribute("href").split("#")[1] || "");
      var k = anchor && self.byAnchor[anchor];
      if (!k || self.mount.contains(a)) return;
      ev.preventDefault();
      self.select({ dep: k.dep, point: k.point, tier: k.tier, router: k.router }, "push");
      markTargeted(self.window);
      self.reveal();
    });
  };

  // ---- Find a launch: a field beside the model page picker's title ----
  // What the reader types ("b200 agg c64 hicache sglang", "8 gpus") lists
  // the launches whose chips hold every word, best first; choosing one is
  // select(…, "push"), as a chip (the URL, history, the rest of the data
  // loaded when the page carries a light part). Only the chips' data is
  // read, never commands. Words are whole, as the top bar's search reads
  // them (src/site/search/): `c1` is not `c128`; a word no launch holds
  // whole needs all its parts; the last word, while typed, may be the
  // start of one (`gb3`). `sglang` without `dynamo` is the SGLang router.
  // With a GPU budget, only launches that fit are offered, as by the chips.
  var FIND_SHOWN = 8;
  var WORD_BREAK = /[\s,;()\[\]{}<>"'`|·»—–+*!?\\✓◐]+/, PART_BREAK = /[-_/.=:#$@]+/g;

  // A text's words, normalized as book.js does; `12 gpus` → `12gpus`.
  function findWords(text) {
    var words = String(text).split(WORD_BREAK).map(function (w) {
      return w.replace(/^[-$#]+/, "").replace(/[.:=,]+$/, "").toLowerCase();
    }).filter(function (w) { return w.replace(PART_BREAK, ""); }), out = [];
    for (var i = 0; i < words.length; i++) {
      var noun = /^\d+$/.test(words[i]) && /^(gpu|node)s?$/.test(words[i + 1]) && words[++i].replace(/s$/, "");
      out.push(noun ? words[i - 1] + noun + "s" : words[i]);
      if (noun) out.push(words[i - 1] + noun);
    }
    return out;
  }

  // Each launch's words, weighted: its own chips (concurrency, KV tier,
  // router, status) 4; its deployment's (hardware, checkpoint, label, size)
  // 2; the deployment's second line (less its concurrencies), a word's
  // parts and the model's name 1. Built once: the whole data, once loaded,
  // has the same deployments and sets.
  Selector.prototype.findIndex = function () {
    if (this.found) return this.found;
    var data = this.data, self = this, vocab = {}, entries = [];
    function add(into, text, weight, skip) {
      findWords(text).forEach(function (w) {
        if (skip && skip.test(w)) return;
        [w].concat(w.split(PART_BREAK)).forEach(function (p, i) {
          var n = i ? 1 : weight;
          if (p && !(into[p] >= n)) into[p] = n;
          vocab[p] = 1;
        });
      });
    }
    data.deps.forEach(function (d, di) {
      var dep = {};
      add(dep, data.model + " " + d.sub, 1, /^c\d+$/);
      add(dep, [data.hw[d.hw], d.ckpt, d.ckpt.split("/").pop(), d.label, d.gpus + " gpus", d.nodes + " nodes"].join(" · "), 2);
      d.sets.forEach(function (s) {
        var words = {};
        for (var k in dep) words[k] = dep[k];
        add(words, [d.points[s[0]][0], s[1], self.tierLabel[s[1]], s[2], self.routerLabel[s[2]], "router", s[4]].join(" · "), 4);
        entries.push({ dep: di, point: s[0], tier: s[1], router: s[2], anchor: s[3], status: s[4], words: words });
      });
    });
    return (this.found = { entries: entries, vocab: vocab });
  };

  // The launches matching `q`, best first, and how many more match beyond
  // the GPU budget: {hits, over}.
  Selector.prototype.findMatches = function (q) {
    var ix = this.findIndex(), words = findWords(q), need = [], self = this, hits = [], over = 0;
    var fail = !words.length;
    words.forEach(function (w, i) {
      var parts = w.split(PART_BREAK).filter(Boolean);
      if (ix.vocab[w]) return need.push([w]);
      if (parts.length > 1 && parts.every(function (p) { return ix.vocab[p]; })) {
        return parts.forEach(function (p) { need.push([p]); });
      }
      var starts = i === words.length - 1 && !/\s$/.test(q) ? Object.keys(ix.vocab).filter(function (v) {
        return !v.indexOf(w);
      }) : [];
      if (!starts.length) fail = true;
      need.push(starts);
    });
    if (fail) return { hits: [], over: 0 };
    var sglang = words.indexOf("sglang") >= 0 && !words.some(function (w) { return !w.indexOf("dynamo"); });
    ix.entries.forEach(function (e, order) {
      var score = 0;
      if (sglang && e.router === "dynamo") return;
      for (var k = 0; k < need.length; k++) {
        var best = Math.max.apply(null, need[k].map(function (w) { return e.words[w] || 0; }));
        if (!best) return;
        score += best;
      }
      if (self.budget && self.anyFits && !self.fits(e.dep)) over++;
      else hits.push({ e: e, score: score, order: order });
    });
    // Then measured launches before derived ones, then the chips' order.
    hits.sort(function (a, b) {
      return b.score - a.score || (a.e.status === "derived") - (b.e.status === "derived") || a.order - b.order;
    });
    return { hits: hits.map(function (h) { return h.e; }), over: over };
  };

  // The picker's head: `title`, the field, its status line and list.
  Selector.prototype.buildFind = function (title) {
    var self = this, id = "agentx-find-" + this.uid, d = this.data.deps[0];
    var head = el("div", { "class": "agentx-picker-head" }), box = el("div", { "class": "agentx-find" });
    var line = el("div", { "class": "agentx-find-line" });
    line.appendChild(el("label", { "for": id, "class": "agentx-find-label" }, "Find a launch"));
    var input = el("input", { type: "search", id: id, "class": "agentx-find-input", autocomplete: "off",
      spellcheck: "false", "aria-describedby": id + "-status", "aria-controls": id + "-list",
      placeholder: "e.g. " + [this.data.hw[d.hw], findWords(d.label)[0], d.points[0][0].split(" ")[0]].join(" ") });
    line.appendChild(input);
    var status = el("div", { "class": "agentx-find-status", id: id + "-status", role: "status", "aria-live": "polite" });
    var list = el("ul", { "class": "agentx-find-list", id: id + "-list", "aria-label": "Matching launches", hidden: "" });
    [line, status, list].forEach(function (e) { box.appendChild(e); });
    head.appendChild(title);
    head.appendChild(box);
    this.findInput = input;
    this.findStatus = status;
    this.findList = list;
    input.addEventListener("input", function () { self.findRender(); });
    // Back in the field from elsewhere, the matches of its text show again.
    input.addEventListener("focus", function (ev) {
      if (list.hidden && !(ev.relatedTarget && box.contains(ev.relatedTarget))) self.findRender();
    });
    // Arrows move between the field and the matches, Enter in the field
    // chooses the first, Escape closes the list.
    box.addEventListener("keydown", function (ev) {
      var all = [input].concat(Array.prototype.slice.call(list.querySelectorAll("button")));
      var i = all.indexOf(ev.target), to = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 1, End: all.length - 1 }[ev.key];
      if (list.hidden || i < 0) return;
      if (ev.key === "Escape") {
        input.focus();
        self.findClose();
      } else if (ev.key === "Enter" && !i) {
        all[1].click();
      } else if (all[to] && (i || ev.key === "ArrowDown")) {
        all[to].focus();
      } else {
        return;
      }
      ev.preventDefault();
    });
    // It closes when the reader goes elsewhere (a click, or Tab).
    document.addEventListener("mousedown", function (ev) { if (!box.contains(ev.target)) self.findClose(); });
    box.addEventListener("focusout", function (ev) {
      if (ev.relatedTarget && !box.contains(ev.relatedTarget)) self.findClose();
    });
    return head;
  };

  Selector.prototype.findClose = function () {
    this.findList.hidden = true;
    this.findList.textContent = this.findStatus.textContent = "";
  };

  // The matches of what is typed now, and how many.
  Selector.prototype.findRender = function () {
    var q = this.findInput.value.trim(), self = this;
    if (!q) return this.findClose();
    var r = this.findMatches(this.findInput.value), n = r.hits.length;
    this.findList.textContent = "";
    r.hits.slice(0, FIND_SHOWN).forEach(function (e) { self.findList.appendChild(self.findItem(e)); });
    this.findList.hidden = !n;
    var text = (n === 1 ? "1 launch matches" : n + " launches match") +
      (n > FIND_SHOWN ? "; the best " + FIND_SHOWN + " are shown. Add a word to narrow them" : "") +
      (r.over ? " (" + r.over + " more beyond your GPU budget)" : "") + ".";
    this.findStatus.textContent = n || r.over ? text : "No launch matches “" + q +
      "”. Every word must match: try fewer, such as a GPU, agg, c64, hicache, sglang or 8 gpus.";
  };

  // One match: hardware, checkpoint (where the model has several),
  // deployment and its second line; concurrency, KV tier, router, status.
  Selector.prototype.findItem = function (e) {
    var self = this, data = this.data, d = data.deps[e.dep], li = el("li");
    var b = el("button", { type: "button", "class": "agentx-find-match", "data-anchor": e.anchor });
    var ckpt = data.deps.some(function (x) { return x.ckpt !== d.ckpt; }) ? [d.ckpt.split("/").pop()] : [];
    b.appendChild(el("span", { "class": "agentx-find-dep" }, [data.hw[d.hw]].concat(ckpt, [d.label]).join(" · ")));
    b.appendChild(el("span", { "class": "agentx-chip-sub" }, d.sub));
    var set = el("span", { "class": "agentx-find-set" },
      [d.points[e.point][0], this.tierLabel[e.tier], this.routerLabel[e.router]].join(" · ") + " ");
    // The status label without its source (`✓ Verified`, `Derived — not run`).
    var status = d.sets.filter(function (s) { return s[3] === e.anchor; })[0][5].split(/ in | \(/)[0];
    set.appendChild(el("span", { "class": "agentx-badge agentx-badge-" + e.status }, status));
    b.appendChild(set);
    b.addEventListener("click", function () { self.findChoose(e); });
    li.appendChild(b);
    return li;
  };

  // Selects a match as its chips would; once its window is in (the data
  // may load first), the window's buttons in view below the top bar.
  Selector.prototype.findChoose = function (e) {
    var self = this, c = { dep: e.dep, point: e.point, tier: e.tier, router: e.router };
    // The field keeps the focus (before the list closes: focus reopens it).
    this.findInput.focus({ preventScroll: true });
    this.findClose();
    this.select(c, "push");
    this.whenShown(function () {
      self.reveal();
      announce("Chosen: " + self.context(c));
    });
  };

  // ---- Copy link after every set heading that has none ----
  // Neither the builder's pages nor mdBook's carry the button (it needs
  // JavaScript, and on the largest real pages the buttons were 2-3 KB of
  // the gzipped page), so it is added here, after the heading and outside
  // its text. (An older site's button.copy-link is left as it is.) The
  // builder's Copy buttons in the set are described by its heading here
  // too (the set's id on each of them was 9 KB of the largest page's gzip).
  function addCopyLinks() {
    var headings = document.querySelectorAll("h3.agentx-set[id]");
    Array.prototype.forEach.call(headings, function (h) {
      var set = h.parentNode;
      if (set.classList.contains("agentx-set")) {
        Array.prototype.forEach.call(set.querySelectorAll("button.copy-code:not([aria-describedby])"), function (b) {
          b.setAttribute("aria-describedby", h.id);
        });
      }
      var next = h.nextElementSibling;
      if (next && next.querySelector("button.copy-link, button.agentx-copy-link")) return;
      var p = el("p", { "class": "agentx-set-actions" });
      var b = el("button", {
        type: "button", "class": "agentx-copy-link", "data-anchor": h.id,
        "aria-label": "Copy link to " + h.textContent.trim()
      }, "Copy link");
      b.addEventListener("click", function () {
        copyText(location.href.split("#")[0] + "#" + h.id, b, "link to " + h.textContent.trim());
      });
      p.appendChild(b);
      h.parentNode.insertBefore(p, next);
    });
  }

  // Without a selector (a page without one's data), a followed link to a
  // set still marks it.
  function markStaticTarget() {
    var h = document.getElementById(hashId());
    if (h && h.classList.contains("agentx-set") && followedLink()) markTargeted(h.parentNode);
  }

  // ---- Start: one selector per data script ----
  function start() {
    postDataPart();
    addCopyLinks();
    var started = 0;
    var scripts = document.querySelectorAll("script.agentx-selector-data, script.agentx-model-data");
    // The data of each section's picker so far, by section: a repeat of
    // the same launches names the earlier section (render/model_data.rs),
    // the nearest one before it, so in the single file its own chapter's.
    var bySection = {};
    Array.prototype.forEach.call(scripts, function (s) {
      var mount = s.previousElementSibling;
      if (!mount || !(mount.classList.contains("agentx-selector") || mount.classList.contains("agentx-picker"))) return;
      var data, text = s.textContent, section = mount.getAttribute("data-section");
      try { data = JSON.parse(text); } catch (e) { return; }
      if (data && typeof data.like === "string") {
        text = bySection[data.like];
        if (text === undefined) return;
        data = JSON.parse(text);
      }
      if (section) bySection[section] = text;
      if (data.text) expandModelData(data);
      // In the single file every id carries its chapter's prefix.
      var chapter = mount.closest && mount.closest("section.book-chapter");
      var prefix = chapter ? chapter.id + "--" : "";
      // A picker names its section on its mount (its data is shared by
      // every section showing the same launches); a selector its page.
      if (!document.getElementById(prefix + (data.here || section))) return;
      new Selector(data, mount, prefix).start();
      started++;
    });
    if (!started) markStaticTarget();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
