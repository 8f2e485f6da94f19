import { describe, expect, it } from 'vitest';
import { enrollmentField, enrollmentWords, newSessionField, newSessionWords, plainMessage } from './error-words.ts';

describe('refusals in words', () => {
  it('never shows a Node internal: a refused connection says what to check', () => {
    const said = plainMessage({ message: 'fetch failed: connect ECONNREFUSED 127.0.0.1:9' });
    expect(said).toBe('Nothing answered at that address: check it, and that the backend is running there.');
    expect(plainMessage({ message: 'getaddrinfo ENOTFOUND nowhere.example' })).toMatch(/host name could not be found/);
  });

  it('makes a device sentence a sentence', () => {
    expect(plainMessage({ message: 'the inviting device refused the join' })).toBe('The inviting device refused the join.');
  });

  it('tells an expired, a used, a cut-short and a foreign invite apart, each saying where to get a new one', () => {
    const said = ['invite_expired', 'invite_used', 'invite_truncated', 'invite_invalid'].map((code) =>
      enrollmentWords({ code, message: 'x' }),
    );
    expect(new Set(said).size).toBe(4);
    for (const words of said) expect(words).toContain('Devices → Add a device');
    expect(enrollmentField({ code: 'invite_expired', message: 'x' })).toBe('invite');
  });

  it('puts a network failure of set-up on the backend address field', () => {
    expect(enrollmentField({ code: 'internal', message: 'fetch failed: connect ECONNREFUSED' })).toBe('backend');
  });

  it('puts a folder that is no repository on the Workspace field, with a git init hint', () => {
    const refused = { code: 'not_a_repository', message: '/home/me/notes holds no git repository.' };
    expect(newSessionField(refused)).toBe('workspace');
    expect(newSessionWords(refused)).toContain('git init');
  });
});
