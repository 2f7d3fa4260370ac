#!/usr/bin/env python3
"""Runs a `hermes eval` suite with the upstream Python agent (PyPI hermes-agent 0.19.0) as a baseline.

Each run: a fresh workspace (the fixture copied, the setup commands run), a fresh HERMES_HOME and HOME with their
own config.yaml, and a child process (this file with --child, under the venv's python) that calls
`run_agent.AIAgent(...).run_conversation(prompt)` headless with only the terminal and file toolsets, against the
same OpenAI-compatible endpoint. The checks and the report are the same as `hermes eval`'s (src/eval/): same check
semantics, same columns. See bench/EVAL-UPSTREAM.md.

    bench/.venv-upstream/bin/python bench/eval-upstream.py examples/eval/suite.json \
        --base-url http://127.0.0.1:28080/v1 --model qwen2.5-coder-1.5b-instruct [--repeat K] [--concurrency N] \
        [--json] [--export FILE]
"""

import argparse
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

RESULT_MARK = "HERMES_EVAL_RESULT "
DEFAULT_BUDGETS = {"maxIterations": 20, "maxDurationSec": 300}
GRACE_SEC = 60
# hermes eval's toolset names -> upstream's
TOOLSETS = {"files": "file", "file": "file", "terminal": "terminal"}


# ---------------------------------------------------------------- the suite (validated by `hermes eval`; light checks here)


def load_suite(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if re.search(r"\.ya?ml$", path, re.I):
        import yaml  # hermes-agent depends on PyYAML

        raw = yaml.safe_load(text)
    else:
        raw = json.loads(text)
    if not isinstance(raw, dict) or not isinstance(raw.get("tasks"), list) or not raw["tasks"]:
        sys.exit(f"suite {path}: needs a non-empty tasks list (validate it with `hermes eval`)")
    base = os.path.dirname(os.path.abspath(path))
    defaults = raw.get("defaults") or {}
    tasks = []
    for i, t in enumerate(raw["tasks"]):
        for key in ("id", "prompt", "checks"):
            if key not in t:
                sys.exit(f"suite {path}: tasks[{i}].{key} is missing")
        budgets = {**DEFAULT_BUDGETS, **(defaults.get("budgets") or {}), **(t.get("budgets") or {})}
        tasks.append(
            {
                "id": t["id"],
                "prompt": t["prompt"],
                "fixture": os.path.join(base, t["workspace"]) if t.get("workspace") else None,
                "setup": t.get("setup") or [],
                "checks": t["checks"],
                "budgets": budgets,
                "tools": t.get("tools") or defaults.get("tools") or ["files", "terminal"],
                "system": t.get("system") or defaults.get("system"),
            }
        )
    name = raw.get("name") or re.sub(r"\.(json|ya?ml)$", "", os.path.basename(path), flags=re.I)
    return name, tasks


# ---------------------------------------------------------------- workspaces and checks (as src/eval/workspace.ts, checks.ts)


def run_command(command, cwd, timeout_sec=60):
    """(exit code or None, stdout+stderr, timed out)"""
    p = subprocess.Popen(["bash", "-c", command], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout_sec)
        return p.returncode, out.decode("utf-8", "replace")[: 64 * 1024], False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return None, out.decode("utf-8", "replace"), True


def prepare(task, ws):
    os.makedirs(os.path.dirname(ws), exist_ok=True)
    if task["fixture"]:
        shutil.copytree(task["fixture"], ws)
    else:
        os.makedirs(ws)
    for cmd in task["setup"]:
        code, out, timed_out = run_command(cmd, ws, 120)
        if code != 0:
            raise RuntimeError(f"setup command `{cmd}` {'timed out' if timed_out else f'exited {code}'}: {out.strip()[-500:]}")


def q(s, n=120):
    j = json.dumps(s)
    return j[:n] + '…"' if len(j) > n else j


def mismatch(m, text, trim_end):
    t = text.rstrip() if trim_end else text
    if "equals" in m and t != (m["equals"].rstrip() if trim_end else m["equals"]):
        return f"is {q(t)}, expected {q(m['equals'])}"
    if "contains" in m and m["contains"] not in t:
        return f"does not contain {q(m['contains'])}: {q(t)}"
    if "notContains" in m and m["notContains"] in t:
        return f"contains {q(m['notContains'])}"
    if "matches" in m:
        flags = 0
        for c in m.get("flags") or "":
            flags |= {"i": re.I, "m": re.M, "s": re.S}.get(c, 0)
        if not re.search(m["matches"], t, flags):
            return f"does not match /{m['matches']}/{m.get('flags') or ''}: {q(t)}"
    return None


def describe(c):
    if c["type"] == "file":
        return f"file {c['path']}"
    if c["type"] == "command":
        return f"command `{c['run'][:60] + '…' if len(c['run']) > 60 else c['run']}`"
    return "answer"


def run_check(c, ws, answer):
    name = describe(c)
    fail = lambda d: {"check": name, "ok": False, "detail": f"{name} {d}"}  # noqa: E731
    if c["type"] == "file":
        f = os.path.realpath(os.path.join(ws, c["path"]))
        if os.path.relpath(f, os.path.realpath(ws)).startswith(".."):
            return fail("is outside the workspace")
        present = os.path.isfile(f)
        if c.get("exists") is False:
            return fail("exists, expected it gone") if present else {"check": name, "ok": True}
        if not present:
            return fail("does not exist")
        with open(f, encoding="utf-8", errors="replace", newline="") as fh:
            why = mismatch(c, fh.read(), False)
        return fail(why) if why else {"check": name, "ok": True}
    if c["type"] == "command":
        code, out, timed_out = run_command(c["run"], ws, c.get("timeoutSec", 60))
        want = c.get("exitCode", 0)
        if timed_out:
            return fail(f"timed out after {c.get('timeoutSec', 60)} s")
        if code != want:
            return fail(f"exited {code}, expected {want}: {q(out.strip()[-300:])}")
        why = mismatch(c["output"], out, True) if c.get("output") else None
        return fail(f"output {why}") if why else {"check": name, "ok": True}
    why = mismatch(c, answer or "", True)
    return fail(why) if why else {"check": name, "ok": True}


# ---------------------------------------------------------------- one run: a child process with its own home


def config_for(args, task, ws):
    endpoint = {"provider": "custom", "base_url": args.base_url, "api_key": args.api_key, "model": args.model}
    # JSON is YAML: config.yaml written without a YAML library. The settings that keep it off the internet and
    # quiet (UPSTREAM-AGENT.md): a context length of its own, no catalogue, no tirith, no language servers.
    return {
        "model": {
            "default": args.model,
            "provider": "custom",
            "base_url": args.base_url,
            "context_length": args.context_length,
            "max_tokens": args.max_tokens,
        },
        "toolsets": sorted({TOOLSETS[t] for t in task["tools"] if t in TOOLSETS}),
        "agent": {"max_turns": task["budgets"]["maxIterations"]},
        "memory": {"memory_enabled": False, "user_profile_enabled": False},
        "auxiliary": {"compression": endpoint, "title_generation": endpoint},
        "approvals": {"mode": "manual", "cron_mode": "deny"},
        "security": {"tirith_enabled": False},
        "tools": {"tool_search": {"enabled": "off"}},
        "lsp": {"enabled": False},
        "model_catalog": {"enabled": False},
        "terminal": {"backend": "local", "cwd": ws},
    }


def run_one(args, task, repeat, root):
    ws = os.path.join(root, f"{task['id']}-r{repeat}")
    rec = {"task": task["id"], "repeat": repeat, "workspace": ws, "pass": False, "checks": [], "answer": "", "modelCalls": 0, "toolCalls": 0,
           "usage": {"promptTokens": 0, "completionTokens": 0, "totalTokens": 0, "costUsd": 0}, "wallMs": 0}
    try:
        prepare(task, ws)
    except Exception as e:  # noqa: BLE001
        return {**rec, "status": "error", "reason": f"workspace: {e}"}
    home = tempfile.mkdtemp(prefix=f"upstream-{task['id']}-r{repeat}-", dir=root)
    with open(os.path.join(home, "config.yaml"), "w", encoding="utf-8") as f:
        json.dump(config_for(args, task, ws), f, indent=2)
    env = {
        **os.environ,
        "HOME": home,
        "HERMES_HOME": home,
        "TERMINAL_ENV": "local",
        "TERMINAL_CWD": ws,
        # Dangerous commands denied without blocking, as `hermes eval` runs with approvalMode deny.
        "HERMES_CRON_SESSION": "1",
        # No extra verification calls after a .py edit: hermes-temporal makes none either.
        "HERMES_VERIFY_ON_STOP": "0",
        "OPENAI_API_KEY": args.api_key,
    }
    spec = {"prompt": task["prompt"], "system": task["system"], "base_url": args.base_url, "api_key": args.api_key, "model": args.model,
            "max_iterations": task["budgets"]["maxIterations"], "toolsets": config_for(args, task, ws)["toolsets"]}
    limit = task["budgets"]["maxDurationSec"] + GRACE_SEC
    t0 = time.time()
    p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child"], cwd=home, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(json.dumps(spec).encode(), timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        rec["wallMs"] = int((time.time() - t0) * 1000)
        return {**rec, "status": "timeout", "reason": f"no result within {limit} s: killed", "checks": [run_check(c, ws, "") for c in task["checks"]]}
    rec["wallMs"] = int((time.time() - t0) * 1000)
    lines = [l for l in out.decode("utf-8", "replace").splitlines() if l.startswith(RESULT_MARK)]
    if not lines:
        tail = err.decode("utf-8", "replace").strip().splitlines()[-3:]
        return {**rec, "status": "error", "reason": f"the agent exited {p.returncode} without a result: {' | '.join(tail)[:300]}"}
    r = json.loads(lines[-1][len(RESULT_MARK):])
    answer = r.get("final_response") or ""
    exit_reason = str(r.get("turn_exit_reason") or "")
    if r.get("completed"):
        status = "completed"
    elif r.get("interrupted"):
        status = "interrupted"
    elif "max_iterations" in exit_reason:
        status = "budget_exhausted"
    elif r.get("failed"):
        status = "failed"
    elif r.get("partial"):
        status = "partial"
    else:
        status = "incomplete"
    checks = [run_check(c, ws, answer) for c in task["checks"]]
    failed = next((c for c in checks if not c["ok"]), None)
    passed = status == "completed" and failed is None
    reason = None
    if not passed:
        reason = f"{status} ({(r.get('error') or exit_reason)[:80]})" if status != "completed" else f"check: {failed['detail']}"
    return {
        **rec,
        "status": status,
        "pass": passed,
        **({"reason": reason} if reason else {}),
        "checks": checks,
        "answer": answer,
        "modelCalls": r.get("api_calls") or 0,
        "toolCalls": r.get("tool_messages") or 0,
        "usage": {"promptTokens": r.get("prompt_tokens") or 0, "completionTokens": r.get("completion_tokens") or 0,
                  "totalTokens": r.get("total_tokens") or 0, "costUsd": r.get("estimated_cost_usd") or 0},
        "trajectory": r.get("trajectory"),
    }


def child():
    """In the run's own home: one headless conversation, its result as one marked JSON line."""
    spec = json.load(sys.stdin)
    from run_agent import AIAgent  # noqa: PLC0415 — imported after HERMES_HOME is set

    agent = AIAgent(base_url=spec["base_url"], api_key=spec["api_key"], provider="custom", api_mode="chat_completions", model=spec["model"],
                    max_iterations=spec["max_iterations"], enabled_toolsets=spec["toolsets"], save_trajectories=True, quiet_mode=True,
                    platform="cli", skip_memory=True, **({"ephemeral_system_prompt": spec["system"]} if spec.get("system") else {}))
    r = agent.run_conversation(spec["prompt"])
    keep = ("final_response", "api_calls", "completed", "failed", "partial", "interrupted", "turn_exit_reason", "error", "prompt_tokens",
            "completion_tokens", "total_tokens", "estimated_cost_usd")
    out = {k: r.get(k) for k in keep}
    out["tool_messages"] = sum(1 for m in r.get("messages") or [] if isinstance(m, dict) and m.get("role") == "tool")
    trajectories = [os.path.join(os.getcwd(), f) for f in os.listdir(os.getcwd()) if f.endswith(".jsonl")]
    out["trajectory"] = trajectories[0] if trajectories else None
    sys.stdout.write(RESULT_MARK + json.dumps(out, default=str) + "\n")


# ---------------------------------------------------------------- the report (as src/eval/report.ts)


def stat(xs):
    if not xs:
        return {"mean": 0, "sd": 0, "min": 0, "max": 0}
    mean = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0
    return {"mean": mean, "sd": sd, "min": min(xs), "max": max(xs)}


def failure_key(r):
    if r["pass"]:
        return None
    if r["status"] == "completed":
        return "check " + next((c["check"] for c in r["checks"] if not c["ok"]), "?")
    return r.get("reason") or r["status"]


def build_report(suite, runs, args):
    tasks = []
    for tid in dict.fromkeys(r["task"] for r in runs):
        rs = [r for r in runs if r["task"] == tid]
        passes = sum(r["pass"] for r in rs)
        failures = {}
        for r in rs:
            k = failure_key(r)
            if k:
                failures[k] = failures.get(k, 0) + 1
        tasks.append({"task": tid, "runs": len(rs), "passes": passes, "rate": passes / len(rs), "rateSd": stat([1 if r["pass"] else 0 for r in rs])["sd"],
                      "modelCalls": stat([r["modelCalls"] for r in rs]), "toolCalls": stat([r["toolCalls"] for r in rs]),
                      "wallSec": stat([r["wallMs"] / 1000 for r in rs]), "tokens": stat([r["usage"]["totalTokens"] for r in rs]),
                      "costUsd": stat([r["usage"]["costUsd"] for r in rs]), "faults": 0, "failures": failures})
    rounds = max(r["repeat"] for r in runs)
    round_rates = [sum(r["pass"] for r in runs if r["repeat"] == k) / max(1, sum(1 for r in runs if r["repeat"] == k)) for k in range(1, rounds + 1)]
    statuses = {}
    for r in runs:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    passes = sum(r["pass"] for r in runs)
    return {"suite": suite, "agent": "upstream hermes-agent 0.19.0", "model": args.model, "repeat": args.repeat, "concurrency": args.concurrency,
            "summary": {"runs": len(runs), "passes": passes, "rate": passes / len(runs), "roundRates": round_rates, "roundRate": stat(round_rates),
                        "wallSec": sum(r["wallMs"] for r in runs) / 1000, "tokens": sum(r["usage"]["totalTokens"] for r in runs),
                        "costUsd": sum(r["usage"]["costUsd"] for r in runs), "statuses": statuses},
            "tasks": tasks, "runs": runs}


def fmt_report(rep):
    pct = lambda x: f"{round(x * 100)}%"  # noqa: E731
    num = lambda x, d=1: str(int(x)) if float(x).is_integer() else f"{x:.{d}f}"  # noqa: E731
    sd = lambda s, d=1: f"{num(s['mean'], d)} ±{num(s['sd'], d)}" if s["sd"] else num(s["mean"], d)  # noqa: E731
    head = ["task", "pass", "rate", "steps", "tools", "time s", "tokens", "cost $", "faults", "failures"]
    rows = [[t["task"], f"{t['passes']}/{t['runs']}", f"{pct(t['rate'])} ±{pct(t['rateSd'])}" if t["runs"] > 1 else pct(t["rate"]), sd(t["modelCalls"]),
             sd(t["toolCalls"]), sd(t["wallSec"]), sd(t["tokens"], 0), f"{t['costUsd']['mean']:.4f}" if t["costUsd"]["mean"] else "-", "0",
             "; ".join(f"{k} ×{n}" if n > 1 else k for k, n in t["failures"].items()) or "-"] for t in rep["tasks"]]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    line = lambda cells: "  ".join(c if i == len(cells) - 1 else c.ljust(widths[i]) for i, c in enumerate(cells)).rstrip()  # noqa: E731
    s = rep["summary"]
    rounds = ""
    if len(s["roundRates"]) > 1:
        rr = s["roundRate"]
        rounds = f" · per repeat {', '.join(pct(x) for x in s['roundRates'])} (mean {pct(rr['mean'])} ±{pct(rr['sd'])}, range {pct(rr['min'])}–{pct(rr['max'])})"
    return "\n".join([line(head), *(line(r) for r in rows), "",
                      f"{rep['suite']} (upstream hermes-agent 0.19.0): {s['passes']}/{s['runs']} passed ({pct(s['rate'])}){rounds}",
                      f"runs: {', '.join(f'{k} {n}' for k, n in s['statuses'].items())} · wall {s['wallSec']:.1f} s summed · tokens {s['tokens']}"])


def main():
    if sys.argv[1:] == ["--child"]:
        return child()
    ap = argparse.ArgumentParser(description="Run a hermes eval suite with the upstream hermes-agent (baseline).")
    ap.add_argument("suite")
    ap.add_argument("--concurrency", type=int, default=1, help="runs at a time (default 1: a local server serves one at a time)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--base-url", default=os.environ.get("OPENAI_BASE_URL", "http://127.0.0.1:28080/v1"))
    ap.add_argument("--api-key", default=os.environ.get("OPENAI_API_KEY", "none"))
    ap.add_argument("--model", default=os.environ.get("HERMES_MODEL", "qwen2.5-coder-1.5b-instruct"))
    ap.add_argument("--context-length", type=int, default=64000, help="told to the agent (it refuses below 64,000)")
    ap.add_argument("--max-tokens", type=int, default=4096, help="per reply (its default for custom providers is 65,536)")
    ap.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "hermes-eval-upstream"))
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--export", help="one JSON line per run")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    try:
        import run_agent  # noqa: F401, PLC0415
    except ImportError:
        sys.exit("run_agent not importable: run this with the python of a venv where hermes-agent==0.19.0 is installed (bench/EVAL-UPSTREAM.md)")
    suite, tasks = load_suite(args.suite)
    root = os.path.join(os.path.abspath(args.workdir), f"{suite}-{time.strftime('%Y%m%d-%H%M%S')}")
    jobs = sorted(((t, k) for t in tasks for k in range(1, args.repeat + 1)), key=lambda j: j[1])
    if not args.quiet:
        print(f"upstream eval {suite}: {len(tasks)} task(s) × {args.repeat}, {args.concurrency} at a time, model {args.model} at {args.base_url}, "
              f"workspaces under {root}", file=sys.stderr)
    done = [0]

    def job(j):
        r = run_one(args, j[0], j[1], root)
        done[0] += 1
        if not args.quiet:
            verdict = "pass" if r["pass"] else f"FAIL {r.get('reason') or r['status']}"
            print(f"[{done[0]}/{len(jobs)}] {r['task']} #{r['repeat']} {verdict[:160]} ({r['wallMs'] / 1000:.1f} s)", file=sys.stderr)
        return r

    with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
        runs = list(pool.map(job, jobs))
    rep = build_report(suite, runs, args)
    if args.export:
        with open(args.export, "w", encoding="utf-8") as f:
            for r in runs:
                f.write(json.dumps({k: r.get(k) for k in ("task", "repeat", "status", "pass", "reason", "answer", "usage", "modelCalls", "toolCalls", "wallMs",
                                                           "checks", "trajectory")}) + "\n")
    print(json.dumps(rep, indent=2) if args.json else fmt_report(rep))
    return 0 if rep["summary"]["passes"] == rep["summary"]["runs"] else 1


if __name__ == "__main__":
    sys.exit(main())
