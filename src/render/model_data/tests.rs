//! The model data against the decoded sets it is made from.

use super::*;
use crate::test_support::fixture;

#[test]
fn markdown_lines_become_segments() {
    assert_eq!(
        segments("Start once on `$ETCD_IP`, see [PR \\#3](https://x/y?a=1&b=2)\\*."),
        json!([
            "Start once on ",
            ["c", "$ETCD_IP"],
            ", see ",
            ["a", "PR #3", "https://x/y?a=1&b=2"],
            "*."
        ])
    );
    // No smart punctuation: quotes and dashes stay as written.
    assert_eq!(segments("it's --x"), json!(["it's --x"]));
    assert_eq!(segments("ü `a``b` é"), json!(["ü ", ["c", "a``b"], " é"]));
}

/// The lines of `cmds[i]`, as agentx.js reads them.
fn lines_of(cmds: &[Value], i: u32) -> Vec<u32> {
    let c = &cmds[i as usize];
    let Some(base) = c.get("b") else {
        return serde_json::from_value(c.clone()).unwrap();
    };
    let mut lines = lines_of(cmds, base.as_u64().unwrap() as u32);
    let d: Vec<u32> = serde_json::from_value(c["d"].clone()).unwrap();
    let mut splices = Vec::new();
    let mut k = 0;
    while k < d.len() {
        let (at, removed, n) = (d[k] as usize, d[k + 1] as usize, d[k + 2] as usize);
        splices.push((at, removed, d[k + 3..k + 3 + n].to_vec()));
        k += 3 + n;
    }
    for (at, removed, ins) in splices.into_iter().rev() {
        lines.splice(at..at + removed, ins);
    }
    lines
}

#[test]
fn deltas_rebuild_their_lines() {
    let earlier = vec![vec![1, 2, 3, 4, 5], vec![9, 9]];
    for lines in [
        vec![1, 2, 7, 4, 5, 8],
        vec![0, 1, 2, 3, 4, 5],
        vec![3],
        vec![6, 6, 6],
    ] {
        let mut cmds: Vec<Value> = earlier.iter().map(|e| json!(e)).collect();
        cmds.push(delta(&earlier, &lines));
        assert_eq!(lines_of(&cmds, 2), lines, "{}", cmds[2]);
    }
    // Short texts stay whole; a long one with one line changed is an edit.
    assert_eq!(delta(&earlier, &[1, 2, 7, 4, 5]), json!([1, 2, 7, 4, 5]));
    let long = vec![(0..20).collect::<Vec<u32>>()];
    let mut changed: Vec<u32> = (0..20).collect();
    changed[3] = 77;
    assert_eq!(delta(&long, &changed), json!({"b": 0, "d": [3, 1, 1, 77]}));
}

/// Every set's window, put together from the tables as agentx.js puts
/// it together, gives the set's commands and Copy all text.
#[test]
fn windows_rebuild_every_set() {
    let page = crate::decode::decode_file(&fixture("data/mini.json"))
        .unwrap()
        .page;
    let all: Vec<&Deployment> = page.deployments.iter().collect();
    let data = model_data(&page, &all, "mini");
    let text = |i: u32| data.text[i as usize].to_string();
    let command = |i: u32| {
        let lines: Vec<String> = lines_of(&data.cmds, i).iter().map(|l| text(*l)).collect();
        lines.join("\n")
    };
    let file = |i: u32| {
        let [name, head, content, delim] = data.files[i as usize];
        format!(
            "# {} (written next to the commands)\n{}\n{}\n{}",
            text(name),
            text(head),
            command(content),
            text(delim)
        )
    };
    let mut n = 0;
    for (d, dd) in all.iter().zip(&data.deps) {
        for (s, keys) in d.command_sets.iter().zip(&dd.sets) {
            let extra = keys.6.as_ref().unwrap();
            let w = &data.wins[extra.window];
            let mut parts = Vec::new();
            if let Some(e) = w.e {
                parts.push(format!(
                    "# Set per node before running the commands below\n{}",
                    command(e)
                ));
            }
            for p in &w.p {
                let (_, long, placement, _, cmd, files) = &data.procs[*p as usize];
                let mut part = format!(
                    "# {}\n# {}\n{}",
                    text(*long),
                    text(*placement),
                    command(*cmd)
                );
                for f in files {
                    part.push_str("\n\n");
                    part.push_str(&file(*f));
                }
                parts.push(part);
            }
            parts.extend(w.l.iter().map(|f| file(*f)));
            assert_eq!(parts.join("\n\n") + "\n", s.copy_all_text(), "{}", s.anchor);
            // The anchor as agentx.js makes it from the chip labels.
            let made = match &extra.anchor {
                Some(a) => a.clone(),
                None => format!(
                    "{}-{}-{}-{}",
                    d.anchor,
                    dd.points[s.point].0.replace(" / c", "-"),
                    s.tier.id(),
                    s.router.id()
                ),
            };
            assert_eq!(made, s.anchor);
            assert_eq!(text(extra.label), s.status.label());
            n += 1;
        }
    }
    assert_eq!(n, page.command_set_count());
    // Shared: fewer commands and processes than sets × processes.
    let procs: usize = page.command_sets().map(|s| s.processes.len()).sum();
    assert!(data.procs.len() < procs, "{} of {procs}", data.procs.len());
}

/// The lines of `cmds[i]` of model data as JSON, joined.
fn json_command(data: &Value, i: &Value) -> String {
    let cmds: Vec<Value> = serde_json::from_value(data["cmds"].clone()).unwrap();
    lines_of(&cmds, i.as_u64().unwrap() as u32)
        .iter()
        .map(|l| data["text"][*l as usize].as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Copy all of window `w` of model data as JSON, put together as
/// agentx.js puts it together.
fn json_copy_all(data: &Value, w: usize) -> String {
    let text = |v: &Value| data["text"][v.as_u64().unwrap() as usize].as_str().unwrap();
    let file = |f: &Value| {
        let f = &data["files"][f.as_u64().unwrap() as usize];
        format!(
            "# {} (written next to the commands)\n{}\n{}\n{}",
            text(&f[0]),
            text(&f[1]),
            json_command(data, &f[2]),
            text(&f[3])
        )
    };
    let win = &data["wins"][w];
    let mut parts = Vec::new();
    if let Some(e) = win.get("e") {
        let exports = json_command(data, e);
        parts.push(format!(
            "# Set per node before running the commands below\n{exports}"
        ));
    }
    for p in win["p"].as_array().unwrap() {
        let p = &data["procs"][p.as_u64().unwrap() as usize];
        let mut part = format!(
            "# {}\n# {}\n{}",
            text(&p[1]),
            text(&p[2]),
            json_command(data, &p[4])
        );
        for f in p[5].as_array().unwrap() {
            part.push_str("\n\n");
            part.push_str(&file(f));
        }
        parts.push(part);
    }
    let loose = win
        .get("l")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    parts.extend(loose.iter().map(file));
    parts.join("\n\n") + "\n"
}

/// The light part keeps every deployment's chips and sets, and the one
/// window the picker opens on, complete: its Copy all is the first
/// deployment's measured launch's; every other set's window is `-1`
/// (loaded with the whole data), and the tables are smaller.
#[test]
fn the_light_part_opens_on_the_first_measured_launch() {
    let page = crate::decode::decode_file(&fixture("data/mini.json"))
        .unwrap()
        .page;
    let all: Vec<&Deployment> = page.deployments.iter().collect();
    let data = model_data(&page, &all, "mini");
    let full_text = crate::util::escape::script_json(&data).unwrap();
    let full: Value = serde_json::from_str(&full_text).unwrap();
    let light_text =
        light_model_data(&full_text, WholeData::Script("mini.agentx-data.js")).unwrap();
    let light: Value = serde_json::from_str(&light_text).unwrap();
    assert_eq!(light["full"], "mini.agentx-data.js");
    assert_eq!(light["wins"].as_array().unwrap().len(), 1);
    let first = &all[0];
    let opened = first
        .command_sets
        .iter()
        .find(|s| s.point == 0 && s.tier == s.measured && s.router == first.submitted)
        .unwrap();
    assert_eq!(json_copy_all(&light, 0), opened.copy_all_text());
    let mut kept = 0;
    for (d, (fd, ld)) in all.iter().zip(
        full["deps"]
            .as_array()
            .unwrap()
            .iter()
            .zip(light["deps"].as_array().unwrap()),
    ) {
        for (s, (fs, ls)) in d
            .command_sets
            .iter()
            .zip(fd["sets"].as_array().unwrap().iter().zip(ls_sets(ld)))
        {
            // Chips and keys as in the whole data; the label's text kept.
            assert_eq!(fs.as_array().unwrap()[..5], ls.as_array().unwrap()[..5]);
            let label =
                |data: &Value, set: &Value| data["text"][set[5].as_u64().unwrap() as usize].clone();
            assert_eq!(label(&light, ls), s.status.label());
            assert_eq!(
                json_copy_all(&full, fs[6].as_u64().unwrap() as usize),
                s.copy_all_text()
            );
            if s.anchor == opened.anchor {
                assert_eq!(ls[6], 0);
                kept += 1;
            } else {
                assert_eq!(ls[6], -1, "{}", s.anchor);
            }
        }
    }
    assert_eq!(kept, 1);
    assert!(
        light_text.len() * 3 < full_text.len(),
        "{} of {}",
        light_text.len(),
        full_text.len()
    );
    // Not model data: no light part.
    assert_eq!(
        light_model_data("{\"a\": 1}", WholeData::Script("x.js")),
        None
    );
}

fn ls_sets(d: &Value) -> impl Iterator<Item = &Value> {
    d["sets"].as_array().unwrap().iter()
}
