
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
