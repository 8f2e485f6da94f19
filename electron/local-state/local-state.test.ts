import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { TranscriptEntry } from '../../shared/agents.ts';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolders } from '../../dev-env/temp-folders.ts';
import { LocalState, type LocalSession } from './local-state.ts';
import { noPermissions } from './session-permissions.ts';

const profile = tempFolders('baton-local-state-');

function session(id: string): LocalSession {
  return {
    id,
    title: 'Fix the parser',
    workspace: '/w/repo',
    repoPaths: ['/w/repo'],
    provider: 'demo',
    permission: 'workspace',
    repos: [{ relPath: '.', remoteUrl: '/o.git', branch: 'main' }],
    ownerDeviceId: 'dev-aaaaaaaaaaaaaaaa',
    generation: 1,
    inputBlock: null,
    providerResume: { turns: 2 },
    needsAttention: null,
    freshCloneOn: null,
    moveBlock: null,
    agents: [],
    eventCursor: 0,
    permissions: noPermissions(),
    providerChanges: [],
    createdAt: 1,
    updatedAt: 1,
  };
}

describe('LocalState', () => {
  it('keeps sessions and handoff progress across a restart on the same profile', async () => {
    const dir = profile();
    const first = new LocalState(dir);
    first.saveSession(session('s1'));
    first.updateSession('s1', (s) => {
      s.inputBlock = { code: 'quiescing', message: 'moving' };
    });
    first.ensureProgress('h1', 's1', 'source', 42);
    first.updateProgress('h1', (p) => {
      p.done.push('source-quiescing');
      p.checkpoint = { digest: 'ab', size: 3 };
    });
    await first.settled();

    const second = new LocalState(dir);
    expect(second.session('s1')?.inputBlock).toEqual({ code: 'quiescing', message: 'moving' });
    expect(second.session('s1')?.providerResume).toEqual({ turns: 2 });
    expect(second.progress('h1')).toMatchObject({
      role: 'source',
      done: ['source-quiescing'],
      checkpoint: { digest: 'ab', size: 3 },
      seenAt: 42,
    });
  });

  it('keeps a cache-only update (written without fsync) readable after reopening', async () => {
    const dir = profile();
    const state = new LocalState(dir);
    state.saveSession(session('s1'));
    state.updateSession(
      's1',
      (s) => {
        s.eventCursor = 9;
      },
      false,
    );
    await state.settled(true);
    expect(new LocalState(dir).session('s1')?.eventCursor).toBe(9);
  });

  it('does not recreate progress that already exists', () => {
    const state = new LocalState(profile());
    state.ensureProgress('h1', 's1', 'target', 1);
    state.updateProgress('h1', (p) => {
      p.done.push('requested');
    });
    expect(state.ensureProgress('h1', 's1', 'target', 99)).toMatchObject({ done: ['requested'], seenAt: 1 });
  });

  it('ignores a leftover temp file and an unreadable record instead of failing to start', async () => {
    const dir = profile();
    const first = new LocalState(dir);
    first.saveSession(session('s1'));
    await first.settled();
    const sessions = join(dir, 'runtime', 'sessions');
    writeFileSync(join(sessions, 's2.json.123.tmp'), '{"half');
    writeFileSync(join(sessions, 's3.json'), 'not json');
    const reopened = new LocalState(dir);
    expect(reopened.listSessions().map((s) => s.id)).toEqual(['s1']);
    expect(readdirSync(sessions).some((n) => n.endsWith('.tmp'))).toBe(false);
  });

  it('refuses a record id that could escape its folder', () => {
    const state = new LocalState(profile());
    expect(() => state.saveSession(session('../evil'))).toThrow(/invalid record id/);
  });

  it('hands out copies so a caller cannot change stored state without saving', () => {
    const state = new LocalState(profile());
    state.saveSession(session('s1'));
    const copy = state.session('s1')!;
    copy.generation = 7;
    expect(state.session('s1')?.generation).toBe(1);
  });

  it("keeps a session's transcript as its own log, one line per entry, apart from its small record", async () => {
    const dir = profile();
    const state = new LocalState(dir);
    state.saveSession(session('s1'));
    const entries = Array.from({ length: 3000 }, (_, i) => entry(i));
    state.appendTranscript('s1', entries.slice(0, 2999));
    state.appendTranscript('s1', [entries[2999]!], true);
    await state.settled(true);
    const log = readFileSync(join(dir, 'runtime', 'transcripts', 's1.jsonl'), 'utf8');
    expect(log.split('\n')).toHaveLength(3001);
    // The record does not grow with the transcript.
    await state.close();
    expect(statSync(join(dir, 'runtime', 'sessions', 's1.json')).size).toBeLessThan(1000);
    expect(state.transcriptBytes('s1')).toBe(Buffer.byteLength(log));

    const reopened = new LocalState(dir);
    expect(reopened.transcriptPage('s1', 0, Infinity)).toEqual(entries);
    // A merge replaces the log, rewritten line by line; entries appended meanwhile follow it.
    const merged = [entry(-1), ...entries.slice(0, 10)];
    const rewriting = reopened.rewriteTranscript('s1', replacedBy(merged));
    reopened.appendTranscript('s1', [entry(5000)]);
    await rewriting;
    await reopened.settled(true);
    expect(new LocalState(dir).transcriptPage('s1', 0, Infinity)).toEqual([...merged, entry(5000)]);
  });

  it("appends a Move's merge that only adds entries after the lines on disk, and rewrites one that changes them", async () => {
    const dir = profile();
    const file = join(dir, 'runtime', 'transcripts', 's1.jsonl');
    const state = new LocalState(dir);
    state.saveSession(session('s1'));
    state.appendTranscript('s1', [entry(1), entry(2)], true);
    await state.settled();
    const inode = statSync(file).ino;
    // The checkpoint's own copies of the entries (equal, not the same objects), then the source's new turn.
    await state.rewriteTranscript('s1', replacedBy([{ ...entry(1) }, { ...entry(2) }, entry(3), entry(4)]));
    await state.settled();
    // Appended to the same file (no temp file renamed over it), so only the new lines' fsync is waited for.
    expect(statSync(file).ino).toBe(inode);
    expect(new LocalState(dir).transcriptPage('s1', 0, Infinity)).toEqual([entry(1), entry(2), entry(3), entry(4)]);
    expect(state.transcriptBytes('s1')).toBe(statSync(file).size);
    // An entry placed before the lines on disk: the log is rewritten.
    await state.rewriteTranscript('s1', replacedBy([entry(0), entry(1), entry(2), entry(3), entry(4)]));
    await state.settled();
    expect(statSync(file).ino).not.toBe(inode);
    expect(new LocalState(dir).transcriptPage('s1', 0, Infinity)).toEqual([entry(0), entry(1), entry(2), entry(3), entry(4)]);
    // A written entry whose content changed is rewritten too, not appended after.
    await state.rewriteTranscript('s1', replacedBy([entry(0), { ...entry(1), text: 'edited' }, entry(2)]));
    await state.settled();
    expect(new LocalState(dir).transcriptPage('s1', 0, Infinity)).toEqual([entry(0), { ...entry(1), text: 'edited' }, entry(2)]);
  });

  it('drops a last line cut short by a crash, and appends after it cleanly', async () => {
    const dir = profile();
    const state = new LocalState(dir);
    state.saveSession(session('s1'));
    state.appendTranscript('s1', [entry(1), entry(2)], true);
    await state.settled();
    appendFileSync(join(dir, 'runtime', 'transcripts', 's1.jsonl'), '{"id":"e3","at":3,"ro');
    const reopened = new LocalState(dir);
    expect(reopened.transcriptPage('s1', 0, Infinity)).toEqual([entry(1), entry(2)]);
    reopened.appendTranscript('s1', [entry(4)], true);
    await reopened.settled();
    expect(new LocalState(dir).transcriptPage('s1', 0, Infinity)).toEqual([entry(1), entry(2), entry(4)]);
  });

  it('moves a transcript held inline in a record of the earlier format into its log, once', async () => {
    const dir = profile();
    const sessions = join(dir, 'runtime', 'sessions');
    mkdirSync(sessions, { recursive: true });
    const inline = [entry(1), entry(2), entry(3)];
    writeFileSync(join(sessions, 's1.json'), JSON.stringify({ ...session('s1'), transcript: inline }));
    const migrated = new LocalState(dir);
    expect(migrated.session('s1')?.title).toBe('Fix the parser');
    expect(migrated.transcriptPage('s1', 0, Infinity)).toEqual(inline);
    expect(JSON.parse(readFileSync(join(sessions, 's1.json'), 'utf8'))).not.toHaveProperty('transcript');
    expect(existsSync(join(dir, 'runtime', 'transcripts', 's1.jsonl'))).toBe(true);
    migrated.appendTranscript('s1', [entry(4)], true);
    await migrated.settled();
    expect(new LocalState(dir).transcriptPage('s1', 0, Infinity)).toEqual([...inline, entry(4)]);
  });
});

/** A rewrite whose result is `entries`, whatever the log held. */
function replacedBy(entries: TranscriptEntry[]) {
  return async function* (): AsyncGenerator<TranscriptEntry> {
    yield* entries;
  };
}

function entry(i: number): TranscriptEntry {
  return { id: `e${i}`, at: i, role: i % 2 === 0 ? 'user' : 'assistant', agentId: 'main', text: `entry ${i}\nsecond line` };
}
