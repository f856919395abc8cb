#!/usr/bin/env python3
"""Open time of single-file exports in headless Chromium, as browser_real
measures it (docs/BENCHMARKS.md, issue 26): chromedriver with the test's
Chromium flags, a 1400 x 900 view, about:blank then the file, and the
navigation entry's loadEventEnd, the element count and the pickers shown.
The files are opened in turn, RUNS rounds, and medians with min-max printed.

    scripts/single-file-open.py RUNS A.html [B.html ...]
"""
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

CHROMIUM = "/usr/bin/chromium"
DRIVER = "/usr/bin/chromedriver"
MEASURE = (
    "var n = performance.getEntriesByType('navigation')[0]; "
    "return { load: n.loadEventEnd, elements: document.getElementsByTagName('*').length, "
    "pickers: document.querySelectorAll('.agentx-picker[data-ready], .agentx-picker:not([hidden])').length };"
)


def call(port, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=data, method=method,
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as r:
        return json.load(r)["value"]


def main():
    runs, files = int(sys.argv[1]), [os.path.realpath(f) for f in sys.argv[2:]]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    driver = subprocess.Popen([DRIVER, f"--port={port}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    profile = tempfile.mkdtemp(prefix="agentx-chrome-open-")
    try:
        for _ in range(400):
            try:
                socket.create_connection(("127.0.0.1", port)).close()
                break
            except OSError:
                time.sleep(0.05)
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": [
                "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-quic",
                "--window-size=1280,900", f"--user-data-dir={profile}"]}}}}
        sid = call(port, "POST", "/session", caps)["sessionId"]
        s = f"/session/{sid}"
        call(port, "POST", f"{s}/goog/cdp/execute", {
            "cmd": "Emulation.setDeviceMetricsOverride",
            "params": {"width": 1400, "height": 900, "deviceScaleFactor": 1, "mobile": False}})
        got = {f: [] for f in files}
        last = {}
        for _ in range(runs):
            for f in files:
                call(port, "POST", f"{s}/url", {"url": "about:blank"})
                call(port, "POST", f"{s}/url", {"url": f"file://{f}"})
                r = call(port, "POST", f"{s}/execute/sync", {"script": MEASURE, "args": []})
                got[f].append(r["load"])
                last[f] = r
        for f in files:
            v = got[f]
            print(f"{f}: {os.path.getsize(f)} B; load event median {statistics.median(v):.0f} ms "
                  f"({min(v):.0f}-{max(v):.0f}, {runs} runs); {last[f]['elements']} elements; "
                  f"{last[f]['pickers']} pickers shown")
        call(port, "DELETE", s)
    finally:
        driver.terminate()
        driver.wait()


if __name__ == "__main__":
    main()
