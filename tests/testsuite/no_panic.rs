//! Property test: random mutations of real and fixture data files may load and
//! decode, or fail with an error, but must never panic.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use mdbook_agentx::decode_str;
use serde_json::Value;

use crate::support;

/// Small deterministic PRNG (xorshift64*), so failures reproduce from the seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Picks a random node of the tree (walk down a random number of steps).
fn random_node<'v>(v: &'v mut Value, rng: &mut Rng) -> &'v mut Value {
    let depth = rng.below(9);
    let mut cur = v;
    for _ in 0..depth {
        let n = match &*cur {
            Value::Array(a) => a.len(),
            Value::Object(o) => o.len(),
            _ => 0,
        };
        if n == 0 {
            break;
        }
        let i = rng.below(n);
        cur = match cur {
            Value::Array(a) => &mut a[i],
            Value::Object(o) => o.values_mut().nth(i).unwrap(),
            _ => unreachable!(),
        };
    }
    cur
}

fn mutate(v: &mut Value, rng: &mut Rng) {
    let replacements = [
        Value::Null,
        Value::from(0),
        Value::from(-1),
        Value::from(u64::MAX),
        Value::from(3),
        Value::from(""),
        Value::from("sglang"),
        Value::from("mooncake"),
        Value::from("worker"),
        Value::from("$X'\"\\"),
        Value::Array(vec![]),
        Value::Array(vec![Value::from(0), Value::from("dynamo"), Value::from(1)]),
        serde_json::json!({}),
        serde_json::json!({"replace": []}),
        serde_json::json!([null, null, null, null, null, null, null, null, null, null]),
    ];
    let node = random_node(v, rng);
    match rng.below(4) {
        0 => *node = replacements[rng.below(replacements.len())].clone(),
        1 => match node {
            Value::Object(o) if !o.is_empty() => {
                let k = o.keys().nth(rng.below(o.len())).unwrap().clone();
                o.shift_remove(&k);
            }
            Value::Array(a) if !a.is_empty() => {
                let i = rng.below(a.len());
                a.remove(i);
            }
            _ => {}
        },
        2 => match node {
            Value::Array(a) if !a.is_empty() => {
                let i = rng.below(a.len());
                let dup = a[i].clone();
                a.push(dup);
            }
            Value::Number(_) => *node = Value::from(rng.below(40)),
            _ => {}
        },
        _ => {
            // Swap two subtrees of the document.
            let copy = random_node(&mut v.clone(), rng).clone();
            *random_node(v, rng) = copy;
        }
    }
}

fn no_panics(name: &str, text: &str, rounds: usize, seed: u64) {
    let base: Value = serde_json::from_str(text).expect("base file parses");
    let mut rng = Rng(seed);
    let (mut ok, mut err) = (0, 0);
    for round in 0..rounds {
        let mut v = base.clone();
        for _ in 0..=rng.below(3) {
            mutate(&mut v, &mut rng);
        }
        let mutated = serde_json::to_string(&v).unwrap();
        // Byte-level damage too, now and then: truncation at a char boundary.
        let mutated = if round % 7 == 0 {
            let mut cut = rng.below(mutated.len());
            while !mutated.is_char_boundary(cut) {
                cut -= 1;
            }
            mutated[..cut].to_string()
        } else {
            mutated
        };
        let result = catch_unwind(AssertUnwindSafe(|| {
            decode_str(&mutated, Path::new(name)).map(|_| ())
        }));
        match result {
            Ok(Ok(())) => ok += 1,
            Ok(Err(e)) => {
                let msg = format!("{e:#}");
                assert!(
                    msg.starts_with(name) || msg.contains("cells["),
                    "unlocated error: {msg}"
                );
                err += 1;
            }
            Err(_) => panic!("{name}: round {round} (seed {seed}) panicked on:\n{mutated}"),
        }
    }
    eprintln!("{name}: {rounds} mutations, {ok} decoded, {err} rejected with an error, 0 panics");
    assert!(err > 0, "mutations should produce some errors");
}

#[test]
fn fixture_mutations_never_panic() {
    let text = support::read(&support::fixture("data/mini.json"));
    no_panics("mini.json", &text, 3000, 0x9E37_79B9_7F4A_7C15);
}

#[test]
fn real_file_mutations_never_panic() {
    for (file, rounds) in [
        ("agentx-qwen3.8-flash-next.json", 600),
        ("agentx-glm-5.2.excerpt.json", 400),
        ("agentx-deepseek-v4_1.json", 150),
    ] {
        let Some(p) = support::shared(&format!("reference/sglang-cookbook/{file}")) else {
            return;
        };
        no_panics(file, &support::read(&p), rounds, 0xD1B5_4A32_D192_ED03);
    }
}
