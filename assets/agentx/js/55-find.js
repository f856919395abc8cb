
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
