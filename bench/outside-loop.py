#!/usr/bin/env python3
"""The constrained loop issue 33 measured outside the project, rebuilt: a baseline for docs/guides/small-models.md.

Each step asks for `response_format` `json_schema` with a `oneOf` of `{"tool": NAME, "arguments": ...}` per tool
(read_file, write_file with its content in the schema, run, list_dir; FOUR=1 leaves list_dir out) and the answer;
results go back as user messages; a two-line prompt; at most 10 steps. Runs examples/eval-small's tasks with their
checks and prints pass/fail, wall time and messages per run; the conversations are kept under OUT.

    REPEAT=3 URL=http://127.0.0.1:28080/v1/chat/completions OUT=/tmp/outside-loop python3 bench/outside-loop.py
"""
import json, os, subprocess, sys, time, urllib.request, shutil, re, statistics
URL = os.environ.get('URL', 'http://127.0.0.1:28080/v1/chat/completions')
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.environ.get('OUT', '/tmp/outside-loop')
TOOLS = {
  'read_file': {'type': 'object', 'properties': {'path': {'type': 'string'}}, 'required': ['path'], 'additionalProperties': False},
  'write_file': {'type': 'object', 'properties': {'path': {'type': 'string'}, 'content': {'type': 'string'}}, 'required': ['path', 'content'], 'additionalProperties': False},
  'run': {'type': 'object', 'properties': {'command': {'type': 'string'}}, 'required': ['command'], 'additionalProperties': False},
  'list_dir': {'type': 'object', 'properties': {'path': {'type': 'string'}}, 'required': ['path'], 'additionalProperties': False},
}
if os.environ.get('FOUR'): TOOLS.pop('list_dir')
def schema():
    one = [{'type': 'object', 'properties': {'tool': {'const': n}, 'arguments': s}, 'required': ['tool', 'arguments'], 'additionalProperties': False} for n, s in TOOLS.items()]
    one.append({'type': 'object', 'properties': {'tool': {'const': 'answer'}, 'arguments': {'type': 'object', 'properties': {'text': {'type': 'string'}}, 'required': ['text'], 'additionalProperties': False}}, 'required': ['tool', 'arguments'], 'additionalProperties': False})
    return {'oneOf': one}
SYSTEM = ('You are an agent working in a directory. Each reply is one JSON step: call a tool, or give the answer when the task is done.\n'
  'Tools: read_file(path), write_file(path, content), run(command: a bash command)' + ('' if os.environ.get('FOUR') else ', list_dir(path)') + ', answer(text).')
def tool(ws, name, a):
    try:
        if name == 'read_file': return open(os.path.join(ws, a['path'])).read()
        if name == 'write_file':
            open(os.path.join(ws, a['path']), 'w').write(a['content']); return f"wrote {len(a['content'])} bytes"
        if name == 'list_dir': return '\n'.join(sorted(os.listdir(os.path.join(ws, a['path']))))
        if name == 'run':
            p = subprocess.run(a['command'], shell=True, cwd=ws, capture_output=True, text=True, timeout=30)
            return f"exit {p.returncode}\n{p.stdout}{p.stderr}"
    except Exception as e: return f'error: {e}'
def chat(msgs):
    body = {'model': 'x', 'messages': msgs, 'temperature': 0.3, 'max_tokens': 1024, 'response_format': {'type': 'json_schema', 'json_schema': {'name': 'step', 'schema': schema()}}}
    r = urllib.request.urlopen(urllib.request.Request(URL, data=json.dumps(body).encode(), headers={'Content-Type': 'application/json'}), timeout=600)
    return json.loads(r.read())['choices'][0]['message']['content']
def run_task(t, ws):
    msgs = [{'role': 'system', 'content': SYSTEM}, {'role': 'user', 'content': t['prompt']}]
    for i in range(10):
        c = chat(msgs); msgs.append({'role': 'assistant', 'content': c})
        try: s = json.loads(c)
        except Exception: msgs.append({'role': 'user', 'content': 'not JSON'}); continue
        if s['tool'] == 'answer': return s['arguments']['text'], msgs
        msgs.append({'role': 'user', 'content': f"{s['tool']} result:\n{tool(ws, s['tool'], s['arguments'])}"})
    return None, msgs
base = os.path.join(ROOT, 'examples/eval-small'); suite = json.load(open(os.path.join(base, 'suite.json')))
res = []; walls = []
for rep in range(int(os.environ.get('REPEAT', '3'))):
  for t in suite['tasks']:
    ws = f'{OUT}/ws/{t["id"]}-{rep}'; shutil.rmtree(ws, ignore_errors=True)
    if 'workspace' in t: shutil.copytree(os.path.join(base, t['workspace']), ws)
    else: os.makedirs(ws)
    for cmd in t.get('setup', []): subprocess.run(cmd, shell=True, cwd=ws)
    t0 = time.time(); ans, msgs = run_task(t, ws); w = time.time() - t0; walls.append(w)
    ok = ans is not None
    for ch in t['checks']:
        if ch['type'] == 'answer': ok = ok and bool(re.search(ch['matches'], ans or ''))
        elif ch['type'] == 'file':
            p = os.path.join(ws, ch['path']); txt = open(p).read() if os.path.exists(p) else None
            ok = ok and txt is not None and (bool(re.search(ch['matches'], txt)) if 'matches' in ch else ch['contains'] in txt)
        elif ch['type'] == 'command': ok = ok and subprocess.run(ch['run'], shell=True, cwd=ws, capture_output=True).returncode == ch.get('exitCode', 0)
    res.append((t['id'], ok)); print(t['id'], rep, ok, round(w, 1), len(msgs), flush=True)
    json.dump(msgs, open(f'{OUT}/{t["id"]}-{rep}.json', 'w'), indent=1)
print('total', sum(o for _, o in res), '/', len(res), 'median', statistics.median(walls))
