/** The note the agent reads after a move: where it now runs, and only what differs, never a remote's URL. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cloneRemoteUrl, moveNote, remoteForm, type MoveFacts } from './move-note.ts';

const facts = (over: Partial<MoveFacts> = {}): MoveFacts => ({
  from: { name: 'laptop', platform: 'linux', workspace: '/home/ann/work/app', cliVersion: '2.1.0' },
  to: { name: 'desktop', platform: 'linux', workspace: '/Users/ann/src/app', cliVersion: '2.1.0' },
  cliLabel: 'Claude Code',
  remotes: [{ relPath: '.', source: 'https://github.com/ann/app.git', target: 'https://github.com/ann/app.git' }],
  ...over,
});

describe('the move note', () => {
  it('says from which device to which and the new workspace path, with the old one', () => {
    const note = moveNote(facts());
    expect(note).toContain('Baton: this session just moved from the device "laptop" to "desktop"; you now run on desktop.');
    expect(note).toContain('Your workspace is now /Users/ann/src/app (it was /home/ann/work/app on laptop).');
    expect(note).not.toContain('What differs here');
  });

  it('names what differs: the operating system, the CLI version, the form of a remote URL', () => {
    const note = moveNote(
      facts({
        to: { name: 'desktop', platform: 'darwin', workspace: '/Users/ann/src/app', cliVersion: '2.2.5' },
        remotes: [{ relPath: 'lib', source: 'https://ann:tok3n@github.com/ann/lib.git', target: 'git@github.com:ann/lib.git' }],
      }),
    );
    expect(note).toContain('the operating system is macOS (laptop: Linux)');
    expect(note).toContain('Claude Code is version 2.2.5 (laptop: 2.1.0)');
    expect(note).toContain('the git remote of the repository lib is an SSH URL (laptop: an HTTPS URL)');
    // Never the URL itself: it can carry credentials.
    expect(note).not.toContain('tok3n');
    expect(note).not.toContain('github.com');
  });

  it('leaves out what it does not know (an older checkpoint)', () => {
    const note = moveNote(facts({ from: { name: null, platform: null, workspace: null, cliVersion: null } }));
    expect(note).toContain('from the device "another device" to "desktop"');
    expect(note).toContain('Your workspace is now /Users/ann/src/app.');
    expect(note).not.toContain('What differs here');
  });

  it('says the uncommitted changes came along, still uncommitted, with what they hold and where the source keeps its copy', () => {
    const note = moveNote(facts({ carried: { changed: 3, added: 1, deleted: 0, commits: 2, repos: ['.'] } }));
    expect(note).toContain(
      'The uncommitted changes came along, still uncommitted (3 changed files, 1 new file, 2 unpushed commits); what was staged is staged. laptop keeps its copy in a stash.',
    );
    expect(moveNote(facts())).not.toContain('uncommitted');
  });

  it('tells URL forms apart', () => {
    expect(remoteForm('git@github.com:a/b.git')).toBe('an SSH URL');
    expect(remoteForm('ssh://git@host:22/a/b')).toBe('an SSH URL');
    expect(remoteForm('https://host/a/b')).toBe('an HTTPS URL');
    expect(remoteForm('/srv/git/b.git')).toBe('a local path');
  });

  it("reads a clone's remote URL for its branch from its own config", () => {
    const repo = mkdtempSync(join(tmpdir(), 'baton-move-note-'));
    try {
      execFileSync('git', ['init', '-q', '-b', 'main', repo]);
      execFileSync('git', ['-C', repo, 'remote', 'add', 'origin', 'git@example.com:ann/app.git']);
      expect(cloneRemoteUrl(repo, 'main')).toBe('git@example.com:ann/app.git');
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });
});
