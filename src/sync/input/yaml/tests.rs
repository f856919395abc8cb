use super::*;

fn scalar(text: &str) -> Value {
    parse(&format!("k: {text}\n"))
        .unwrap()
        .get("k")
        .unwrap()
        .value
        .clone()
}

#[test]
fn yaml_1_1_scalars_resolve_as_pyyaml_does() {
    let cases: &[(&str, Value)] = &[
        ("on", Value::Bool(true)),
        ("No", Value::Bool(false)),
        ("'on'", Value::Str("on".into())),
        ("~", Value::Null),
        ("", Value::Null),
        ("None", Value::Str("None".into())),
        ("0.80", Value::Float(0.8)),
        ("1.5e5", Value::Str("1.5e5".into())),
        ("1.5e+5", Value::Float(150000.0)),
        ("1_000", Value::Int(1000)),
        ("010", Value::Int(8)),
        ("0x1f", Value::Int(31)),
        ("-3", Value::Int(-3)),
        ("'3'", Value::Str("3".into())),
        ("1.", Value::Float(1.0)),
        (".5", Value::Float(0.5)),
        ("mlx5_0", Value::Str("mlx5_0".into())),
        ("ib,cuda_copy", Value::Str("ib,cuda_copy".into())),
        ("'{\"a\": true}'", Value::Str("{\"a\": true}".into())),
    ];
    for (text, want) in cases {
        assert_eq!(&scalar(text), want, "{text}");
    }
    assert!(parse("k: 1:20\n").unwrap_err().contains("base-60"));
}

#[test]
fn python_str_matches_python() {
    let cases = [
        (0.8, "0.8"),
        (1.0, "1.0"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (1e16, "1e+16"),
        (1.5e16, "1.5e+16"),
        (123.456, "123.456"),
    ];
    for (f, want) in cases {
        assert_eq!(python_float(f), want, "{f}");
    }
    assert_eq!(
        Node::new(Value::Bool(true), 1).python_str().unwrap(),
        "True"
    );
}

#[test]
fn lines_order_anchors_and_merge_keys() {
    let doc =
        parse("# c\nbase: &b\n  x: 1\n  y: 2\nother:\n  <<: *b\n  y: 3\nlist: [a, b]\n").unwrap();
    assert_eq!(doc.get("base").unwrap().line, 3);
    let other = doc.get("other").unwrap().as_map().unwrap();
    let keys: Vec<&str> = other.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["x", "y"]);
    // The mapping's own key wins over the merged one, as in PyYAML.
    assert_eq!(
        doc.get("other").unwrap().get("y").unwrap().as_int(),
        Some(3)
    );
    assert_eq!(doc.get("list").unwrap().as_seq().unwrap().len(), 2);
}

#[test]
fn errors_name_the_line() {
    let e = parse("a: 1\na: 2\n").unwrap_err();
    assert!(e.starts_with("line 2: duplicate key `a`"), "{e}");
    let e = parse("a: [1, 2\n").unwrap_err();
    assert!(e.starts_with("line "), "{e}");
    let e = parse("a: !custom x\n").unwrap_err();
    assert!(e.contains("unsupported tag"), "{e}");
}

#[test]
fn merges_keep_their_order_and_the_mappings_own_keys() {
    let base = "b: &b {x: 1, y: 2}\nc: &c {y: 9, z: 1}\n";
    // (the mapping, its keys in order, its `y`)
    let cases: &[(&str, &[&str], i64)] = &[
        ("{<<: *b, y: 3}", &["x", "y"], 3),
        ("{y: 3, <<: *b}", &["y", "x"], 3),
        ("{<<: [*b, *c]}", &["x", "y", "z"], 2),
        ("{<<: *c, <<: *b, x: 5}", &["y", "z", "x"], 9),
        ("{<<: *b, y: 3, <<: *c}", &["x", "y", "z"], 3),
    ];
    for (map, keys, y) in cases {
        let doc = parse(&format!("{base}m: {map}\n")).unwrap();
        let m = doc.get("m").unwrap();
        let got: Vec<&str> = m
            .as_map()
            .unwrap()
            .iter()
            .map(|(k, _)| k.as_str())
            .collect();
        assert_eq!(&got, keys, "{map}");
        assert_eq!(m.get("y").unwrap().as_int(), Some(*y), "{map}");
    }
    let e = parse(&format!("{base}m:\n  <<: *b\n  y: 3\n  y: 4\n")).unwrap_err();
    assert!(e.starts_with("line 6: duplicate key `y`"), "{e}");
}

#[test]
fn many_keys_cost_one_lookup_each() {
    // Each key was compared with every key before it: 100,000 keys took
    // 20 s. Now each key is looked up once.
    let n = 5_000;
    let text: String = (0..n).map(|i| format!("k{i}: {i}\n")).collect();
    let before = KEY_LOOKUPS.with(|c| c.get());
    let doc = parse(&text).unwrap();
    let lookups = KEY_LOOKUPS.with(|c| c.get()) - before;
    assert_eq!(doc.as_map().unwrap().len(), n);
    assert!(lookups <= n, "{lookups} key lookups for {n} keys");
}

#[test]
fn an_alias_bomb_is_refused_at_its_line() {
    // Nine lines, 9^9 strings once expanded.
    let mut text = String::from("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for (from, to) in ('a'..='h').zip('b'..='i') {
        let refs = vec![format!("*{from}"); 9].join(", ");
        text.push_str(&format!("{to}: &{to} [{refs}]\n"));
    }
    let e = parse(&text).unwrap_err();
    assert_eq!(
        e,
        format!(
            "line 5: the document's anchors and aliases copy more than {MAX_ALIAS_NODES} nodes \
             (mdbook-agentx's bound on YAML aliases, which an alias to aliases multiplies); \
             write the values out or use fewer aliases"
        )
    );
    // Four levels (7,381 strings) are well within the bound.
    let four: String = text.lines().take(4).map(|l| format!("{l}\n")).collect();
    let doc = parse(&four).unwrap();
    assert_eq!(doc.get("d").unwrap().as_seq().unwrap().len(), 9);
}

/// Nesting yaml-rust2's `load` recursed into once per level: `- - - … 1`
/// (two bytes a level: 1,000 levels overflowed a test thread's stack, a
/// few thousand sync's main thread, and the process aborted) and block
/// mappings indented a space a level. Refused with the line instead; flow
/// collections hit yaml-rust2's own limit.
#[test]
fn deep_nesting_is_refused_not_recursed() {
    let dashes = format!("{}1\n", "- ".repeat(100_000));
    let maps: String = (0..1_000)
        .map(|i| format!("{}a:\n", " ".repeat(i)))
        .collect();
    let flow = format!("a: {}1{}\n", "[".repeat(1_000), "]".repeat(1_000));
    for (what, text) in [("dashes", dashes), ("mappings", maps), ("flow", flow)] {
        let err = parse(&text).unwrap_err();
        assert!(
            err.contains("nested deeper than") || err.contains("recursion limit"),
            "{what}: {err}"
        );
        assert!(err.starts_with("line "), "{what}: {err}");
    }
    // Within the bound the document is read, as before.
    let mut node = &parse(&format!("{}1\n", "- ".repeat(60))).unwrap();
    for _ in 0..60 {
        node = &node.as_seq().unwrap()[0];
    }
    assert_eq!(node.as_int(), Some(1));
}
