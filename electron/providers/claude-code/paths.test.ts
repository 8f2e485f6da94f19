import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeConfigDir, findSessionFiles, isSafeSessionId, projectSlug, sessionFiles } from './paths.ts';

describe('Claude transcript paths', () => {
  it('makes the slug Claude makes: every UTF-16 unit outside [A-Za-z0-9] as "-"', () => {
    expect(projectSlug('/Users/steve/Develop/slopus/happy-cli')).toBe('-Users-steve-Develop-slopus-happy-cli');
    expect(projectSlug('/home/a b/x_y.z')).toBe('-home-a-b-x-y-z');
    expect(projectSlug('/tmp/réal dir/ü😀x')).toBe('-tmp-r-al-dir----x');
  });

  it('cuts a slug over 200 characters to 200 and appends the base-36 Java hash of the cwd (values from the 2.1 bundle rule)', () => {
    const exactly200 = `/p/${'x'.repeat(197)}`;
    expect(projectSlug(exactly200)).toBe(`-p-${'x'.repeat(197)}`);
    expect(projectSlug(`/p/${'x'.repeat(198)}`)).toBe(`-p-${'x'.repeat(197)}-kzs5si`);
    const deep = `/work/${'deep/'.repeat(60)}ws`;
    expect(projectSlug(deep)).toBe(`${deep.replace(/[^A-Za-z0-9]/g, '-').slice(0, 200)}-co7nhx`);
    expect(projectSlug(deep)).toHaveLength(207);
  });

  it('finds a session under any project folder when the workspace slug folder does not hold it', async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'baton-paths-')));
    try {
      const env = { CLAUDE_CONFIG_DIR: join(dir, 'cfg') };
      expect(await findSessionFiles(env, dir, 's1')).toBeNull();
      await mkdir(join(dir, 'cfg', 'projects', 'whatever-name'), { recursive: true });
      await writeFile(join(dir, 'cfg', 'projects', 'whatever-name', 's1.jsonl'), '{}\n');
      expect(await findSessionFiles(env, dir, 's1')).toMatchObject({
        cwd: dir,
        transcript: join(dir, 'cfg', 'projects', 'whatever-name', 's1.jsonl'),
        sideFolder: join(dir, 'cfg', 'projects', 'whatever-name', 's1'),
      });
      const own = await sessionFiles(env, dir, 's1');
      await mkdir(own.projectDir, { recursive: true });
      await writeFile(own.transcript, '{}\n');
      expect((await findSessionFiles(env, dir, 's1'))?.transcript).toBe(own.transcript);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
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
