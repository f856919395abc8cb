//! The code's structure, checked by `scripts/module-graph.sh`: no cycle
//! between the library's modules, and every "May use:" header names what
//! its module uses; and the script's own self-test, which shows it failing
//! on a header that lies, a cycle and a missing header.

use std::process::Command;

use crate::support;

fn module_graph(args: &[&str]) -> (bool, String) {
    let out = Command::new("bash")
        .arg(support::repo().join("scripts/module-graph.sh"))
        .args(args)
        .output()
        .expect("bash runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn module_headers_tell_the_truth_and_the_graph_has_no_cycle() {
    let (ok, out) = module_graph(&[]);
    assert!(ok, "{out}");
    assert!(out.contains("no cycle"), "{out}");
}

#[test]
fn the_module_graph_check_fails_on_a_lying_header() {
    let (ok, out) = module_graph(&["--self-test"]);
    assert!(ok, "{out}");
    for case in [
        "lying-header",
        "prose",
        "lying-submodule",
        "no-header",
        "cycle",
    ] {
        assert!(
            out.contains(&format!("self-test {case}: ok (exit 1)")),
            "{out}"
        );
    }
}
