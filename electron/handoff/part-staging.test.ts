/**
 * The provider-part staging of a received checkpoint (part-staging.ts through receiveCheckpoint):
 * really sealed with the envelope, a Claude transcript is rewritten into the private staging folder
 * as it is unsealed — and when the body's tag fails (one byte of the second half of the Claude part
 * flipped, its digest made to match so the tag is what refuses it) the staging folder is removed and
 * nothing reaches Claude's projects folder. The backend is a file read in chunks: a real backend
 * stores bodies by their digest, so it could not hand out a tampered one under a matching digest (the
 * two-device tamper test covers that path).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeLine, sealedClaudeCheckpoint } from '../../dev-env/sealed-checkpoint.ts';

let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'baton-part-staging-')));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('staging a Claude part as the checkpoint is unsealed', () => {
  it('rewrites the transcript for the target in staging; a tag that fails removes the staging folder and writes nothing to Claude', async () => {
    // A Claude session of about 2 MiB: the part is nearly all of the body.
    const transcript = (path: string, cwd: string) =>
      writeFile(path, `${Array.from({ length: 2000 }, (_, i) => claudeLine(i, cwd, 'word '.repeat(200))).join('\n')}\n`);
    const { receive, sealed, stagedFiles, target, targetEnv } = await sealedClaudeCheckpoint(root, { sideFiles: 0, transcript });
    const staging = join(root, 'staging');
    const intact = await receive(staging);
    if (!intact.ok) throw new Error(intact.message);
    expect(stagedFiles).toEqual(['transcript']);
    const staged = intact.value.checkpoint.providerResume!.files![0]!.path;
    expect((await readFile(staged, 'utf8')).split('\n')[0]).toContain(`"cwd":${JSON.stringify(target)}`);
    expect(existsSync(`${staged}.staged.json`)).toBe(true);

    const tampered = await readFile(sealed.path);
    // In the second half of the Claude part.
    tampered[Math.floor(tampered.length * 0.75)]! ^= 0x01;
    const refused = await receive(staging, tampered);
    expect(refused).toMatchObject({ ok: false, code: 'checkpoint_rejected' });
    expect(stagedFiles).toEqual(['transcript', 'transcript']);
    expect(existsSync(staging)).toBe(false);
    expect(await readdir(targetEnv.CLAUDE_CONFIG_DIR).catch(() => [])).toEqual([]);
  });
});
