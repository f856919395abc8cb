//! Template functions that read the build machine, which a book's templates
//! may not call. Docs builds run on pull requests with CI secrets in the
//! environment, and `templates/` comes with the pull request: tera's
//! `get_env` would print a secret into every page. Of tera 1.20's global
//! functions, `get_env` reads the environment, `now` the clock and
//! `get_random` the random source (the last two only with tera's `builtins`
//! feature, which this crate does not enable); `range` and `throw` read
//! nothing, and tera has no function that reads files (`include`,
//! `extends` and `import` name templates registered from memory).
//!
//! Each is replaced by a function that fails, and a template calling one is
//! refused when it loads, with its file and line.

use std::collections::HashMap;

use tera::ast::{Expr, ExprVal, Node};

/// Global functions of tera that read the machine.
const MACHINE: [&str; 3] = ["get_env", "now", "get_random"];

/// Registers a failing function under each of [`MACHINE`]'s names.
pub(super) fn refuse_machine_functions(tera: &mut tera::Tera) {
    for name in MACHINE {
        tera.register_function(name, Refused(name));
    }
}

struct Refused(&'static str);

impl tera::Function for Refused {
    fn call(&self, _: &HashMap<String, tera::Value>) -> tera::Result<tera::Value> {
        Err(tera::Error::msg(format!(
            "`{}` reads the build machine; book templates cannot call it",
            self.0
        )))
    }
}

/// Fails when `template` calls one of [`MACHINE`]; the message names
/// `origin` and the line of `source` where the call is.
pub(super) fn check(template: &tera::Template, source: &str, origin: &str) -> Result<(), String> {
    let mut calls = Vec::new();
    nodes(&template.ast, &mut calls);
    for m in template.macros.values() {
        nodes(&m.body, &mut calls);
    }
    let Some(name) = calls.into_iter().find(|c| MACHINE.contains(&c.as_str())) else {
        return Ok(());
    };
    let line = call_line(source, &name).map_or(String::new(), |l| format!(":{l}"));
    Err(format!(
        "{origin}{line}: the template calls `{name}`, which reads the build machine (its \
         environment holds CI secrets, and the output is published); book templates cannot \
         call {}",
        MACHINE.join(", ")
    ))
}

/// The 1-based line of the first `name(` in `source` that is not the end of
/// a longer name.
fn call_line(source: &str, name: &str) -> Option<usize> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(i) = source[from..].find(name).map(|i| from + i) {
        from = i + name.len();
        let before = source[..i].chars().next_back();
        let after = source[from..].trim_start();
        if !before.is_some_and(is_word) && after.starts_with('(') {
            return Some(source[..i].matches('\n').count() + 1);
        }
    }
    None
}

/// The global functions `list` calls, anywhere in it.
fn nodes(list: &[Node], calls: &mut Vec<String>) {
    for node in list {
        match node {
            Node::VariableBlock(_, e) => expr(e, calls),
            // Defaults of macro arguments are literals.
            Node::MacroDefinition(_, m, _) => nodes(&m.body, calls),
            Node::Set(_, s) => expr(&s.value, calls),
            Node::FilterSection(_, f, _) => {
                f.filter.args.values().for_each(|e| expr(e, calls));
                nodes(&f.body, calls);
            }
            Node::Block(_, b, _) => nodes(&b.body, calls),
            Node::Forloop(_, f, _) => {
                expr(&f.container, calls);
                nodes(&f.body, calls);
                nodes(f.empty_body.as_deref().unwrap_or_default(), calls);
            }
            Node::If(i, _) => {
                for (_, e, body) in &i.conditions {
                    expr(e, calls);
                    nodes(body, calls);
                }
                if let Some((_, body)) = &i.otherwise {
                    nodes(body, calls);
                }
            }
            _ => {}
        }
    }
}

fn expr(e: &Expr, calls: &mut Vec<String>) {
    // Filters are not global functions, but their arguments may call one.
    for f in &e.filters {
        f.args.values().for_each(|a| expr(a, calls));
    }
    value(&e.val, calls);
}

fn value(v: &ExprVal, calls: &mut Vec<String>) {
    match v {
        ExprVal::Math(m) => {
            expr(&m.lhs, calls);
            expr(&m.rhs, calls);
        }
        ExprVal::Logic(l) => {
            expr(&l.lhs, calls);
            expr(&l.rhs, calls);
        }
        ExprVal::In(i) => {
            expr(&i.lhs, calls);
            expr(&i.rhs, calls);
        }
        ExprVal::Test(t) => t.args.iter().for_each(|a| expr(a, calls)),
        ExprVal::MacroCall(m) => m.args.values().for_each(|a| expr(a, calls)),
        ExprVal::FunctionCall(f) => {
            calls.push(f.name.clone());
            f.args.values().for_each(|a| expr(a, calls));
        }
        ExprVal::Array(items) => items.iter().for_each(|a| expr(a, calls)),
        ExprVal::StringConcat(s) => s.values.iter().for_each(|v| value(v, calls)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each machine function, called in each place an expression can be:
    /// refused with the line of the call; the same text without the call
    /// (a variable of the same name instead of the call) passes.
    #[test]
    fn machine_functions_are_found_everywhere() {
        let places = [
            "{{ CALL }}",
            "{{ x | default(value=CALL) }}",
            "{% set a = CALL %}",
            "{% if CALL == 'x' %}y{% endif %}",
            "{% if a %}{% elif CALL %}{% else %}{% endif %}",
            "{% for c in [CALL] %}{% endfor %}",
            "{% for c in a %}{% else %}{{ 1 + CALL | length }}{% endfor %}",
            "{% block b %}{{ 'a' ~ CALL }}{% endblock %}",
            "{% filter upper %}{{ CALL }}{% endfilter %}",
            "{% macro m() %}{{ CALL in a }}{% endmacro %}",
            "{{ range(end=CALL | length) }}",
            "{{ x is containing(CALL) }}",
        ];
        for (name, call) in [
            ("get_env", "get_env(name=\"AWS_SECRET\")"),
            ("now", "now ()"),
            ("get_random", "get_random(end=9)"),
        ] {
            for place in places {
                let source = format!("<p>line one</p>\n\n{}\n", place.replace("CALL", call));
                let mut tera = tera::Tera::default();
                tera.add_raw_template("t.html", &source).unwrap();
                let err = check(&tera.templates["t.html"], &source, "templates/t.html")
                    .expect_err(&source);
                assert!(
                    err.starts_with(&format!("templates/t.html:3: the template calls `{name}`")),
                    "{err}"
                );
                let harmless = place.replace("CALL", "get_env");
                let mut tera = tera::Tera::default();
                tera.add_raw_template("t.html", &harmless).unwrap();
                assert!(
                    check(&tera.templates["t.html"], &harmless, "t").is_ok(),
                    "{harmless}"
                );
            }
        }
    }

    /// Registered as refusals, the functions fail at render time too.
    #[test]
    fn machine_functions_fail_when_called() {
        let mut tera = tera::Tera::default();
        refuse_machine_functions(&mut tera);
        tera.add_raw_template("t.html", "{{ get_env(name='HOME') }}")
            .unwrap();
        let err = tera.render("t.html", &tera::Context::new()).unwrap_err();
        let chain = format!("{err:?}");
        assert!(chain.contains("reads the build machine"), "{chain}");
    }
}
