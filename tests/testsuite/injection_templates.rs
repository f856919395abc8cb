//! A book's templates come with the pull request, and CI secrets are in the
//! build's environment: a template calling tera's `get_env` (or another
//! function that reads the machine) is refused with its file and line, and
//! no page gets the secret.

use std::process::Command;

use crate::support;

const SECRET: &str = "agentx-test-secret-4b1f";

/// The mini book with a `templates/page.html` that prints an environment
/// variable on its fourth line.
fn book_with_template(name: &str, call: &str) -> support::Scratch {
    let book = support::mini_book(name);
    let default = support::read(&support::repo().join("templates/page.html"));
    let (first, rest) = default.split_at(default.find('\n').unwrap() + 1);
    let page = format!("{first}\n\n<meta name=\"x\" content=\"{{{{ {call} }}}}\">\n{rest}");
    std::fs::create_dir_all(book.join("templates")).unwrap();
    std::fs::write(book.join("templates/page.html"), page).unwrap();
    book
}

#[test]
fn templates_cannot_read_the_environment() {
    for (call, name) in [
        ("get_env(name=\"AGENTX_TEST_SECRET\")", "get_env"),
        (
            "get_env(name=\"AGENTX_TEST_SECRET\", default=\"\") | upper",
            "get_env",
        ),
        ("now()", "now"),
        ("get_random(end=10)", "get_random"),
    ] {
        let book = book_with_template("template-env", call);
        let out = Command::new(env!("CARGO_BIN_EXE_mdbook-agentx"))
            .arg("build")
            .arg(&*book)
            .env("AGENTX_TEST_SECRET", SECRET)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{call}: {stderr}");
        let want = format!(
            "templates/page.html:4: the template calls `{name}`, which reads the build machine"
        );
        assert!(stderr.contains(&want), "{call}: {stderr}");
        for (path, bytes) in support::files_under(&book) {
            assert!(
                !String::from_utf8_lossy(&bytes).contains(SECRET),
                "{call}: {} holds the secret",
                path.display()
            );
        }
    }
}
