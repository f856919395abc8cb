//! The GitHub Actions workflow of the guide's chapter on continuous
//! integration (`content/guide/ci.md`), run step by step against a scratch git
//! repository of the sample book: a bare `origin` holding
//! `main`, a clone with a pull request's branch (what `actions/checkout`
//! with `fetch-depth: 0` leaves). Every `run:` step runs as written, in
//! order, with `bash -eo pipefail` (the workflow's `shell: bash`), its
//! `env:` (expressions given a pull request's values) and its `if:`. Two
//! programs are stand-ins, the test having no network: `cargo install`
//! puts this test's binary on `PATH`, and `gh` records what it posts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use yaml_rust2::{Yaml, YamlLoader};

use crate::report::{git, retune_and_add, sample_repo};
use crate::support;

/// The workflow: the first `yaml` block of `content/guide/ci.md`.
fn workflow() -> Yaml {
    let doc = support::read(&support::repo().join("content/guide/ci.md"));
    let block = doc.split("```yaml\n").nth(1).unwrap();
    let block = &block[..block.find("\n```").unwrap()];
    YamlLoader::load_from_str(block).unwrap().remove(0)
}

/// The value of an expression `${{ … }}` for a pull request from a branch of
/// the same repository; any other expression fails the test.
fn expression(text: &str) -> String {
    let Some(inner) = text
        .strip_prefix("${{ ")
        .and_then(|t| t.strip_suffix(" }}"))
    else {
        return text.to_string();
    };
    match inner {
        "github.base_ref" => "main".into(),
        "github.token" => "test-token".into(),
        "github.event.pull_request.number" => "7".into(),
        other => panic!("the test does not know the expression {other}"),
    }
}

/// Whether a step with this `if:` runs, after a failed step or not.
fn runs(condition: Option<&str>, failed: bool, dir: &Path) -> bool {
    let report_written = std::fs::metadata(dir.join("agentx-report.md")).is_ok_and(|m| m.len() > 0);
    match condition {
        None => !failed,
        Some("always()") => true,
        Some("always() && hashFiles('agentx-report.md') != ''") => report_written,
        // A pull request from a branch of the repository itself.
        Some(
            "always() && hashFiles('agentx-report.md') != '' && github.event.pull_request.head.repo.full_name == github.repository",
        ) => report_written,
        Some(other) => panic!("the test does not know the condition {other}"),
    }
}

/// The stand-ins for `cargo install` and `gh`, in `dir`; both log each call.
fn stand_ins(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let scripts = [
        (
            "cargo",
            "#!/bin/sh\necho \"cargo $*\" >> \"$CALLS\"\n[ \"$1\" = install ] || exit 2\n\
             mkdir -p \"$HOME/.cargo/bin\" && ln -sf \"$AGENTX_BIN\" \"$HOME/.cargo/bin/mdbook-agentx\"\n",
        ),
        (
            "gh",
            "#!/bin/sh\necho \"gh $*\" >> \"$CALLS\"\n\
             case \" $* \" in *' --edit-last '*) [ -f \"$HOME/commented\" ] || { echo 'no comment to edit' >&2; exit 1; };; esac\n\
             while [ $# -gt 0 ]; do [ \"$1\" = --body-file ] && cp \"$2\" \"$HOME/posted.md\"; shift; done\n\
             touch \"$HOME/commented\"\n",
        ),
    ];
    for (name, text) in scripts {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        #[cfg(unix)]
        std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
}

/// What running the job gave: each step's name and exit code.
type Steps = Vec<(String, Option<i32>)>;

/// Runs the job's steps in `work` with `home` as `$HOME`.
fn run_job(job: &Yaml, work: &Path, home: &Path, stubs: &Path) -> Steps {
    let mut job_env: BTreeMap<String, String> = BTreeMap::new();
    if let Some(env) = job["env"].as_hash() {
        for (k, v) in env {
            job_env.insert(k.as_str().unwrap().into(), expression(v.as_str().unwrap()));
        }
    }
    let path = format!(
        "{}:{}:/usr/local/bin:/usr/bin:/bin",
        stubs.display(),
        home.join(".cargo/bin").display()
    );
    let mut failed = false;
    let mut steps = Vec::new();
    for step in job["steps"].as_vec().unwrap() {
        if let Some(action) = step["uses"].as_str() {
            // Done by the test's clone: all history, origin/main fetched.
            assert_eq!(action, "actions/checkout@v4");
            assert_eq!(step["with"]["fetch-depth"].as_i64(), Some(0));
            continue;
        }
        let name = step["name"].as_str().unwrap().to_string();
        if !runs(step["if"].as_str(), failed, work) {
            steps.push((name, None));
            continue;
        }
        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c"])
            .arg(step["run"].as_str().unwrap())
            .current_dir(work)
            .env_clear()
            .env("PATH", &path)
            .env("HOME", home)
            .env("CALLS", home.join("calls.log"))
            .env("AGENTX_BIN", env!("CARGO_BIN_EXE_mdbook-agentx"))
            .env("GITHUB_STEP_SUMMARY", home.join("summary.md"))
            .envs(&job_env);
        if let Some(env) = step["env"].as_hash() {
            for (k, v) in env {
                cmd.env(k.as_str().unwrap(), expression(v.as_str().unwrap()));
            }
        }
        let out = cmd.output().unwrap();
        eprintln!(
            "step {name}: {:?}\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        failed |= !out.status.success();
        steps.push((name, out.status.code()));
    }
    steps
}

/// A clone of `origin` on a pull request's branch, its change committed.
fn pull_request(origin: &Path, at: &Path, change: &dyn Fn(&Path)) -> PathBuf {
    let work = at.join("work");
    support::succeed(
        Command::new("git")
            .args(["clone", "-q"])
            .arg(origin)
            .arg(&work),
    );
    git(&work, &["checkout", "-qb", "pr"]);
    change(&work);
    git(&work, &["commit", "-qam", "a pull request"]);
    work
}

const DATA: &str = "agentx/qwen3.8-flash-next.json";

#[test]
fn the_ci_workflow_checks_reports_and_posts() {
    let wf = workflow();
    assert_eq!(wf["defaults"]["run"]["shell"].as_str(), Some("bash"));
    let job = &wf["jobs"]["agentx"];
    assert_eq!(
        job["env"]["AGENTX_VERSION"].as_str(),
        Some(env!("CARGO_PKG_VERSION")),
        "the workflow installs this version"
    );
    let book = sample_repo("ci-book");
    let tmp = support::temp("ci");
    std::fs::create_dir_all(&*tmp).unwrap();
    let origin = tmp.join("origin.git");
    support::succeed(
        Command::new("git")
            .args(["clone", "-q", "--bare"])
            .arg(&*book)
            .arg(&origin),
    );
    let stubs = tmp.join("bin");
    stand_ins(&stubs);

    passing_pull_request(job, &origin, &tmp.join("pr"), &stubs);
    failing_pull_request(job, &origin, &tmp.join("bad"), &stubs);
}

/// A pull request retuning one lane and adding one: everything passes.
fn passing_pull_request(job: &Yaml, origin: &Path, pr: &Path, stubs: &Path) {
    let work = pull_request(origin, pr, &|w| {
        let text = support::read(&w.join(DATA));
        std::fs::write(w.join(DATA), retune_and_add(&text)).unwrap();
    });
    let home = pr.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let steps = run_job(job, &work, &home, stubs);
    let codes: Vec<Option<i32>> = steps.iter().map(|(_, c)| *c).collect();
    assert_eq!(codes, [Some(0); 5], "{steps:?}");
    let report = support::read(&work.join("agentx-report.md"));
    assert!(
        report.contains("Against `origin/main`") && report.contains("**Every check passed.**"),
        "{report}"
    );
    assert!(report.contains("| Qwen3.8-Flash-Next | "), "{report}");
    assert_eq!(support::read(&home.join("summary.md")), report);
    assert_eq!(support::read(&home.join("posted.md")), report);
    let calls = support::read(&home.join("calls.log"));
    assert_eq!(
        calls,
        format!(
            "cargo install --locked mdbook-agentx --version {}\n\
             gh pr comment 7 --edit-last --body-file agentx-report.md\n\
             gh pr comment 7 --body-file agentx-report.md\n",
            env!("CARGO_PKG_VERSION")
        )
    );
}

/// A pull request with a misspelt flag: check and report fail, the report
/// is still written, summarized and posted (editing the comment).
fn failing_pull_request(job: &Yaml, origin: &Path, bad: &Path, stubs: &Path) {
    let work = pull_request(origin, bad, &|w| {
        let text = support::read(&w.join(DATA)).replacen(
            "\"--mem-fraction-static\"",
            "\"--mem-fraction-statik\"",
            1,
        );
        std::fs::write(w.join(DATA), text).unwrap();
    });
    let home = bad.join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("commented"), "").unwrap();
    let steps = run_job(job, &work, &home, stubs);
    let codes: Vec<Option<i32>> = steps.iter().map(|(_, c)| *c).collect();
    assert_eq!(
        codes,
        [Some(0), Some(1), Some(1), Some(0), Some(0)],
        "{steps:?}"
    );
    let report = support::read(&work.join("agentx-report.md"));
    assert!(
        report.contains("**Checks failed: argument errors: "),
        "{report}"
    );
    assert!(report.contains("-\\-mem-fraction-statik"), "{report}");
    assert_eq!(support::read(&home.join("posted.md")), report);
    assert!(
        support::read(&home.join("calls.log"))
            .ends_with("gh pr comment 7 --edit-last --body-file agentx-report.md\n")
    );
}
