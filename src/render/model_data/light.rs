//! The model page's data in two parts: the page carries every
//! deployment's chips and sets, but only the window of the launch it opens
//! on (the first deployment's measured launch) and the texts that window
//! uses; the whole data is elsewhere ([`WholeData`]), loaded when the
//! reader first asks for another launch. The largest real model page's data
//! is 22.7 KB gzip; what the page itself carries is about 3 KB of it.
//!
//! Works on the JSON [`super::ModelData`] writes, so the split follows the
//! same format: the light part is a valid model data of its own, with
//! `full` naming where the whole is and every other set's window index `-1`.
//! [`splice_model_data`] replaces the model-data scripts of a rendered page,
//! for the two places that split them (the standalone site and mdBook's
//! preprocessor run).

use std::collections::BTreeMap;

use serde_json::{Value, json};

/// Where the whole model data is, for its light part to name.
#[derive(Debug, Clone, Copy)]
pub(crate) enum WholeData<'a> {
    /// A script file beside the page (the standalone builder): `full` is
    /// its name, which agentx.js loads with a `<script src>`.
    Script(&'a str),
    /// Pages of the book that hold the whole data's JSON text in parts, in
    /// order (mdBook's output, which can hold no file but its chapters'):
    /// their hrefs relative to the page, as a deployment's `href` is.
    /// `full` is the first (the key agentx.js keeps the data under) and
    /// `parts` lists them all; agentx.js reads each in a hidden frame.
    Pages(&'a [String]),
}

/// The light part of the model data `full` (JSON text), whose whole data
/// `whole` holds; `None` when `full` is not model data.
pub(crate) fn light_model_data(full: &str, whole: WholeData<'_>) -> Option<String> {
    let data: Value = serde_json::from_str(full).ok()?;
    let window = first_window(&data)?;
    let mut keep = Keep::default();
    // Every set's status label stays: the chips and badges use them.
    for dep in data["deps"].as_array()? {
        for set in dep["sets"].as_array()? {
            keep.text(set[5].as_u64()?);
        }
    }
    let win = &data["wins"][window];
    keep.window(&data, win)?;
    let mut light = data.clone();
    let map = keep.renumber(&data, &mut light)?;
    light["wins"] = json!([map.new_window(win)]);
    for dep in light["deps"].as_array_mut()? {
        for set in dep["sets"].as_array_mut()? {
            let w = set[6].as_u64()? as usize;
            set[6] = json!(if w == window { 0 } else { -1 });
            set[5] = json!(map.text[&set[5].as_u64()?]);
        }
    }
    match whole {
        WholeData::Script(script) => light["full"] = json!(script),
        WholeData::Pages(pages) => {
            light["full"] = json!(pages.first()?);
            light["parts"] = json!(pages);
        }
    }
    crate::util::escape::script_json(&light).ok()
}

/// How a model-data script starts and ends in a rendered page.
const OPEN: &str = "<script type=\"application/json\" class=\"agentx-model-data\">";
const CLOSE: &str = "</script>";

/// The byte ranges of the JSON of every model-data script in `text` (a
/// rendered page or chapter), in order; `None` when a script is not
/// closed. A script naming an earlier section's picker (`{"like": …}`) is
/// listed too ([`splice_model_data`] leaves it as it is).
pub(crate) fn model_data_scripts(text: &str) -> Option<Vec<std::ops::Range<usize>>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(OPEN) {
        let start = from + at + OPEN.len();
        let end = start + text[start..].find(CLOSE)?;
        out.push(start..end);
        from = end + CLOSE.len();
    }
    Some(out)
}

/// `text` with the JSON of each model-data script replaced by what
/// `replace` writes for it (given the JSON and the output so far); a
/// script naming an earlier section's picker (`{"like": …}`) stays as it
/// is. `None` when there is nothing to replace (no script, or only
/// repeats), a script is not closed, or `replace` gives up.
pub(crate) fn splice_model_data(
    text: &str,
    mut replace: impl FnMut(&str, &mut String) -> Option<()>,
) -> Option<String> {
    let scripts = model_data_scripts(text)?;
    let holds_data = |r: &std::ops::Range<usize>| !super::ModelDataJson::is_like(&text[r.clone()]);
    if !scripts.iter().any(holds_data) {
        return None;
    }
    let mut out = String::with_capacity(text.len() / 4);
    let mut done = 0;
    for range in scripts {
        out.push_str(&text[done..range.start]);
        let json = &text[range.clone()];
        if holds_data(&range) {
            replace(json, &mut out)?;
        } else {
            out.push_str(json);
        }
        done = range.end;
    }
    out.push_str(&text[done..]);
    Some(out)
}

/// The window index of the first deployment's measured launch of its first
/// point (the launch the picker opens on).
fn first_window(data: &Value) -> Option<usize> {
    let dep = &data["deps"][0];
    let tier = dep["points"][0][1].as_str()?;
    let router = dep["submitted"].as_str()?;
    dep["sets"].as_array()?.iter().find_map(|s| {
        (s[0] == 0 && s[1] == tier && s[2] == router).then(|| s[6].as_u64().map(|w| w as usize))?
    })
}

/// Per table, the entries the light part keeps: old indices while they
/// are gathered, then old index → new index ([`Keep::renumber`]).
#[derive(Default)]
struct Keep {
    text: BTreeMap<u64, u64>,
    cmds: BTreeMap<u64, u64>,
    files: BTreeMap<u64, u64>,
    procs: BTreeMap<u64, u64>,
    rich: BTreeMap<u64, u64>,
}

impl Keep {
    fn text(&mut self, i: u64) {
        self.text.insert(i, 0);
    }

    /// A text of several lines, with the earlier entries its edits build on.
    fn cmd(&mut self, data: &Value, i: u64) -> Option<()> {
        if self.cmds.insert(i, 0).is_some() {
            return Some(());
        }
        let c = &data["cmds"][i as usize];
        match c.get("b") {
            Some(base) => {
                self.cmd(data, base.as_u64()?)?;
                let d = c["d"].as_array()?;
                let mut k = 0;
                while k < d.len() {
                    let n = d.get(k + 2)?.as_u64()? as usize;
                    for line in d.get(k + 3..k + 3 + n)? {
                        self.text(line.as_u64()?);
                    }
                    k += 3 + n;
                }
            }
            None => {
                for l in c.as_array()? {
                    self.text(l.as_u64()?);
                }
            }
        }
        Some(())
    }

    fn file(&mut self, data: &Value, i: u64) -> Option<()> {
        self.files.insert(i, 0);
        let f = data["files"][i as usize].as_array()?;
        self.text(f[0].as_u64()?);
        self.text(f[1].as_u64()?);
        self.cmd(data, f[2].as_u64()?)?;
        self.text(f[3].as_u64()?);
        Some(())
    }

    fn window(&mut self, data: &Value, w: &Value) -> Option<()> {
        if let Some(e) = w.get("e") {
            self.cmd(data, e.as_u64()?)?;
        }
        for p in w["p"].as_array()? {
            let p = p.as_u64()?;
            self.procs.insert(p, 0);
            let proc_ = data["procs"][p as usize].as_array()?;
            for t in &proc_[..3] {
                self.text(t.as_u64()?);
            }
            self.rich.insert(proc_[3].as_u64()?, 0);
            self.cmd(data, proc_[4].as_u64()?)?;
            for f in proc_[5].as_array()? {
                self.file(data, f.as_u64()?)?;
            }
        }
        for f in w.get("l").and_then(Value::as_array).into_iter().flatten() {
            self.file(data, f.as_u64()?)?;
        }
        for r in w.get("n").and_then(Value::as_array).into_iter().flatten() {
            self.rich.insert(r.as_u64()?, 0);
        }
        if let Some(m) = w.get("m") {
            self.rich.insert(m.as_u64()?, 0);
        }
        // The first launch is a measured one: it changes nothing. Were it
        // not (`c`), the page keeps the whole data rather than a window
        // without its changes.
        if w.get("c").is_some() {
            return None;
        }
        Some(())
    }

    /// The kept entries of each table into `light`, in their old order.
    fn renumber(self, data: &Value, light: &mut Value) -> Option<Keep> {
        fn number(m: BTreeMap<u64, u64>) -> BTreeMap<u64, u64> {
            m.into_keys()
                .enumerate()
                .map(|(new, old)| (old, new as u64))
                .collect()
        }
        let map = Keep {
            text: number(self.text),
            cmds: number(self.cmds),
            files: number(self.files),
            procs: number(self.procs),
            rich: number(self.rich),
        };
        let pick = |table: &str, m: &BTreeMap<u64, u64>| -> Vec<Value> {
            m.keys().map(|i| data[table][*i as usize].clone()).collect()
        };
        light["text"] = json!(pick("text", &map.text));
        light["rich"] = json!(pick("rich", &map.rich));
        let cmds = pick("cmds", &map.cmds)
            .into_iter()
            .map(|c| map.new_cmd(&c))
            .collect::<Option<Vec<_>>>()?;
        light["cmds"] = json!(cmds);
        let files = pick("files", &map.files)
            .into_iter()
            .map(|f| map.new_file(&f))
            .collect::<Option<Vec<_>>>()?;
        light["files"] = json!(files);
        let procs = pick("procs", &map.procs)
            .into_iter()
            .map(|p| map.new_proc(&p))
            .collect::<Option<Vec<_>>>()?;
        light["procs"] = json!(procs);
        Some(map)
    }
}

impl Keep {
    fn new_cmd(&self, c: &Value) -> Option<Value> {
        let lines = |v: &[Value]| -> Option<Vec<u64>> {
            v.iter().map(|l| Some(self.text[&l.as_u64()?])).collect()
        };
        match c.get("b") {
            None => Some(json!(lines(c.as_array()?)?)),
            Some(base) => {
                let d = c["d"].as_array()?;
                let mut out = Vec::with_capacity(d.len());
                let mut k = 0;
                while k < d.len() {
                    let n = d.get(k + 2)?.as_u64()? as usize;
                    out.extend(
                        d.get(k..k + 3)?
                            .iter()
                            .map(|v| v.as_u64())
                            .collect::<Option<Vec<_>>>()?,
                    );
                    out.extend(lines(d.get(k + 3..k + 3 + n)?)?);
                    k += 3 + n;
                }
                Some(json!({"b": self.cmds[&base.as_u64()?], "d": out}))
            }
        }
    }

    fn new_file(&self, f: &Value) -> Option<Value> {
        let f = f.as_array()?;
        Some(json!([
            self.text[&f[0].as_u64()?],
            self.text[&f[1].as_u64()?],
            self.cmds[&f[2].as_u64()?],
            self.text[&f[3].as_u64()?]
        ]))
    }

    fn new_proc(&self, p: &Value) -> Option<Value> {
        let p = p.as_array()?;
        let files: Option<Vec<u64>> = p[5]
            .as_array()?
            .iter()
            .map(|f| Some(self.files[&f.as_u64()?]))
            .collect();
        Some(json!([
            self.text[&p[0].as_u64()?],
            self.text[&p[1].as_u64()?],
            self.text[&p[2].as_u64()?],
            self.rich[&p[3].as_u64()?],
            self.cmds[&p[4].as_u64()?],
            files?
        ]))
    }

    /// The window `w` with the new indices.
    fn new_window(&self, w: &Value) -> Value {
        let ix = |m: &BTreeMap<u64, u64>, v: &Value| v.as_u64().and_then(|i| m.get(&i)).copied();
        let list = |m: &BTreeMap<u64, u64>, key: &str| -> Vec<u64> {
            w.get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|v| ix(m, v))
                .collect()
        };
        let mut out = json!({"p": list(&self.procs, "p")});
        if let Some(e) = w.get("e").and_then(|e| ix(&self.cmds, e)) {
            out["e"] = json!(e);
        }
        for (key, m) in [("l", &self.files), ("n", &self.rich)] {
            let v = list(m, key);
            if !v.is_empty() {
                out[key] = json!(v);
            }
        }
        if let Some(m) = w.get("m").and_then(|m| ix(&self.rich, m)) {
            out["m"] = json!(m);
        }
        out
    }
}
