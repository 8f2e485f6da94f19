import { mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeConfigDir, isSafeSessionId, projectSlug, sessionFiles } from './paths.ts';

describe('Claude transcript paths', () => {
  it('makes the slug Claude made for the fixture session (task_sdk.jsonl reads its own transcript there)', () => {
    expect(projectSlug('/Users/steve/Develop/slopus/happy-cli')).toBe('-Users-steve-Develop-slopus-happy-cli');
    expect(projectSlug('/home/a b/x_y.z')).toBe('-home-a-b-x-y-z');
  });

  it('uses CLAUDE_CONFIG_DIR when set, else ~/.claude', () => {
    expect(claudeConfigDir({ CLAUDE_CONFIG_DIR: '/cfg', HOME: '/h' })).toBe('/cfg');
    expect(claudeConfigDir({ HOME: '/h' })).toBe('/h/.claude');
  });

  it('resolves the workspace through symlinks before making the slug', async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'baton-paths-')));
    try {
      await symlink(dir, join(dir, 'link'));
      const files = await sessionFiles({ CLAUDE_CONFIG_DIR: '/cfg' }, join(dir, 'link'), 's1');
      expect(files.cwd).toBe(dir);
      expect(files.transcript).toBe(join('/cfg/projects', projectSlug(dir), 's1.jsonl'));
      expect(files.sideFolder).toBe(join('/cfg/projects', projectSlug(dir), 's1'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('accepts UUID-like session ids only', () => {
    expect(isSafeSessionId('1bf1ead3-1c75-46a4-8d6b-5ab1af247819')).toBe(true);
    expect(isSafeSessionId('../etc/passwd')).toBe(false);
    expect(isSafeSessionId('')).toBe(false);
  });
});
