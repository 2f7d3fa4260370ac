// Default workflow ids and Web UI summaries say what a conversation is about (pure, no server).
import { describe, expect, it } from 'vitest';
import { staticSummaryOf } from '../src/client';
import { newConversationId, slugOf } from '../src/shared/ids';

describe('default workflow ids', () => {
  it('carry a slug of the prompt and a random suffix', () => {
    expect(slugOf('Create notes.txt with three lines')).toBe('create-notes-txt-with-three');
    expect(newConversationId('Create notes.txt', 'task', () => 0.5)).toBe('hermes-create-notes-txt-iiiiii');
    expect(slugOf('Résumé: café über alles')).toBe('resume-cafe-uber-alles');
    // At most 32 characters, cut at a word.
    expect(slugOf('supercalifragilisticexpialidocious words here')).toBe('supercalifragilisticexpialidocio');
    expect(slugOf('refactor the authentication middleware module')).toBe('refactor-the-authentication');
  });

  it('fall back to the mode when the prompt has no ASCII words', () => {
    expect(newConversationId('', 'chat', () => 0)).toBe('hermes-chat-000000');
    expect(newConversationId('日本語のタスク', undefined, () => 0)).toBe('hermes-task-000000');
  });

  it('differ between two conversations with the same prompt', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newConversationId('same prompt')));
    expect(ids.size).toBe(1000);
  });
});

describe('Web UI summaries', () => {
  it('are the task, or a chat and its first message', () => {
    expect(staticSummaryOf(undefined, 'fix the tests\nthen commit')).toBe('fix the tests');
    expect(staticSummaryOf('chat', 'hello there')).toBe('chat: hello there');
    expect(staticSummaryOf('chat', '')).toBe('chat (no message yet)');
  });
});
