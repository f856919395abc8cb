#!/usr/bin/env python3
"""Write the sample book's small flag registries (flags/*.json).

Each one is the subset of a full registry (the shape of
../shared/reference/flags/*.json) holding the options the sample book's command
lines use, so `mdbook-agentx check` runs against real arity and choices while
the project ships only what it needs. Usage, from the repository root:

    cargo build --release
    python3 scripts/sample-registries.py ../shared/reference/flags

An option the book uses that the full registry lacks is reported and left
out, so `check` will flag it: fix the data, not the registry.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

FULL = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/reference/flags")
OUT = Path("flags")

# registry file → the full registries it is cut from (a Dynamo worker image
# combines Dynamo's own layer with the SGLang release it bundles).
SAMPLES = {
    "sglang.launch_server@v0.5.19.json": ["sglang.launch_server@v0.5.19.json"],
    "sglang.launch_server@v0.5.22.json": ["sglang.launch_server@v0.5.22.json"],
    "sglang.launch_server@v0.5.23.json": ["sglang.launch_server@v0.5.23.json"],
    "dynamo.sglang@v1.6.1.json": ["dynamo.sglang@v1.6.1.json"],
    "dynamo.sglang@v1.6.1+sglang-v0.5.23.json": ["dynamo.sglang@v1.6.1.json", "sglang.launch_server@v0.5.23.json"],
    "sglang_router.launch_router@v0.3.2.json": ["sglang_router.launch_router@v0.3.2.json"],
    "dynamo.frontend@v1.6.1.json": ["dynamo.frontend@v1.6.1.json"],
}


def used_options():
    files = sorted(str(p) for p in Path("agentx").iterdir())
    out = subprocess.run(["target/release/mdbook-agentx", "decode", "--json", *files],
                         check=True, capture_output=True, text=True).stdout
    used = {}
    for s in json.loads(out):
        for block in s["blocks"]:
            m = re.search(r"-m (\S+)", block)
            if not m:
                continue
            options = set(re.findall(r"(?:^|\s)(--?[A-Za-z][\w-]*)", block[m.end():]))
            used.setdefault(m.group(1), set()).update(options)
    return used


def main():
    used = used_options()
    OUT.mkdir(exist_ok=True)
    for name, sources in SAMPLES.items():
        regs = [json.loads((FULL / s).read_text()) for s in sources]
        entrypoint = regs[0]["entrypoint"]
        want = used.get(entrypoint, set())
        flags, seen = [], set()
        if len(regs) == 2:
            # Dynamo's own options from the first, SGLang's from the second.
            pool = [f for f in regs[0]["flags"] if f.get("layer") != "sglang"]
            pool += [dict(f, layer="sglang") for f in regs[1]["flags"] if f["name"] != "--help"]
        else:
            pool = regs[0]["flags"]
        for f in pool:
            options = {f["name"], *f.get("aliases", [])}
            if (options & want or f.get("implicit")) and f["name"] not in seen:
                seen.add(f["name"])
                flags.append(f)
        have = {o for f in flags for o in (f["name"], *f.get("aliases", []))}
        missing = sorted(o for o in want if o not in have)
        if missing and len(regs) == 1 and "@v0.5.19" not in name:
            print(f"{name}: used but not in {sources[0]}: {', '.join(missing)}")
        flags.sort(key=lambda f: f["name"])
        release = " + ".join(r["source"].get("release") or r["source"].get("commit") for r in regs)
        doc = {
            "entrypoint": entrypoint,
            "source": {"release": release, "derived_from": sources},
            "notes": ["Subset of the full registry: the options the sample book uses. "
                      "Written by scripts/sample-registries.py."],
            "flag_count": len(flags),
            "flags": flags,
        }
        (OUT / name).write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {OUT / name}: {len(flags)} flags")


if __name__ == "__main__":
    main()
