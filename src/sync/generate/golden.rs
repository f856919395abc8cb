//! Golden acceptance length: looked up, not computed, as InferenceX does
//! (docs/sync.md, "Golden AL"). The generation role (decode, else agg) gives
//! the method and K; the curve is `<model-prefix>_<method>.yaml` with
//! `{model: {thinking_on|thinking_off: {K: AL}}}`; the value is written as
//! Python's `format(al, "g")`. Uses `sync::yaml`, `sync::spec`.

use crate::data::Role;
use crate::sync::input::spec::{Recipe, RoleSpec};
use crate::sync::input::yaml::{self, Node};

/// What a lane speculates with, read from its generation role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::sync) struct Spec {
    /// `dspark`, `mtp` (EAGLE / NEXTN), …
    pub method: String,
    /// Draft length: DSpark block size, else `speculative-num-steps`.
    pub k: u32,
    /// `DSpark 5` / `MTP 3-1-4`.
    pub detail: String,
}

fn arg<'a>(role: &'a RoleSpec, name: &str) -> Option<&'a Node> {
    role.args
        .iter()
        .find(|(k, _)| k.replace('_', "-") == name)
        .map(|(_, v)| v)
}

fn count(role: &RoleSpec, name: &str) -> Result<u32, String> {
    let v = arg(role, name).ok_or_else(|| format!("`{name}` is missing"))?;
    v.as_int()
        .and_then(|i| u32::try_from(i).ok())
        .ok_or_else(|| format!("`{name}` (line {}) is not a count", v.line))
}

/// The generation role's speculation, or `None` when it does not speculate.
/// The detail the cell shows is that of its first worker block (prefill
/// before decode), as the real pages show it: GLM-5.2's GB200 1P6D lane
/// drafts 1-1-2 on prefill and 2-1-3 on decode, and shows `MTP 1-1-2` with
/// the decode AL.
pub(in crate::sync) fn spec(recipe: &Recipe) -> Result<Option<Spec>, String> {
    let role = recipe
        .role(Role::Decode)
        .or_else(|| recipe.role(Role::Agg))
        .ok_or("the recipe has no generation role")?;
    let Some(mut spec) = role_spec(role)? else {
        return Ok(None);
    };
    if let Some(first) = recipe.roles.first().filter(|r| r.role != role.role)
        && let Some(shown) = role_spec(first)?
    {
        spec.detail = shown.detail;
    }
    Ok(Some(spec))
}

fn role_spec(role: &RoleSpec) -> Result<Option<Spec>, String> {
    let Some(alg) = arg(role, "speculative-algorithm").and_then(|a| a.python_str()) else {
        return Ok(None);
    };
    let alg = alg.to_ascii_lowercase();
    let method = match alg.as_str() {
        "dspark" => "dspark",
        "eagle" | "nextn" => "mtp",
        other => {
            return Err(format!(
                "speculative algorithm `{other}`: no golden-AL curve rule for it"
            ));
        }
    };
    let (k, detail) = if method == "dspark" {
        let k = count(role, "speculative-dspark-block-size")?;
        (k, format!("DSpark {k}"))
    } else {
        let steps = count(role, "speculative-num-steps")?;
        let topk = count(role, "speculative-eagle-topk")?;
        let draft = count(role, "speculative-num-draft-tokens")?;
        (steps, format!("MTP {steps}-{topk}-{draft}"))
    };
    Ok(Some(Spec {
        method: method.into(),
        k,
        detail,
    }))
}

/// InferenceX's `curve_name`: `<prefix>_<method>`, with the DeepSeek-V4 Pro
/// DSpark family sharing one curve.
pub(in crate::sync) fn curve_name(model_prefix: &str, spec: &Spec) -> Result<String, String> {
    let name = if matches!(model_prefix, "dsv4" | "dsv4dspark" | "dsv4dsparkprob")
        && spec.method == "dspark"
    {
        "dsv4-pro-0813-dspark".to_string()
    } else {
        format!("{model_prefix}_{}", spec.method)
    };
    let ok = name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_.-".contains(c));
    if ok {
        Ok(name)
    } else {
        Err(format!("curve name `{name}` is not of [a-z0-9_.-]"))
    }
}

/// The golden AL at draft length `k` in a parsed curve file, formatted like
/// Python's `format(al, "g")`.
pub(in crate::sync) fn lookup(
    doc: &Node,
    thinking: &str,
    k: u32,
    origin: &str,
) -> Result<String, String> {
    let models = doc
        .as_map()
        .ok_or_else(|| format!("{origin}: not a mapping"))?;
    let [(model, modes)] = models else {
        return Err(format!(
            "{origin}: {} model keys; a curve file holds one",
            models.len()
        ));
    };
    let table = modes
        .get(thinking)
        .ok_or_else(|| format!("{origin}: `{model}` has no `{thinking}` curve"))?;
    let value = table
        .get(&k.to_string())
        .ok_or_else(|| format!("{origin}: no golden acceptance for {model} {thinking} K={k}"))?;
    let al = match &value.value {
        yaml::Value::Float(f) => *f,
        yaml::Value::Int(i) => *i as f64,
        _ => return Err(format!("{origin}:{}: the AL is not a number", value.line)),
    };
    if !al.is_finite() || al < 1.0 || al > f64::from(k) + 1.0 {
        return Err(format!(
            "{origin}:{}: AL {al} is outside [1, K+1] for K={k}",
            value.line
        ));
    }
    Ok(format_g(al))
}

/// Python's `format(x, "g")`: 6 significant digits, trailing zeros dropped.
pub(in crate::sync) fn format_g(x: f64) -> String {
    let s = format!("{x:.5e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..6).contains(&exp) {
        let decimals = usize::try_from(5 - exp).unwrap_or(0);
        let fixed = format!("{x:.decimals$}");
        trim_zeros(&fixed)
    } else {
        let m = trim_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.abs())
    }
}

fn trim_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_g_matches_python() {
        for (x, want) in [
            (3.51, "3.51"),
            (2.5, "2.5"),
            (2.50, "2.5"),
            (3.0, "3"),
            (1.0 / 3.0, "0.333333"),
            (1234567.0, "1.23457e+06"),
        ] {
            assert_eq!(format_g(x), want, "{x}");
        }
    }

    #[test]
    fn lookup_reads_one_curve() {
        let doc = yaml::parse(
            "# c\nglm-5.2-fp8:\n  thinking_on:\n    1: 1.84\n    2: 2.50\n    5: 3.61\n",
        )
        .unwrap();
        assert_eq!(lookup(&doc, "thinking_on", 2, "c.yaml").unwrap(), "2.5");
        assert_eq!(lookup(&doc, "thinking_on", 5, "c.yaml").unwrap(), "3.61");
        assert!(
            lookup(&doc, "thinking_on", 3, "c.yaml")
                .unwrap_err()
                .contains("K=3")
        );
        assert!(
            lookup(&doc, "thinking_off", 2, "c.yaml")
                .unwrap_err()
                .contains("thinking_off")
        );
        let bad = yaml::parse("m:\n  thinking_on:\n    1: 9.0\n").unwrap();
        assert!(
            lookup(&bad, "thinking_on", 1, "c")
                .unwrap_err()
                .contains("outside")
        );
    }

    #[test]
    fn curve_names() {
        let s = |m: &str| Spec {
            method: m.into(),
            k: 1,
            detail: String::new(),
        };
        assert_eq!(
            curve_name("qwen3.8next", &s("mtp")).unwrap(),
            "qwen3.8next_mtp"
        );
        assert_eq!(
            curve_name("dsv41flash", &s("dspark")).unwrap(),
            "dsv41flash_dspark"
        );
        assert_eq!(
            curve_name("dsv4", &s("dspark")).unwrap(),
            "dsv4-pro-0813-dspark"
        );
    }
}
