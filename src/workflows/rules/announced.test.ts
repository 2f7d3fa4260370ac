import { describe, expect, it } from 'vitest';
import { announcesAction } from './announced';

describe('announcesAction', () => {
  it.each([
    'I will call a tool to count the lines of data.csv.',
    "I'll use the terminal to run the tests.",
    'Let me check the file first.',
    'Okay, now I will write the file.',
    'The directory is empty. Next, I will create notes.txt.',
    "I'm going to list the directory:",
    'Now I need to run the script.',
  ])('announces: %s', (text) => {
    expect(announcesAction(text)).toBe(true);
  });

  it.each([
    'The file has 3 lines.',
    'I wrote notes.txt and read it back: it says hello.',
    'Done. I will not change anything else.',
    'There are 4 files containing "error".',
    '',
    null,
    `I will call a tool. ${'The rest is a long answer that explains what was done in detail. '.repeat(6)}`,
    'I checked the output: all tests pass.',
    'I could not run the command: permission denied.',
  ])('does not announce: %s', (text) => {
    expect(announcesAction(text)).toBe(false);
  });
});
