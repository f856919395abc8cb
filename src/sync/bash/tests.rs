//! Table tests of the bash interpreter on invented scripts (multibyte text
//! included), and property tests that no input makes it panic.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use proptest::prelude::*;

use super::interp::MAX_NESTING;
use super::interp::{Files, Launch};
use super::run_script;
use super::syntax::{self, MAX_OPENERS, Script};

/// Sourced files by repository path.
struct Mem(HashMap<&'static str, &'static str>);

impl Files for Mem {
    fn read(&mut self, path: &str) -> Result<Option<Rc<Script>>, String> {
        match self.0.get(path) {
            None => Ok(None),
            Some(text) => Ok(Some(Rc::new(syntax::parse_script(
                text,
                &format!("{path}@lib"),
            )?))),
        }
    }
}

const LIB: &str = r#"export PORT="${PORT:-8888}"
lib_flag() { echo "--lib"; }
check_env_vars() {
    local missing_vars=()
    for var_name in "$@"; do
        if [[ -z "${!var_name:-}" ]]; then
            missing_vars+=("$var_name")
        fi
    done
    if [[ ${#missing_vars[@]} -gt 0 ]]; then
        echo "missing: ${missing_vars[*]}"
        exit 1
    fi
}
resolve_trace_source() { TRACE_FLAG="--x"; local d; d=1; }
install_agentic_deps() { export LEAK=1; }
"#;

/// Runs `script` as `bin/s.sh` with the point env `env`.
pub(super) fn launch(script: &str, env: &[(&str, &str)]) -> (Result<Launch, String>, Vec<String>) {
    launch_reviewed(script, env, &[])
}

/// [`launch`] with image patches vouched for (`s.sh:<line>` → reason).
pub(super) fn launch_reviewed(
    script: &str,
    env: &[(&str, &str)],
    reviewed: &[(&str, &str)],
) -> (Result<Launch, String>, Vec<String>) {
    let parsed = match syntax::parse_script(script, "s.sh") {
        Ok(p) => p,
        Err(e) => return (Err(e), Vec::new()),
    };
    let env: BTreeMap<&str, String> = env.iter().map(|(k, v)| (*k, v.to_string())).collect();
    let mut files = Mem([("lib/l.sh", LIB)].into_iter().collect());
    let reviewed = reviewed
        .iter()
        .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
        .collect();
    run_script("bin/s.sh", &parsed, env, &mut files, reviewed)
}

/// The launch's words after `python3 -m sglang.launch_server`, unknown ones
/// shown as `<why>`.
pub(super) fn args_of(l: &Launch) -> String {
    let words: Vec<String> = l.argv[3..].iter().map(super::state::Val::shown).collect();
    words.join(" ")
}

pub(super) const HEAD: &str = "set -euo pipefail\nsource \"$(dirname \"$0\")/../lib/l.sh\"\n";

fn argv_of(script: &str, env: &[(&str, &str)]) -> String {
    match launch(&format!("{HEAD}{script}"), env).0 {
        Ok(l) => args_of(&l),
        Err(e) => panic!("{script}: {e}"),
    }
}

fn err_of(script: &str, env: &[(&str, &str)]) -> String {
    match launch(&format!("{HEAD}{script}"), env).0 {
        Ok(l) => panic!("{script}: launched {:?}", l.argv),
        Err(e) => e,
    }
}

pub(super) const L: &str = "python3 -m sglang.launch_server";

#[test]
fn expansions() {
    let env = [
        ("TP", "2"),
        ("CONC", "36"),
        ("MODEL", "org/Mödel-FP8"),
        ("EMPTY", ""),
    ];
    let cases = [
        (
            "A=(--a \"$TP\"); B=(\"${A[@]}\" --b); {L} \"${B[@]}\"",
            "--a 2 --b",
        ),
        (
            "{L} --x \"${UNSET:-dé faut}\" --y ${EMPTY:-z} --w \"${EMPTY-kept}\"",
            "--x dé faut --y z --w ",
        ),
        (
            "{L} --m \"${MODEL##*/}\" --o \"${MODEL%%/*}\" --n ${#MODEL}",
            "--m Mödel-FP8 --o org --n 13",
        ),
        ("V=\"日本 語\"; {L} $V \"$V\" ${#V}", "日本 語 日本 語 4"),
        (
            "{L} --r $((2 * CONC)) --g $(( (CONC > 64) ? 64 : CONC ))",
            "--r 72 --g 36",
        ),
        (
            "X=a; X+=b; A=(1); A+=(2 3); {L} \"$X\" \"${A[@]}\" ${#A[@]} \"${A[1]}\"",
            "ab 1 2 3 3 2",
        ),
        (
            "{L} \"${SET:=def}\" \"$SET\" \"${TP:+alt}\" \"${NONE:+alt}\"",
            "def def alt ",
        ),
        ("E=(); {L} --e \"${E[@]}\" --f", "--e --f"),
        ("{L} '$TP' \"\\$TP\" \"a\"'b'c", "$TP $TP abc"),
        (
            "{L} --p \"$PORT\" --d \"$(dirname bin/x/y.sh)\"",
            "--p 8888 --d bin/x",
        ),
    ];
    for (script, want) in cases {
        let script = script.replace("{L}", L);
        assert_eq!(argv_of(&script, &env), want, "{script}");
    }
}

#[test]
fn control_flow() {
    let env = [("TP", "4"), ("KV", "dram"), ("DP", "false"), ("CONC", "40")];
    let cases = [
        (
            "if [[ -n \"${TP:-}\" && \"$KV\" == d* ]]; then F=yes; else F=no; fi; {L} $F",
            "yes",
        ),
        (
            "if [ \"$TP\" -ge 4 ] && [ \"$DP\" != true ]; then F=big; fi; {L} ${F:-small}",
            "big",
        ),
        (
            "case \"$KV\" in none) F=n ;; dr*|x) F=d ;; *) F=o ;; esac; {L} $F",
            "d",
        ),
        ("[[ \"270\" =~ ^[0-9]+$ ]] && F=num; {L} ${F:-nan}", "num"),
        (
            "[[ \"a.c\" =~ \"a.b\" ]] || F=literal; {L} ${F:-regex}",
            "literal",
        ),
        (
            "M=$((2 * CONC)); G=$M; [ \"$G\" -gt 64 ] && G=64; {L} $M $G",
            "80 64",
        ),
        (
            "f() { local x=\"$1\"; echo \"$x\"; return 3; }; f a || S=$?; {L} ${S}",
            "3",
        ),
        ("check_env_vars TP KV; {L} ok", "ok"),
        (
            "N=0; for v in a 'b c' \"$TP\"; do N=$((N + 1)); done; {L} $N \"$v\"",
            "3 4",
        ),
        ("{ X=1; } | tee log; {L} \"${X:-unset}\"", "unset"),
        (
            "if awk 'BEGIN { exit 1 }'; then echo bad >&2; exit 1; fi; {L} past",
            "past",
        ),
        (
            "hf download \"$MODEL\" || true; nvidia-smi; mkdir -p x 2>/dev/null; {L} ok",
            "ok",
        ),
        (
            "resolve_trace_source; install_agentic_deps 2>/dev/null || :; {L} x",
            "",
        ),
    ];
    for (script, want) in cases {
        let script = script.replace("{L}", L);
        let mut env = env.to_vec();
        env.push(("MODEL", "m"));
        let got = match launch(&format!("{HEAD}{script}"), &env).0 {
            Ok(l) => args_of(&l),
            Err(e) => e,
        };
        if want.is_empty() {
            assert!(
                got.contains(
                    "cannot be skipped before the launch: `install_agentic_deps` runs `export`"
                ),
                "{script}: {got}"
            );
        } else {
            assert_eq!(got, want, "{script}");
        }
    }
}

#[test]
fn the_launch_env_is_what_the_script_exports() {
    let script = format!(
        "{HEAD}export A=1 B\nB=2\nC=3\nexport TP\nFOO=bar {L} --tp \"$TP\" &\nSERVER_PID=$!\nexport LATE=1\n"
    );
    let (l, _) = launch(&script, &[("TP", "8"), ("INHERITED", "x")]);
    let l = l.unwrap();
    let env: Vec<String> = l
        .env
        .iter()
        .map(|(k, v)| format!("{k}={}", v.shown()))
        .collect();
    assert_eq!(env, ["A=1", "B=2", "FOO=bar", "PORT=8888", "TP=8"]);
    assert_eq!(l.at, "s.sh:7");
}

#[test]
fn refusals_name_file_and_line() {
    let env = [("TP", "8")];
    let cases = [
        (
            "X=$(rm -f /tmp/é)\n",
            "s.sh:3: `$(rm -f /tmp/é)` before the server launch: `rm` is not a program read as \
             only printing",
        ),
        ("while true; do :; done\n", "s.sh:3: `while`, `until`"),
        ("cd /tmp\n", "s.sh:3: the command `cd` is not interpreted"),
        (
            "python3 -m pip install x\n",
            "s.sh:3: `python3 -m pip install x` before the server launch",
        ),
        (
            "exit 2\n",
            "s.sh:3: the script exits with status 2 before launching",
        ),
        ("X=$UNDEFINED\n", "s.sh:3: `${UNDEFINED}` is unset (set -u)"),
        ("false\n", "exits with status 1 before launching"),
        (
            "if awk 1; then exit 0; fi\n",
            "s.sh:3: `awk` would have to run to decide the condition (the program `1` is not \
             `BEGIN { exit EXPR }`); the `if` cannot be decided (its branch changes the shell",
        ),
        (
            "if [ -d /x ]; then exit 1; else X=1; fi\n",
            "depends on the file system",
        ),
        (
            "{L} a &\n{L} b\n",
            "s.sh:4: a second server launch (the first is at s.sh:3)",
        ),
        (
            "{L} a &\npython3 -m sglang_router.launch_router --port 1\n",
            "s.sh:4: the script starts an SGLang router",
        ),
        (
            "echo ok\n",
            "the script ends without launching sglang.launch_server",
        ),
        ("{L} *.sh\n", "pathname expansion"),
        ("{L} --a{b,c}\n", "brace expansion"),
        ("X=$((1 / 0))\n", "s.sh:3: division by zero"),
        (
            "{L} \"${TP/8/9}\"\n",
            "the parameter expansion `ReplaceSubstring` is not interpreted",
        ),
        ("source lib/none.sh\n", "lib/none.sh is not in the source"),
        (
            "source ../../etc/passwd\n",
            "not a path inside the repository",
        ),
        ("f() { f; }\nf\n", "calls nested deeper than 32"),
        ("if then\n", "s.sh: bash syntax"),
    ];
    for (script, want) in cases {
        let script = script.replace("{L}", L);
        let e = err_of(&script, &env);
        assert!(e.contains(want), "{script}\n  got: {e}\n want: {want}");
    }
}

#[test]
fn guard_rule_notes_what_it_assumed() {
    let (l, notes) = launch(
        &format!(
            "{HEAD}if awk -v s=1 'BEGIN {{ exit !(s > 2) }}' trace.log; then\n  echo no >&2\n  exit 1\nfi\n{L}\n"
        ),
        &[],
    );
    assert!(l.is_ok());
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0].starts_with("`s.sh:3`: \\`awk\\` would have to run"),
        "{notes:?}"
    );
    assert!(notes[0].ends_with("(guard rule)"));
}

/// Scripts a hostile snapshot could hold, each refused with a message
/// naming its bound: arithmetic whose tree nests by operators rather than
/// parentheses (the parser and the evaluator recurse per operator, and
/// 5,000 of them exhausted the stack: the process aborted).
#[test]
fn arithmetic_operator_chains_are_refused() {
    let chains = [
        ("unary minus", "- ".repeat(5_000)),
        // Under the script's opener bound (`!` is one), over arithmetic's.
        ("logical not", "!".repeat(4_000)),
        ("bitwise not", "~".repeat(50_000)),
        ("ternary", "1?1:".repeat(20_000)),
        ("sum", "1+".repeat(50_000)),
        ("assignment", "a=".repeat(50_000)),
    ];
    for (what, chain) in chains {
        let err = err_of(&format!("X=$(( {chain}1 ))\n{L} $X\n"), &[]);
        assert!(err.contains("operators"), "{what}: {err}");
    }
    // A real expression is still evaluated, and a chain within the bound.
    let within = format!("X=$(( {}1 ))\n{L} $X\n", "- ".repeat(60));
    assert_eq!(argv_of(&within, &[]), "1");
    let real = "((144 * TP * 31 + 14) / 15 + TP) > 64 ? 64 : -(-TP)";
    assert_eq!(
        argv_of(&format!("X=$(( {real} ))\n{L} $X\n"), &[("TP", "2")]),
        "64"
    );
}

/// A value read by arithmetic is arithmetic again, so five variables of 32
/// references each made 32^5 evaluations in one `$(( ))` (23 s; six, about
/// twelve minutes): every variable arithmetic reads counts as a step.
#[test]
fn arithmetic_references_count_as_steps() {
    let mut script = String::new();
    for (name, next) in ["a", "b", "c", "d", "e", "f"]
        .windows(2)
        .map(|w| (w[0], w[1]))
    {
        script.push_str(&format!("{name}='{}'\n", vec![next; 32].join("+")));
    }
    script.push_str(&format!("f=1\nX=$((a))\n{L} $X\n"));
    let err = err_of(&script, &[]);
    assert!(err.contains("steps"), "{err}");
}

/// Values that double at each step: a string, an array, a function's
/// result, 40 times (2^40 bytes: the machine ran out of memory, 21 GB
/// before the kernel killed it). What expansions produce is bounded.
#[test]
fn doubling_values_are_refused() {
    let cases = [
        ("string", format!("x=ab\n{}", "x=$x$x\n".repeat(40))),
        (
            "array",
            format!("A=(a)\n{}", "A=(\"${A[@]}\" \"${A[@]}\")\n".repeat(40)),
        ),
        (
            "function",
            format!("x=ab\nf() {{ x=$x$x; }}\n{}", "f\n".repeat(40)),
        ),
        (
            "loop",
            format!("x=ab\nfor i in {}; do x=$x$x; done\n", "a ".repeat(40)),
        ),
    ];
    for (what, script) in cases {
        let err = err_of(&format!("{script}{L}\n"), &[]);
        assert!(err.contains("MiB"), "{what}: {err}");
    }
}

/// Bash-ish text: shell syntax, expansions, quotes and multibyte characters.
fn shellish() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "A=1",
        "$A",
        "${A:-é}",
        "${#A}",
        "${A%%/*}",
        "$((A + 1))",
        "\"",
        "'",
        "(",
        ")",
        "{",
        "}",
        "[[",
        "]]",
        "[",
        "]",
        "if",
        "then",
        "fi",
        "else",
        "case",
        "in",
        "esac",
        ";;",
        "for",
        "do",
        "done",
        "f()",
        "local",
        "export",
        "set -eu",
        "source",
        "$(dirname x)",
        "$(date)",
        "|",
        "&&",
        "||",
        ";",
        "&",
        "\n",
        " ",
        "python3 -m sglang.launch_server",
        "--tp",
        "8",
        "日本",
        "exit 1",
        "awk",
        "A+=(x)",
        "${A[@]}",
        "${!A}",
        "=~",
        "==",
        "-gt",
        "*",
        "\\",
        "`",
        "$@",
        "return",
    ]);
    prop::collection::vec(atoms, 0..40).prop_map(|v| v.concat())
}

/// Runs `f` on a thread with the stack `sync` runs the bash reader on.
fn on_sync_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(super::STACK_BYTES)
            .spawn_scoped(s, f)
            .unwrap()
            .join()
            .unwrap()
    })
}

/// Issue 25, second round: nesting was bounded by counting `( { [` minus
/// closers, quotes included, so keywords nested without limit and a quoted
/// `")"` undid an opener; 3,000 nested `if`s (52 KB) overflowed the stack and
/// the process aborted without a message. Now every opener counts, closers
/// offset nothing, and the interpreter counts its own nesting, which
/// function calls multiply.
#[test]
fn nesting_is_bounded_by_openers_and_by_the_interpreter() {
    let nested =
        |open: &str, close: &str, n: usize| format!("{}:{}\n", open.repeat(n), close.repeat(n));
    let over = MAX_OPENERS + 1;
    for (what, text) in [
        ("if", nested("if true; then ", "; fi", over)),
        ("case", nested("case x in x) ", " ;; esac", over)),
        ("for", nested("for i in 1; do ", "; done", over)),
        ("while", nested("while false; do ", "; done", over)),
        ("quoted closers", "( echo \")\" ".repeat(over)),
        ("not", format!("[[ {}-n a ]]\n", "! ".repeat(over))),
        ("and", format!("[[ {}-n a ]]\n", "-n a && ".repeat(over))),
    ] {
        let err = err_of(&format!("{text}{L}\n"), &[]);
        assert!(
            err.contains(&format!("more than {MAX_OPENERS} are not read")),
            "{what}: {err}"
        );
        assert!(err.starts_with("s.sh: "), "{what}: {err}");
    }
    // Within the text's bound: parsed on sync's stack; what is not run
    // costs nothing more, what is run meets the interpreter's bound.
    let deep = nested("if true; then ", "; fi", 3_000);
    let unused = format!("unused() {{\n{deep}}}\n{L} --ok\n");
    assert_eq!(on_sync_stack(|| argv_of(&unused, &[])), "--ok");
    let run = format!("{deep}{L}\n");
    let err = on_sync_stack(|| err_of(&run, &[]));
    assert!(
        err.contains(&format!("nested more than {MAX_NESTING} deep")),
        "{err}"
    );
    // 32 calls, each body 10 deep: 320 levels from a text that nests 11.
    let mut calls = String::new();
    for i in 0..32 {
        calls += &format!(
            "f{i}() {{ {}f{}; {} }}\n",
            "if true; then ".repeat(9),
            i + 1,
            "fi; ".repeat(9)
        );
    }
    calls += &format!("f32() {{ :; }}\nf0\n{L}\n");
    let err = on_sync_stack(|| err_of(&calls, &[]));
    assert!(
        err.contains(&format!("nested more than {MAX_NESTING} deep")),
        "{err}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any text, as a script: the interpreter answers, never panics.
    #[test]
    fn never_panics_on_shellish_text(s in shellish()) {
        let _ = launch(&s, &[("TP", "8")]);
        let _ = launch(&format!("{HEAD}{s}"), &[("TP", "8")]);
    }

    #[test]
    fn never_panics_on_arbitrary_text(s in "\\PC{0,120}") {
        let _ = launch(&s, &[]);
    }
}
