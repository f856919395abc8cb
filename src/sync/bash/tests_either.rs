//! Table tests of what the DeepSeek-V4 scripts of InferenceX main `843c6254`
//! needed: the either-way rule, values known only in part (not empty, a
//! path in the checkout, the program `command -v` names, maybe unset) and
//! the command substitutions read without running them
//! (docs/sync-bash-lanes.md). Invented scripts, multibyte text included.

use super::tests::{HEAD, L, launch};

/// The launch's arguments (unknown ones as `<why>`), or the refusal; and
/// the notes.
fn run(script: &str) -> (String, Vec<String>) {
    let script = format!("{HEAD}{}", script.replace("{L}", L));
    let (l, notes) = launch(&script, &[("MODEL", "é/m")]);
    match l {
        Ok(l) => (super::tests::args_of(&l), notes),
        Err(e) => (e, notes),
    }
}

/// Each script's launch arguments or refusal holds its text (the whole
/// of it when that is empty).
fn assert_cases(cases: &[(&str, &str)]) {
    for (script, want) in cases {
        let (got, _) = run(script);
        assert!(got.contains(want), "{script}\n  got: {got}\n want: {want}");
        assert!(!want.is_empty() || got.is_empty(), "{script}\n  got: {got}");
    }
}

#[test]
fn undecided_ifs_read_both_ways() {
    let cases = [
        // The way taken changes nothing the launch shows.
        (
            "if [ -d /opt/é ]; then N=é; else N=ü; fi\n{L} --tp 1\n",
            "--tp 1",
        ),
        // A value set either way is not known, and not empty when neither is.
        (
            "if grep -q é /opt/f; then N=é; else N=ü; fi\nif [ -n \"$N\" ]; then F=1; fi\n{L} --n \"$N\" --f $F\n",
            "--n <set either way of the `if` at s.sh:3, undecided: `grep` would have to run to \
             decide the condition> --f 1",
        ),
        // Set one way only: maybe unset, so a test of it is undecided too.
        (
            "if [ -d /opt ]; then U=1; fi\n{L} --u \"${U:-d}\"\n",
            "--u <`${U}`, which may be empty or unset (set either way of the `if` at s.sh:3, undecided: \
             the test `-d` depends on the file system or the terminal), or what replaces it>",
        ),
        (
            "if [ -d /opt ]; then U=1; fi\nif [[ -v U ]]; then exit 1; fi\n{L}\n",
            "",
        ),
        // Not empty with `:-` and a default that is not; with `-` it may be.
        (
            "if [ -d /opt ]; then U=é; fi\nV=\"${U:-d}\"; W=\"${U-d}\"\n\
             if [ -n \"$V\" ]; then F=1; fi\nif [ -n \"$W\" ]; then G=1; else G=2; fi\n{L} --f $F --g \"$G\"\n",
            "--f 1 --g <set either way of the `if` at s.sh:6",
        ),
        (
            "if [ -d /opt ]; then exit 0; else N=1; fi\n{L}\n",
            "s.sh:3: the test `-d` depends on the file system or the terminal; the `if` cannot \
             be decided; read both ways, one way exits with status 0",
        ),
        (
            "if [ -d /opt ]; then N=1; elif [ -d /é ]; then N=2; fi\n{L}\n",
            "read both ways, an `elif` would have to be decided too",
        ),
        (
            "if [ -d /opt ]; then A=(1); else A=(2 3); fi\n{L}\n",
            "read both ways, the array `A` differs between the two ways, so it has no single shape",
        ),
        (
            "if grep -q é /f && N=1; then M=1; else M=2; fi\n{L}\n",
            "read both ways, its condition could change the shell",
        ),
        (
            "if [ -d /opt ]; then {L} --tp 1; else M=2; fi\n",
            "read both ways, one way launches the server",
        ),
        (
            "if [ -d /opt ]; then set +e; fi\n{L}\n",
            "read both ways, the two ways differ in shell options or parameters",
        ),
    ];
    assert_cases(&cases);
    let (_, notes) = run("if [ -d /opt/é ]; then N=é; X=1; else N=ü; fi\n{L}\n");
    assert_eq!(
        notes,
        [
            "`s.sh:3`: the test \\`-d\\` depends on the file system or the terminal; read both \
          ways, it leaves `N`, `X` unknown (either-way rule)"
        ]
    );
}

#[test]
fn command_substitutions_read_without_running() {
    let cases = [
        // What a skipped harness function assigns reaches the launch as an
        // unknown value: the mapping refuses it where the page would show it.
        (
            "resolve_trace_source\nX=\"$TRACE_FLAG\"\n{L} --x \"$X\"\n",
            "--x <assigned by `resolve_trace_source`, which is not interpreted>",
        ),
        ("X=~/x\n{L} --x \"$X\"\n", "--x <a home directory (`~`)>"),
        (
            "D=\"$(cd \"$(dirname \"$0\")/../é\" && pwd)\"\n{L} --d \"$D/x\"\n",
            "--d <`<checkout>/é/x`, a path in the InferenceX checkout",
        ),
        (
            "P=\"$(command -v python3)\"\n\"$P\" -m sglang.launch_server --tp 1\n",
            "--tp 1",
        ),
        (
            "X=$(find /usr/local/cuda* -name ptxas -print -quit 2>/dev/null || true)\n{L} --x \"$X\"\n",
            "--x <what `$(find /usr/local/cuda* -name ptxas -print -quit 2>/dev/null || true)` \
             prints, which would have to run>",
        ),
        (
            "X=$(date +%s)\n{L} --x $X\n",
            "s.sh:4: `$X` is unquoted, and the words its unknown text splits into are not known",
        ),
        (
            "X=$(find /opt -name é -delete)\n{L}\n",
            "s.sh:3: `$(find /opt -name é -delete)` before the server launch: `find -delete` acts \
             on files instead of printing",
        ),
        (
            "X=$(ls > é.txt)\n{L}\n",
            "only simple commands of printing programs, with redirections to /dev/null, are read",
        ),
        (
            "X=$(cat $(ls))\n{L}\n",
            "`$(ls)` holds a command substitution of its own",
        ),
        (
            "{L} --d \"$(cd bin && pwd)\"\n",
            "`$(cd bin && pwd)` may fail and print nothing",
        ),
        (
            "D=\"$(cd /opt && pwd)\"\n{L}\n",
            "a folder outside the checkout, whose path depends on the image",
        ),
        (
            "D=\"$(cd ../.. && pwd)\"\n{L}\n",
            "`../..` leaves the checkout",
        ),
        (
            "set +e\nX=$(date)\n{L}\n",
            "the status of `$(date)` becomes `$?`, which cannot be known without running it",
        ),
        (
            "if X=$(date); then N=1; fi\n{L}\n",
            "the status of `$(date)` would have to be known to decide the condition",
        ),
    ];
    assert_cases(&cases);
}
