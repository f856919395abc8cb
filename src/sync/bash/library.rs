//! What the interpreter does with commands it does not run: the external
//! programs it skips before the launch (each with why it cannot change the
//! server command), the `benchmark_lib.sh` functions it skips (the benchmark
//! harness), and the syntactic check that a skipped function cannot export,
//! change directory or source anything — only assign variables, which then
//! become unknown. docs/sync-bash-lanes.md lists the same tables.
//! Uses nothing else of the crate.

use std::collections::BTreeSet;

use brush_parser::ast::{self, CompoundCommand as C};

/// External programs skipped before the launch: none of them can change the
/// shell's variables, and their output goes to logs. The measured run got
/// past them, so each is taken to succeed.
pub(super) const SKIPPED_PROGRAMS: &[(&str, &str)] = &[
    ("echo", "prints a message"),
    ("printf", "prints a message"),
    ("tee", "copies its input into a log file"),
    ("mkdir", "creates a results directory"),
    ("nvidia-smi", "prints the GPU state"),
    (
        "hf",
        "downloads the checkpoint into the cache the server reads it from by its id",
    ),
    ("grep", "filters printed text"),
    ("sort", "sorts printed text"),
    ("env", "prints the environment (only without arguments)"),
    (
        "trap",
        "registers a handler for the script's exit, which comes after the launch",
    ),
];

/// `benchmark_lib.sh` functions skipped: they prepare or run the benchmark
/// client, not the server. Variables they assign become unknown.
pub(super) const HARNESS_FUNCTIONS: &[(&str, &str)] = &[
    (
        "resolve_trace_source",
        "picks and downloads the trace dataset the benchmark client replays",
    ),
    (
        "install_agentic_deps",
        "installs the benchmark client (AIPerf) into its own environment",
    ),
    (
        "wait_for_server_ready",
        "polls the server's health endpoint after the launch",
    ),
    (
        "wait_for_ready",
        "polls a health endpoint (the server's, the router's) after the launch",
    ),
    (
        "write_command",
        "writes a command line, shell-quoted, into a file of the results",
    ),
    (
        "build_replay_cmd",
        "builds the benchmark client's command line",
    ),
    (
        "run_agentic_replay_and_write_outputs",
        "runs the benchmark client and writes its results",
    ),
    (
        "run_eval",
        "runs the accuracy evaluation against the running server",
    ),
];

pub(super) fn skipped_program(name: &str) -> bool {
    SKIPPED_PROGRAMS.iter().any(|(n, _)| *n == name)
}

/// Skipped programs whose status depends on their input: in a condition
/// (`if … | grep -q …`) that status decides a branch, so it cannot be
/// taken as success there.
pub(super) fn status_depends_on_input(name: &str) -> bool {
    name == "grep"
}

/// The files `sed ARGS` edits in place (`-i`, `-i.bak`, `--in-place`), or
/// `Ok(None)` when it edits nothing. Options it does not know, and a script
/// read from a file (`-f`), are refused: the files could not be told apart.
pub(super) fn sed_in_place(args: &[String]) -> Result<Option<Vec<String>>, String> {
    let (mut in_place, mut script, mut files) = (false, false, Vec::new());
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            a if a.starts_with("-i") || a.starts_with("--in-place") => in_place = true,
            "-e" | "--expression" => {
                it.next().ok_or("`sed -e` without a script")?;
                script = true;
            }
            "-n" | "-E" | "-r" | "-s" | "-z" | "-u" | "--quiet" | "--silent" | "--posix" => {}
            a if a.starts_with('-') && a != "-" => {
                return Err(format!("`sed {a}` is not read"));
            }
            _ if !script => script = true,
            f => files.push(f.to_string()),
        }
    }
    match (in_place, files.is_empty()) {
        (false, _) => Ok(None),
        (true, true) => Err("`sed -i` without a file".into()),
        (true, false) => Ok(Some(files)),
    }
}

pub(super) fn harness_function(name: &str) -> bool {
    HARNESS_FUNCTIONS.iter().any(|(n, _)| *n == name)
}

/// Commands a skipped function must not contain before the launch: they
/// would change the server's environment or what the script reads next.
const FORBIDDEN: &[&str] = &[
    "export", "declare", "typeset", "readonly", "cd", "pushd", "popd", "source", ".", "eval",
    "exec", "shopt", "set", "alias",
];

/// Builtins that change the shell (besides [`FORBIDDEN`] and assignments).
const SHELL_CHANGING: &[&str] = &[
    "unset",
    "shift",
    "exit",
    "return",
    "local",
    "break",
    "continue",
    "read",
    "mapfile",
    "readarray",
    "getopts",
    "let",
    "wait",
    "command",
    "builtin",
    "trap",
    "hash",
    "umask",
];

/// What a skipped function body may do to the shell.
#[derive(Debug, Default)]
pub(super) struct Effects {
    /// Variables it (or a library function it calls) may assign.
    pub assigned: BTreeSet<String>,
    /// Functions it calls by a literal name.
    pub calls: BTreeSet<String>,
    /// The first forbidden command found.
    pub forbidden: Option<String>,
}

impl Effects {
    pub(super) fn of_body(body: &ast::FunctionBody) -> Effects {
        let mut e = Effects::default();
        e.compound(&body.0);
        e
    }

    pub(super) fn of_list(list: &ast::CompoundList) -> Effects {
        let mut e = Effects::default();
        e.list(list);
        e
    }

    /// Whether running the commands cannot change the shell: nothing
    /// assigned, nothing forbidden, and every command a program named by a
    /// literal word, not a builtin that changes the shell nor one of `funcs`.
    pub(super) fn leaves_shell_unchanged(&self, is_function: impl Fn(&str) -> bool) -> bool {
        let literal = |c: &str| {
            c == "["
                || c.chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '-' | '_' | '.' | '/'))
        };
        self.assigned.is_empty()
            && self.forbidden.is_none()
            && self
                .calls
                .iter()
                .all(|c| literal(c) && !is_function(c) && !SHELL_CHANGING.contains(&c.as_str()))
    }

    fn list(&mut self, l: &ast::CompoundList) {
        for ast::CompoundListItem(ao, _) in &l.0 {
            self.pipeline(&ao.first);
            for next in &ao.additional {
                match next {
                    ast::AndOr::And(p) | ast::AndOr::Or(p) => self.pipeline(p),
                }
            }
        }
    }

    fn pipeline(&mut self, p: &ast::Pipeline) {
        // The parts of a pipeline run in subshells: nothing they assign survives.
        if p.seq.len() > 1 {
            return;
        }
        for c in &p.seq {
            match c {
                ast::Command::Simple(s) => self.simple(s),
                ast::Command::Compound(cc, _) => self.compound(cc),
                ast::Command::Function(f) => {
                    self.forbidden
                        .get_or_insert(format!("defines function `{}`", f.fname.value));
                }
                ast::Command::ExtendedTest(t, _) => self.extended_test(&t.expr),
            }
        }
    }

    fn compound(&mut self, cc: &C) {
        match cc {
            C::BraceGroup(g) => self.list(&g.list),
            C::Subshell(_) => {}
            C::IfClause(i) => {
                self.list(&i.condition);
                self.list(&i.then);
                for e in i.elses.iter().flatten() {
                    if let Some(c) = &e.condition {
                        self.list(c);
                    }
                    self.list(&e.body);
                }
            }
            C::CaseClause(c) => c
                .cases
                .iter()
                .filter_map(|i| i.cmd.as_ref())
                .for_each(|l| self.list(l)),
            C::ForClause(f) => {
                self.assigned.insert(f.variable_name.clone());
                self.list(&f.body.list);
            }
            C::WhileClause(w) | C::UntilClause(w) => {
                self.list(&w.0);
                self.list(&w.1.list);
            }
            C::ArithmeticForClause(f) => self.list(&f.body.list),
            C::Arithmetic(a) => self.arithmetic(&a.expr.value),
            C::Coprocess(_) => {
                self.forbidden.get_or_insert("`coproc`".into());
            }
        }
    }

    fn simple(&mut self, s: &ast::SimpleCommand) {
        let items = s.prefix.iter().flat_map(|p| p.0.iter());
        let suffix = s.suffix.iter().flat_map(|p| p.0.iter());
        let name = s.word_or_name.as_ref().map(|w| w.value.as_str());
        for item in items.chain(suffix) {
            match item {
                ast::CommandPrefixOrSuffixItem::AssignmentWord(a, _) => {
                    let n = match &a.name {
                        ast::AssignmentName::VariableName(n)
                        | ast::AssignmentName::ArrayElementName(n, _) => n,
                    };
                    self.assigned.insert(n.clone());
                }
                ast::CommandPrefixOrSuffixItem::Word(w) => self.word(&w.value),
                _ => {}
            }
        }
        match name {
            Some(n) if FORBIDDEN.contains(&n) => {
                self.forbidden.get_or_insert(format!("runs `{n}`"));
            }
            Some("read" | "mapfile" | "readarray" | "getopts" | "printf") => {
                // They assign the variables named in their arguments.
                for item in s.suffix.iter().flat_map(|p| p.0.iter()) {
                    if let ast::CommandPrefixOrSuffixItem::Word(w) = item
                        && super::expand::is_name(&w.value)
                    {
                        self.assigned.insert(w.value.clone());
                    }
                }
            }
            Some(n) => {
                self.calls.insert(n.to_string());
            }
            None => {}
        }
    }

    /// The words of a `[[ … ]]` (`[[ ${X:=1} ]]` assigns).
    fn extended_test(&mut self, e: &ast::ExtendedTestExpr) {
        use ast::ExtendedTestExpr as X;
        match e {
            X::And(a, b) | X::Or(a, b) => {
                self.extended_test(a);
                self.extended_test(b);
            }
            X::Not(a) | X::Parenthesized(a) => self.extended_test(a),
            X::UnaryTest(_, w) => self.word(&w.value),
            X::BinaryTest(_, l, r) => {
                self.word(&l.value);
                self.word(&r.value);
            }
        }
    }

    /// `${NAME:=…}` inside a word assigns NAME.
    fn word(&mut self, text: &str) {
        let mut rest = text;
        while let Some(i) = rest.find("${") {
            rest = &rest[i + 2..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let after = &rest[name.len()..];
            if after.starts_with(":=") || after.starts_with('=') {
                self.assigned.insert(name);
            }
        }
        if text.contains("$((") {
            self.arithmetic(text);
        }
    }

    /// Any `NAME=`, `NAME+=`, `NAME++`… in arithmetic text assigns NAME.
    fn arithmetic(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i].is_ascii_alphabetic() || bytes[i] == b'_' {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let after = text[i..].trim_start();
                let assigns = (after.starts_with('=') && !after.starts_with("=="))
                    || [
                        "+=", "-=", "*=", "/=", "%=", "++", "--", "<<=", ">>=", "&=", "|=", "^=",
                    ]
                    .iter()
                    .any(|op| after.starts_with(op));
                if assigns {
                    self.assigned.insert(text[start..i].to_string());
                }
            } else {
                i += 1;
            }
        }
    }
}
