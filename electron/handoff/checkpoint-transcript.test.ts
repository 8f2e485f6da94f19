import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolders } from '../../dev-env/temp-folders.ts';
import type { TranscriptEntry } from '../../shared/agents.ts';
import { NEWEST_ENTRIES, writeTranscriptFile } from './checkpoint-transcript.ts';

const tempFolder = tempFolders('baton-checkpoint-transcript-');
function scratch(): string {
  return join(tempFolder(), 'transcript');
}

const entry = (i: number): TranscriptEntry => ({
  id: `e${i}`,
  at: i,
  role: i % 2 ? 'assistant' : 'user',
  agentId: 'main',
  text: `entry ${i}`,
});
async function* stream(count: number): AsyncGenerator<TranscriptEntry> {
  for (let i = 0; i < count; i++) yield entry(i);
}
async function all(entries: AsyncIterable<TranscriptEntry>): Promise<TranscriptEntry[]> {
  const out: TranscriptEntry[] = [];
  for await (const e of entries) out.push(e);
  return out;
}

describe('writeTranscriptFile', () => {
  it('holds a transcript of up to NEWEST_ENTRIES entries in memory and makes no file', async () => {
    const path = scratch();
    const transcript = await writeTranscriptFile(path, stream(NEWEST_ENTRIES));
    expect(existsSync(path)).toBe(false);
    expect(transcript.count).toBe(NEWEST_ENTRIES);
    expect(await all(transcript.entries())).toEqual(Array.from({ length: NEWEST_ENTRIES }, (_, i) => entry(i)));
  });

  it('writes a longer one to its file, every entry in order, the newest kept at hand', async () => {
    const path = scratch();
    const count = NEWEST_ENTRIES + 50;
    const transcript = await writeTranscriptFile(path, stream(count));
    expect(existsSync(path)).toBe(true);
    expect(transcript.count).toBe(count);
    expect(transcript.newest.map((e) => e.id)).toEqual(Array.from({ length: NEWEST_ENTRIES }, (_, i) => `e${i + 50}`));
    expect(await all(transcript.entries())).toEqual(Array.from({ length: count }, (_, i) => entry(i)));
  });
});
