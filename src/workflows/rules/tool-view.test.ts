// Which tools a small model is shown (src/workflows/rules/tool-view.ts): what tool_search finds, once per tool.
import { describe, expect, it } from 'vitest';
import { ToolView } from './tool-view';

describe('ToolView', () => {
  it('reveals each found tool once, also when several searches in one step found it', () => {
    const view = new ToolView({ core: true, found: [] });
    expect(view.reveal(['search_files', 'search_files', 'web_fetch', 'search_files'])).toEqual(['search_files', 'web_fetch']);
    expect(view.reveal(['search_files'])).toEqual([]);
    expect(view.carry()).toEqual({ core: true, found: ['search_files', 'web_fetch'] });
    expect(view.shown(['read_file', 'search_files', 'web_fetch', 'memory'], undefined)).toEqual([
      'read_file',
      'search_files',
      'web_fetch',
      'tool_search',
    ]);
  });
});
