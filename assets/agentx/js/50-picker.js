
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
