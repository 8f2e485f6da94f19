import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolders } from '../../dev-env/temp-folders.ts';
import { ok } from '../../shared/errors.ts';
import { afterLocalWrites } from './durable-backend.ts';
import { LocalState } from './local-state.ts';
import { JOURNAL_NAME, readJournal } from './record-journal.ts';
import type { BackendPort } from '../ports/backend.ts';

const profile = tempFolders('baton-durable-backend-');

/** The progress record `id` as a restart would read it from disk: its folder's journal first, else its file. */
function progressOnDisk(dir: string, id: string): string {
  const folder = join(dir, 'runtime', 'handoffs');
  const journaled = readJournal(join(folder, JOURNAL_NAME)).records.get(id);
  if (journaled) return journaled.json;
  const file = join(folder, `${id}.json`);
  return existsSync(file) ? readFileSync(file, 'utf8') : 'nothing on disk';
}

/** A backend port that records, at each call, what the device's progress record held on disk. */
function recordingBackend(dir: string, seen: string[]): BackendPort {
  const look = (name: string) => seen.push(`${name}: ${progressOnDisk(dir, 'h1')}`);
  const unused = () => Promise.reject(new Error('not used here'));
  return {
    listDevices: unused,
    heartbeat: unused,
    createSession: unused,
    getSession: unused,
    listSessions: unused,
    updateSessionMeta: unused,
    appendEvent: unused,
    createHandoff: unused,
    listHandoffs: unused,
    getBlob: unused,
    getBlobTo: unused,
    listJoinRequests: unused,
    blobLimit: unused,
    listEvents: unused,
    postAnswer: unused,
    listAnswers: unused,
    getHandoff: async () => {
      look('getHandoff');
      return ok({} as never);
    },
    transition: async () => {
      look('transition');
      return ok({} as never);
    },
    putBlob: async () => {
      look('putBlob');
      return ok({ digest: 'd', size: 1 });
    },
    putBlobFile: async () => {
      look('putBlobFile');
      return ok({ digest: 'd', size: 1 });
    },
  };
}

describe('afterLocalWrites', () => {
  it('sends a transition only once the progress it relies on is on disk', async () => {
    const dir = profile();
    const state = new LocalState(dir);
    const seen: string[] = [];
    const backend = afterLocalWrites(recordingBackend(dir, seen), state);
    state.ensureProgress('h1', 's1', 'source', 1);
    state.updateProgress('h1', (p) => {
      p.checkpoint = { digest: 'abc', size: 3 };
    });
    await backend.transition('h1', { from: 'source-quiescing', to: 'checkpointed', role: 'source', generation: 1 } as never, 'k');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain('"digest":"abc"');
  });

  it('lets reads and blob uploads through without waiting for writes', async () => {
    const dir = profile();
    const seen: string[] = [];
    // Writes that never reach the disk: a call that waited for them would never be made.
    let waits = 0;
    const stuck = {
      settled: () => {
        waits += 1;
        return new Promise<void>(() => undefined);
      },
    };
    const backend = afterLocalWrites(recordingBackend(dir, seen), stuck);
    await backend.getHandoff('h1');
    // A body means nothing until a record names it (and the transition that does waits).
    await backend.putBlob('d', new Uint8Array([1]));
    await backend.putBlobFile({ path: '/nowhere', size: 1, sha256: 'd' });
    const sent = ['getHandoff: nothing on disk', 'putBlob: nothing on disk', 'putBlobFile: nothing on disk'];
    expect(seen).toEqual(sent);
    expect(waits).toBe(0);
    void backend.transition('h1', { from: 'source-quiescing', to: 'checkpointed', role: 'source', generation: 1 } as never, 'k');
    expect(waits).toBe(1);
    expect(seen).toEqual(sent);
  });

  it('refuses a changing call with local_state_unwritable when the record could not be written, sending nothing', async () => {
    const dir = profile();
    const state = new LocalState(dir);
    const seen: string[] = [];
    const backend = afterLocalWrites(recordingBackend(dir, seen), state);
    state.ensureProgress('h1', 's1', 'source', 1);
    rmSync(join(dir, 'runtime'), { recursive: true, force: true });
    const result = await backend.transition('h1', { from: 'source-quiescing', to: 'checkpointed', generation: 1 } as never, 'k');
    expect(result).toMatchObject({ ok: false, code: 'local_state_unwritable' });
    expect(seen).toEqual([]);
  });
});
