
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
