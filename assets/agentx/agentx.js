// mdbook-agentx reader assets: the offline selector over the static command
// sets and the command window (tabs, Copy, Copy all).
//
// Progressive enhancement only: every command set is in the page as static
// HTML (div.agentx-set), and without this script the page reads as it is.
// The data is emitted at build time from the decoded command sets: the
// model page's once for the whole model (script.agentx-model-data, see
// src/render/model_data.rs), each deployment page's for itself
// (script.agentx-selector-data, src/render/selector.rs); nothing is decoded
// or fetched here, so it works from file://. Independent of the
// builder's chrome (book.js): it runs in mdBook's html output too.
(function () {
  "use strict";

  // ---- Small helpers ----
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

  window.__agentxLastCopy = null;
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
  function copyText(text, button) {
    window.__agentxLastCopy = text;
    var done = function () {
      var old = button.getAttribute("data-label") || button.textContent;
      button.setAttribute("data-label", old);
      button.textContent = "Copied";
      setTimeout(function () { button.textContent = old; }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
    } else {
      fallbackCopy(text);
      done();
    }
  }
  // A code block's exact text (its `pre > code`): without the final newline
  // the HTML adds. Our builder wraps each in div.codeblock, mdBook does not.
  function codeText(code) {
    return code ? code.textContent.replace(/\n$/, "") : "";
  }

  // ---- The choice: one command set, by its six keys ----
  function Selector(data, mount) {
    this.data = data;
    this.mount = mount;
    this.here = data.here || null; // the deployment this page holds, if any
    this.all = false;
    this.tierLabel = {};
    this.routerLabel = {};
    var self = this;
    data.tiers.forEach(function (t) { self.tierLabel[t[0]] = t[1]; });
    data.routers.forEach(function (r) { self.routerLabel[r[0]] = r[1]; });
    this.byAnchor = {};
    data.deps.forEach(function (d, di) {
      d.sets.forEach(function (s) {
        self.byAnchor[s[3]] = { dep: di, point: s[0], tier: s[1], router: s[2] };
      });
    });
  }

  Selector.prototype.depsOf = function (hw, ckpt) {
    return this.data.deps
      .map(function (d, i) { return i; })
      .filter(function (i) {
        var d = this.data.deps[i];
        return d.hw === hw && (ckpt === null || d.ckpt === ckpt);
      }, this);
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

  // A new choice after one row changed: the others kept where they still exist.
  Selector.prototype.choose = function (row, value) {
    var c = this.choice, deps = this.data.deps, old = deps[c.dep];
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
    var dep = deps[di];
    var point = row === "point" ? value : c.point;
    var conc = old.points[c.point] ? old.points[c.point][0] : null;
    if (di !== c.dep) {
      point = 0;
      dep.points.forEach(function (p, i) { if (p[0] === conc) point = i; });
    }
    var tier = row === "tier" ? value : c.tier;
    if (dep.available.indexOf(tier) < 0) tier = dep.points[point][1];
    var router = row === "router" ? value : c.router;
    if (this.routersOf(dep).indexOf(router) < 0) router = dep.submitted;
    var next = { dep: di, point: point, tier: tier, router: router };
    if (!this.setFor(next)) next = this.initial(di);
    return next;
  };

  // ---- The chips ----
  Selector.prototype.rows = function () {
    var c = this.choice, deps = this.data.deps, dep = deps[c.dep], self = this;
    var mine = this.here ? [] : this.modelRows();
    var measured = dep.points[c.point][1];
    return mine.concat([
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
    deps.forEach(function (d) { if (hws.indexOf(d.hw) < 0) hws.push(d.hw); });
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
      }), note: "Ordered as submitted." },
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

  // ---- Building the selector ----
  Selector.prototype.build = function () {
    this.uid = Selector.count = (Selector.count || 0) + 1;
    var m = this.mount;
    m.hidden = false;
    m.classList.add("agentx-selector-on");
    m.appendChild(el("p", { "class": "agentx-selector-title" }, "Pick a launch"));
    if (this.here && this.data.modelHref) {
      // The other deployments are on the model page (this page carries
      // only its own data).
      var dep = this.data.deps[0];
      var line = el("p", { "class": "agentx-launch" }, [this.data.hw[dep.hw], dep.ckpt, dep.label].join(" · ") + " ");
      line.appendChild(el("a", { "class": "agentx-other", href: pageHref(this.data.modelHref) },
        "Other hardware or deployments"));
      m.appendChild(line);
    }
    this.chipBox = el("div", { "class": "agentx-rows" });
    m.appendChild(this.chipBox);
    this.result = el("div", { "class": "agentx-result", "aria-live": "polite" });
    m.appendChild(this.result);
    if (this.here) {
      var self = this;
      this.toggle = el("button", { type: "button", "class": "agentx-show-all", "aria-pressed": "false" },
        "Show all command sets");
      this.toggle.addEventListener("click", function () { self.showAll(!self.all); });
      m.appendChild(this.toggle);
      this.host = el("div", { "class": "agentx-window-host" });
      m.parentNode.insertBefore(this.host, m.nextSibling);
      document.documentElement.classList.add("agentx-active");
    }
  };

  // Shows the choice: the chips, and the set (here) or a link to its page.
  Selector.prototype.select = function (c, history_) {
    var dep = this.data.deps[c.dep], set = this.setFor(c);
    if (this.here && dep.anchor !== this.here) {
      location.href = pageHref(dep.href) + "#" + set[3];
      return;
    }
    this.choice = c;
    this.renderChips();
    if (!this.here) {
      // The model page holds no set: say which one, and link to it.
      this.result.textContent = "";
      var line = el("p", { "class": "agentx-context" }, this.context(c) + " ");
      line.appendChild(el("span", { "class": "agentx-badge agentx-badge-" + set[4] }, set[5]));
      this.result.appendChild(line);
      var a = el("a", { "class": "agentx-open", href: pageHref(dep.href) + "#" + set[3] }, "Open these commands →");
      this.result.appendChild(a);
      return;
    }
    if (history_ === "push" && location.hash.slice(1) !== set[3]) {
      history.pushState(null, "", "#" + set[3]);
    }
    this.show(set[3]);
  };

  // ---- One set shown, as a command window ----
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
    makeWindow(div, this, this.data.win[anchor], this.byAnchor[anchor]);
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

  // The set a URL names on this page, or null.
  Selector.prototype.fromHash = function () {
    var id = decodeURIComponent(location.hash.slice(1));
    var k = this.byAnchor[id];
    if (!k || this.data.deps[k.dep].anchor !== this.here) return null;
    return { dep: k.dep, point: k.point, tier: k.tier, router: k.router };
  };

  Selector.prototype.start = function () {
    this.build();
    var first = 0;
    if (this.here) {
      var here = this.here;
      first = this.data.deps.map(function (d) { return d.anchor; }).indexOf(here);
    }
    var c = this.here && this.fromHash();
    this.select(c || this.initial(Math.max(first, 0)), null);
    if (!this.here) return;
    // The selection is the URL: a page opened without a fragment gets the
    // shown set's anchor (another fragment, e.g. #combinations, is kept).
    if (!c && !location.hash) history.replaceState(null, "", "#" + this.setFor(this.choice)[3]);
    var self = this;
    var follow = function () {
      var h = self.fromHash();
      if (h) self.select(h, null);
    };
    window.addEventListener("popstate", follow);
    window.addEventListener("hashchange", follow);
    if (c) {
      var heading = document.getElementById(this.setFor(c)[3]);
      if (heading) setTimeout(function () { heading.scrollIntoView(); }, 0);
    }
  };

  // ---- The command window: header, tabs, Copy and Copy all ----
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

  // Exactly what `mdbook-agentx decode FILE --cell … --conc … --kv … --router …`
  // prints (CommandSet::copy_all_text in src/decode/model.rs): the page's
  // code blocks, in order, with the titles and placements of the data.
  function copyAll(div, win) {
    var blocks = div.querySelectorAll("pre > code"), k = 0, parts = [];
    // A config file: a comment, then a quoted here-document writing it
    // (f = [name, "cat > name <<'EOF'", "EOF"]).
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

  function makeTabs(div, win, panels) {
    var names = (win.env ? ["Env Vars"] : []).concat(win.procs.map(function (p, i) {
      return (i + 1) + "· " + p[0];
    }));
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
      div.__agentxTab = i;
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
    if (panels.length) panels[0].parentNode.insertBefore(list, panels[0]);
    pick(0, false);
  }

  function makeWindow(div, sel, win, keys) {
    if (div.__agentxWindow || !win) return;
    div.__agentxWindow = true;
    div.classList.add("agentx-window");
    var bar = el("div", { "class": "agentx-window-bar" });
    bar.appendChild(el("span", { "class": "agentx-window-title" }, sel.context(keys)));
    var copy = el("button", { type: "button", "class": "agentx-copy-tab" }, "Copy");
    var all = el("button", { type: "button", "class": "agentx-copy-all" }, "Copy all");
    bar.appendChild(copy);
    bar.appendChild(all);
    div.insertBefore(bar, div.firstChild);
    var panels = panelsOf(div);
    if (panels.length > 1) makeTabs(div, win, panels);
    copy.addEventListener("click", function () {
      var panel = panels[div.__agentxTab || 0];
      var block = panel && panel.querySelector("pre > code");
      copyText(block ? codeText(block) : "", copy);
    });
    all.addEventListener("click", function () { copyText(copyAll(div, win), all); });
  }

  // ---- Copy link after every set heading that has none ----
  // The standalone builder writes its own button (button.copy-link, handled
  // by its book.js); mdBook's page has none, so it is added here, after the
  // heading and outside its text, as the builder does.
  function addCopyLinks() {
    var headings = document.querySelectorAll("h3.agentx-set[id]");
    Array.prototype.forEach.call(headings, function (h) {
      var next = h.nextElementSibling;
      if (next && next.querySelector("button.copy-link, button.agentx-copy-link")) return;
      var p = el("p", { "class": "agentx-set-actions" });
      var b = el("button", {
        type: "button", "class": "agentx-copy-link", "data-anchor": h.id,
        "aria-label": "Copy link to " + h.textContent.trim()
      }, "Copy link");
      b.addEventListener("click", function () {
        copyText(location.href.split("#")[0] + "#" + h.id, b);
      });
      p.appendChild(b);
      h.parentNode.insertBefore(p, next);
    });
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

  // ---- Start: one selector per data script ----
  function start() {
    addCopyLinks();
    var scripts = document.querySelectorAll("script.agentx-selector-data, script.agentx-model-data");
    Array.prototype.forEach.call(scripts, function (s) {
      var mount = s.previousElementSibling;
      if (!mount || !(mount.classList.contains("agentx-selector") || mount.classList.contains("agentx-picker"))) return;
      var data;
      try { data = JSON.parse(s.textContent); } catch (e) { return; }
      if (data.text) expandModelData(data);
      // In a page whose ids were rewritten (the single-file export), the
      // sets are not found under their anchors: leave the page static.
      if (!document.getElementById(data.here || data.section)) return;
      new Selector(data, mount).start();
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
