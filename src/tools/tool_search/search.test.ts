import { describe, expect, it } from 'vitest';
import { TOOL_SPECS, toolDefinitions } from '../registry';
import { MAX_FOUND, searchTools } from './search';

const hidden = TOOL_SPECS.filter((s) => ['search_files', 'web_fetch', 'memory', 'task_register', 'task_list', 'session_search'].includes(s.name)).map(
  (s) => ({ name: s.name, description: s.description }),
);

describe('searchTools', () => {
  it('finds tools by what they do, best first, with their descriptions', () => {
    const r = searchTools('search text in files', hidden);
    expect(r.found[0]).toBe('search_files');
    expect(r.text).toMatch(/^Found \d; you can call them from now on:\n- search_files: /);
    expect(searchTools('fetch a web page', hidden).found[0]).toBe('web_fetch');
    expect(searchTools('schedule a task every day', hidden).found[0]).toBe('task_register');
  });

  it('finds a tool by its name', () => {
    expect(searchTools('memory', hidden).found[0]).toBe('memory');
  });

  it('names the searchable tools when nothing matches, and says when there is nothing to find', () => {
    expect(searchTools('zzz', hidden)).toEqual({
      found: [],
      text: `No tool matches "zzz". Tools you can search for: ${hidden.map((h) => h.name).join(', ')}.`,
    });
    expect(searchTools('files', []).found).toEqual([]);
  });

  it('returns at most MAX_FOUND tools', () => {
    expect(searchTools('a list of the tasks, files, memory, sessions and web pages', hidden).found.length).toBeLessThanOrEqual(MAX_FOUND);
  });
});

describe('toolDefinitions for a small model', () => {
  it('sends the brief and only the brief parameters', () => {
    const [terminal] = toolDefinitions(['terminal'], true);
    expect(terminal!.function).toEqual({
      name: 'terminal',
      description: 'Runs a bash command in the workspace and returns what it printed.',
      parameters: {
        type: 'object',
        properties: { command: { type: 'string', description: 'The bash command line to run (bash -c).' } },
        required: ['command'],
      },
    });
    expect(toolDefinitions(['terminal'])[0]!.function.parameters).toMatchObject({ properties: { cwd: {}, timeout: {} } });
  });
});
