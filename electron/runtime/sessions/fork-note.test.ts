/** The note at the head of a fork's history speaks of repositories by name and of times as people read them. */
import { describe, expect, it } from 'vitest';
import { forkHistoryNote, repoName, type ForkedRepo } from './fork-note.ts';

const MOVED_AT = new Date(2025, 11, 3, 14, 37, 26).getTime();
const repo = (over: Partial<ForkedRepo> = {}): ForkedRepo => ({
  relPath: '.',
  remoteUrl: '/srv/git/parser-app.git',
  branch: 'main-fork-1a2b3c4d',
  commit: '0123456789abcdef0123456789abcdef01234567',
  pushFailure: null,
  ...over,
});

describe("a fork's history note", () => {
  it('names the workspace repository by its remote, not "."', () => {
    const note = forkHistoryNote({ title: 'Fix the parser', sourceDeviceName: 'laptop', movedAt: MOVED_AT, repos: [repo()] });
    expect(note).toContain('The repository parser-app is on the new branch main-fork-1a2b3c4d, at commit 0123456, pushed.');
    expect(note).not.toMatch(/(^|\s)\. is on/);
  });

  it('says when the move was in words, with no ISO timestamp or ids', () => {
    const note = forkHistoryNote({ title: 'Fix the parser', sourceDeviceName: 'laptop', movedAt: MOVED_AT, repos: [repo()] });
    expect(note).toMatch(/^Forked from "Fix the parser" at its move from laptop on .*14:37\./);
    expect(note).not.toMatch(/\d{4}-\d\d-\d\dT/);
    expect(note).not.toMatch(/session [0-9a-f-]{8,}|handoff [0-9a-f-]{8,}/);
    expect(note).toMatch(/The original session is unchanged\.$/);
  });

  it('names each repository of a workspace by its folder, and says where a push failed', () => {
    const note = forkHistoryNote({
      title: 'Two repos',
      sourceDeviceName: null,
      movedAt: MOVED_AT,
      repos: [repo({ relPath: 'api' }), repo({ relPath: 'web', pushFailure: 'The remote refused the push.' })],
    });
    expect(note).toContain('at its move on');
    expect(note).toContain('The repository api is on the new branch');
    expect(note).toContain('The repository web is on the new branch main-fork-1a2b3c4d, at commit 0123456, not pushed (The remote refused');
    expect(note).toContain('push it before moving the fork.');
  });

  it('takes a name from any remote form, and falls back to "the repository"', () => {
    expect(repoName('.', 'git@github.com:team/app.git')).toBe('app');
    expect(repoName('.', 'https://example.com/team/app/')).toBe('app');
    expect(repoName('', 'C:\\repos\\tool.git')).toBe('tool');
    expect(repoName('libs/core', '/x/core.git')).toBe('libs/core');
    expect(repoName('.', null)).toBe('the repository');
  });
});
