//! JSON text in the layout of the upstream data files: one-space indent,
//! arrays of scalars on one line (`["--port", "30000"]`), keys in insertion
//! order. Same value, same bytes. Uses nothing else of the crate.

use serde_json::Value;

/// The value as text, ending in a newline.
pub(super) fn to_text(v: &Value) -> String {
    let mut out = String::new();
    write(v, 0, &mut out);
    out.push('\n');
    out
}

fn scalar(v: &Value) -> String {
    // Serializing a scalar cannot fail.
    serde_json::to_string(v).unwrap_or_default()
}

fn is_leaf_array(items: &[Value]) -> bool {
    items.iter().all(|i| !i.is_array() && !i.is_object())
}

fn write(v: &Value, indent: usize, out: &mut String) {
    match v {
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Array(items) if is_leaf_array(items) => {
            let parts: Vec<String> = items.iter().map(scalar).collect();
            out.push('[');
            out.push_str(&parts.join(", "));
            out.push(']');
        }
        Value::Array(items) => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                out.push_str(&" ".repeat(indent + 1));
                write(item, indent + 1, out);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            out.push_str(&" ".repeat(indent));
            out.push(']');
        }
        Value::Object(map) if map.is_empty() => out.push_str("{}"),
        Value::Object(map) => {
            out.push_str("{\n");
            for (i, (k, item)) in map.iter().enumerate() {
                out.push_str(&" ".repeat(indent + 1));
                out.push_str(&scalar(&Value::String(k.clone())));
                out.push_str(": ");
                write(item, indent + 1, out);
                out.push_str(if i + 1 < map.len() { ",\n" } else { "\n" });
            }
            out.push_str(&" ".repeat(indent));
            out.push('}');
        }
        other => out.push_str(&scalar(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn upstream_layout() {
        let v = json!({"a": [["--port", "30000"], ["--x"]], "b": {}, "c": [], "d": [1, 2], "e": {"f": null}});
        assert_eq!(
            to_text(&v),
            "{\n \"a\": [\n  [\"--port\", \"30000\"],\n  [\"--x\"]\n ],\n \"b\": {},\n \"c\": [],\n \"d\": [1, 2],\n \"e\": {\n  \"f\": null\n }\n}\n"
        );
        let back: Value = serde_json::from_str(&to_text(&v)).unwrap();
        assert_eq!(back, v);
    }
}
