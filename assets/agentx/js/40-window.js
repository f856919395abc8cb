
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
