use super::*;

#[test]
fn utf8_errors_say_where() {
    let mut bytes = b"{\n \"model\": \"a\",\n \"x\": \"\xc3\xa9\xff\"\n}".to_vec();
    let e = utf8_text(bytes.clone()).unwrap_err();
    // `{`, `\n`, ` "model": "a",` (14), `\n`, ` "x": "` (7), `é` (2 bytes): byte 26.
    assert!(
        e.starts_with("not valid UTF-8 at byte 26 (line 3, column 9): byte 0xff"),
        "{e}"
    );
    bytes.retain(|b| *b != 0xff);
    assert!(utf8_text(bytes).is_ok());
    assert!(utf8_text("\u{feff}{}".as_bytes().to_vec()).is_ok());
}

#[test]
fn utf16_is_named() {
    let le: Vec<u8> = "{\"model\": \"a\"}"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let be: Vec<u8> = "{\"model\": \"a\"}"
        .encode_utf16()
        .flat_map(u16::to_be_bytes)
        .collect();
    let table: &[(Vec<u8>, &str)] = &[
        (
            [&[0xFF, 0xFE][..], &le].concat(),
            "UTF-16 (little-endian, with a byte order mark)",
        ),
        (
            [&[0xFE, 0xFF][..], &be].concat(),
            "UTF-16 (big-endian, with a byte order mark)",
        ),
        (le, "UTF-16 (little-endian)"),
        (be, "UTF-16 (big-endian)"),
    ];
    for (bytes, want) in table {
        let e = utf8_text(bytes.clone()).unwrap_err();
        assert!(e.contains(want), "{e}");
        assert!(e.contains("save it as UTF-8"), "{e}");
    }
    // A NUL in UTF-8 text is not UTF-16.
    assert!(utf8_text(b"{\"a\": \"\0\"}".to_vec()).is_ok());
}

#[test]
fn repeated_keys_are_found_with_their_path() {
    let table: &[(&str, &str)] = &[
        (
            r#"{"cells": [{"routers": {"sglang": {"blocks": [{}, {"diff": {"args": {"--tp": ["4"], "--tp": ["8"]}}}]}}}]}"#,
            "cells[0].routers.sglang.blocks[1].diff.args: key `--tp` is given twice",
        ),
        (
            r#"{"model": "a", "model": "b"}"#,
            "the top level: key `model` is given twice",
        ),
        (
            r#"{"a": [[{"k": 1, "k\u00e9": 2, "k": 3}]]}"#,
            "a[0][0]: key `k` is given twice",
        ),
    ];
    for (json, want) in table {
        let e = unique_keys(json).unwrap_err().to_string();
        assert!(e.starts_with(want), "{e}");
        assert!(e.contains("remove one at line 1 column"), "{e}");
    }
    assert!(unique_keys(r#"{"a": {"k": 1}, "b": {"k": 1}, "c": [{"k": 1}, {"k": 2}]}"#).is_ok());
}

#[test]
fn names_that_reach_commands() {
    for ok in ["NCCL_DEBUG", "_X", "a1"] {
        assert!(check_env_name(ok).is_ok(), "{ok}");
    }
    for bad in ["", "1X", "NCCL_DEBUG=INFO; curl x|sh; X", "A-B", "A B", "É"] {
        let e = check_env_name(bad).unwrap_err();
        assert!(e.contains("[A-Za-z_][A-Za-z0-9_]*"), "{e}");
    }
    for ok in ["--tp", "--tp-size", "--a.b_c", "--9"] {
        assert!(check_flag_name(ok).is_ok(), "{ok}");
    }
    for bad in [
        "", "-x", "--", "---x", "--a b", "--x;rm", "--x=1", "tp", "--é",
    ] {
        let e = check_flag_name(bad).unwrap_err();
        assert!(e.contains("--[A-Za-z0-9][-_.A-Za-z0-9]*"), "{e}");
    }
    assert!(check_file_name("nginx.conf").is_ok());
    for bad in ["", ".hidden", "a/b", "a b", "a\nb"] {
        assert!(check_file_name(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn mdbook_link_openings_are_refused_with_the_json_path() {
    let e = unique_keys(r#"{"cells": [{"cmd": "cat {{#include /proc/self/environ}}"}]}"#)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(
            "cells[0].cmd: `{{#include /proc/self/environ}}` opens mdBook's include syntax"
        ),
        "{e}"
    );
    // The first half of a link split over two env values.
    let e = unique_keys(r#"{"envs": [{"A": "{{#include /etc/passwd ", "B": "}}"}]}"#)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("envs[0].A: `{{#include /etc/passwd ` opens"),
        "{e}"
    );
    assert!(unique_keys(r#"{"files": {"a": {"content": "{{ .Values.x }}"}}}"#).is_ok());
}

/// Keys are printed too (an unknown one as ignored): control characters in
/// a key are refused like those in a value.
#[test]
fn control_characters_in_keys_are_refused() {
    let e = unique_keys(r#"{"cells": [{"x\u001b[2K": 1}]}"#)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("cells[0].x\u{1b}[2K: key U+001B at character 2"),
        "{e}"
    );
}
