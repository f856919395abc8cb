//! Table tests of the constructs the InferenceX main `843c6254` scripts added
//! to what the interpreter reads (docs/sync-843c6254.md): `awk`
//! numeric tests, `sed` (printing, and in-place image patches vouched for by
//! the manifest), the neutral-branch rule, pipeline status with and without
//! `pipefail`, and `grep` deciding a condition. Invented scripts, multibyte
//! text included.

use super::tests::{HEAD, L, launch, launch_reviewed};

/// The launch's arguments after the module, or the refusal.
fn run(script: &str, env: &[(&str, &str)], reviewed: &[(&str, &str)]) -> (String, Vec<String>) {
    let script = format!("{HEAD}{}", script.replace("{L}", L));
    let (l, notes) = launch_reviewed(&script, env, reviewed);
    match l {
        Ok(l) => (super::tests::args_of(&l), notes),
        Err(e) => (e, notes),
    }
}

const ENV: [(&str, &str); 5] = [
    ("S", "270"),
    ("CAP", "270"),
    ("R", "0.75"),
    ("T", "日本"),
    ("TP", "8"),
];

#[test]
fn constructs_read() {
    let cases = [
        // awk numeric tests decide branches, decimals included.
        (
            "if awk -v s=\"$S\" -v cap=\"$CAP\" 'BEGIN { exit !(s > cap) }'; then F=over; else F=ok; fi; {L} $F",
            "ok",
        ),
        (
            "if awk -v s=\"$S\" 'BEGIN { exit !(s > 0) }'; then F=size; else F=ratio; fi; {L} $F",
            "size",
        ),
        (
            "if awk -v r=\"$R\" -v cap=0.75 'BEGIN { exit !(r > cap) }'; then exit 1; fi; {L} ok",
            "ok",
        ),
        (
            "awk -v r=\"$R\" -v c=0.8 'BEGIN { exit !(r < c) }' && F=lt; {L} ${F:-ge}",
            "lt",
        ),
        // sed only printing: skipped outside a condition.
        ("sed -n '/é/p' notes.txt; {L} printed", "printed"),
        // An undecidable `if` whose branch only runs programs: either way.
        (
            "if ! sed -n '/é/p' /opt/f.py | grep -q 日本; then echo \"$T\" >&2; fi; {L} same",
            "same",
        ),
    ];
    for (script, want) in cases {
        let (got, _) = run(script, &ENV, &[]);
        assert_eq!(got, want, "{script}");
    }
}

/// A pipeline's status: the last part's, or with `pipefail` (which HEAD
/// sets) the last failing part's.
#[test]
fn pipeline_status_follows_pipefail() {
    for (pipefail, parts, want) in [
        ("-o", "false | true", "failed"),
        ("+o", "false | true", "ok"),
        ("-o", "true | false", "failed"),
        ("+o", "true | false", "failed"),
        ("-o", "true | true", "ok"),
    ] {
        let script = format!("set {pipefail} pipefail; {parts} && F=ok; {{L}} ${{F:-failed}}");
        assert_eq!(run(&script, &ENV, &[]).0, want, "{script}");
    }
}

#[test]
fn constructs_refused() {
    let cases = [
        (
            "awk '{ print $1 }' trace.txt\n{L}\n",
            "s.sh:3: `awk` is not interpreted (the argument `trace.txt` is not read)",
        ),
        (
            "if awk -v s=\"$T\" 'BEGIN { exit !(s > 1) }'; then F=1; fi\n{L}\n",
            "s.sh:3: `awk` would have to run to decide the condition (`s` is `日本`, not a decimal",
        ),
        (
            "sed -i 's/a/é/' conf/x.txt\n{L}\n",
            "s.sh:3: `sed -i` edits `conf/x.txt`, a file of the repository",
        ),
        (
            "sed -i 's/a/é/' /opt/x.py\n{L}\n",
            "s.sh:3: `sed -i` patches /opt/x.py in the image before the launch: the server the \
             page's command starts would run without the patch. If the patch does not change \
             how the server serves, say why on the lane: image-patches = { \"s.sh:3\" = \"…\" }",
        ),
        (
            "sed -f edit.sed -i /opt/x.py\n{L}\n",
            "s.sh:3: `sed -f` is not read",
        ),
        // Branches that change the shell are not neutral; the either-way
        // rule reads those it can (tests_either.rs), not this one.
        (
            "if grep -q é /opt/f; then g() { :; }; fi\n{L}\n",
            "s.sh:3: `grep` would have to run to decide the condition; the `if` cannot be decided \
             (its branch changes the shell and does not only exit with an error); read both \
             ways, one way defines a function",
        ),
        (
            "g() { exit 3; }\nif grep -q é /opt/f; then g; fi\n{L}\n",
            "s.sh:4: `grep` would have to run to decide the condition; the `if` cannot be decided \
             (its branch changes the shell and does not only exit with an error); read both \
             ways, one way exits with status 3",
        ),
        (
            "if [ -d /opt ]; then export T; exit 0; fi\n{L}\n",
            "depends on the file system or the terminal; the `if` cannot be decided",
        ),
    ];
    for (script, want) in cases {
        let (got, _) = run(script, &ENV, &[]);
        assert!(got.contains(want), "{script}\n  got: {got}\n want: {want}");
    }
}

#[test]
fn reviewed_image_patches_are_noted() {
    let script =
        "if ! sed -n '/x/p' /opt/m.py | grep -q y; then\n  sed -i '/x/a y' /opt/m.py\nfi\n{L} ok\n";
    let (got, notes) = run(
        script,
        &ENV,
        &[("s.sh:4", "adds the 日本 field; serving unchanged")],
    );
    assert_eq!(got, "ok");
    assert_eq!(notes.len(), 2, "{notes:?}");
    // Notes are Markdown for the report: paths in code spans, the rest text.
    assert!(
        notes[0].starts_with("`s.sh:3`: \\`sed\\` would have to run to decide the condition")
            && notes[0].ends_with("(neutral-branch rule)"),
        "{notes:?}"
    );
    assert_eq!(
        notes[1],
        "`s.sh:4`: the script patches `/opt/m.py` in the image before the launch (`sed -i`); the \
         page's command starts the image as published. Reviewed in the manifest: adds the 日本 \
         field; serving unchanged"
    );
    // Vouching for another line does not cover this one.
    let (got, _) = run(script, &ENV, &[("s.sh:3", "wrong line")]);
    assert!(got.contains("s.sh:4: `sed -i` patches /opt/m.py"), "{got}");
    // After the launch nothing is judged: the server already runs.
    let (got, notes) = run("{L} ok &\nsed -i 's/a/b/' /opt/m.py\n", &ENV, &[]);
    assert_eq!((got.as_str(), notes.len()), ("ok", 0));
}

#[test]
fn a_guard_is_still_a_guard_through_a_pipeline() {
    let (l, notes) = launch(
        &format!("{HEAD}if ! sed -n 1p /opt/f | grep -q é; then\n  exit 1\nfi\n{L}\n"),
        &[],
    );
    assert!(l.is_ok(), "{l:?}");
    assert!(
        notes.len() == 1 && notes[0].ends_with("(guard rule)"),
        "{notes:?}"
    );
}

#[test]
fn image_patches_in_the_manifest_are_checked() {
    let sha = "843c6254ff69b567f772f6a5fd97675af3d04431";
    let manifest = |patches: &str| {
        let text = format!(
            "[source]\nrepo = \"o/n\"\nmain = \"{sha}\"\ngenerated-on = 2026-08-22\n\n[[lane]]\n\
             page = \"P\"\nconfig-key = \"k\"\ncommit = \"{sha}\"\nstatus = \"in-progress\"\n\
             image-patches = {patches}\n"
        );
        super::super::input::lane_manifest::parse(&text, std::path::Path::new("m.toml"))
    };
    let m = manifest("{ \"benchmarks/x.sh:130\" = \"reporting only: 日本\" }").unwrap();
    assert_eq!(
        m.lanes[0]
            .image_patches
            .get("benchmarks/x.sh:130")
            .map(String::as_str),
        Some("reporting only: 日本")
    );
    for (patches, want) in [
        (
            "{ \"benchmarks/x.sh\" = \"why\" }",
            "m.toml:6: lane `k`: image-patches: `benchmarks/x.sh` is not `<script path>:<line>`",
        ),
        (
            "{ \"x.sh:é\" = \"why\" }",
            "`x.sh:é` is not `<script path>:<line>`",
        ),
        (
            "{ \"x.sh:3\" = \" \" }",
            "image-patches: `x.sh:3` needs the reason the patch does not change serving",
        ),
    ] {
        let errors = manifest(patches).unwrap_err().join("\n");
        assert!(errors.contains(want), "{patches}: {errors}");
    }
}
