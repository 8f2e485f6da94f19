import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitSandbox, type GitSandbox } from '../dev-env/git-sandbox.ts';
import { UsageError } from './command.ts';
import { parseVerification } from './packet-command.ts';

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../bin/baton.js');
let sandbox: GitSandbox;
let repo: string;

beforeAll(() => {
  sandbox = createGitSandbox('baton-packet-cli-');
  repo = sandbox.clone(sandbox.makeOrigin('app'), 'repo');
  sandbox.branchWithUpstream(repo, 'fix/cli');
});
afterAll(() => sandbox.cleanup());

async function baton(args: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  try {
    const { stdout } = await run(process.execPath, [BIN, ...args], { env: sandbox.env });
    return { code: 0, json: JSON.parse(stdout) };
  } catch (error) {
    const e = error as { code: number; stdout: string };
    return { code: e.code, json: JSON.parse(e.stdout) };
  }
}

describe('baton packet', () => {
  it('reads --verification as "claim::probe" or JSON rows', () => {
    expect(parseVerification(['tests pass::npm test', '[{"claim":"a","probe":"b::c"}]', '{"claim":"d","probe":"e"}'])).toEqual([
      { claim: 'tests pass', probe: 'npm test' },
      { claim: 'a', probe: 'b::c' },
      { claim: 'd', probe: 'e' },
    ]);
    expect(() => parseVerification(['no separator'])).toThrow(UsageError);
    expect(() => parseVerification(['[{"claim":1}]'])).toThrow(UsageError);
  });

  it('creates and resumes a packet from flags, printing the result JSON', async () => {
    const created = await baton([
      'packet',
      'create',
      '--root',
      repo,
      '--goal',
      'Fix the CLI',
      '--next-action',
      'Test it',
      '--verification',
      'lint::npm run lint',
      '--provider',
      'codex',
    ]);
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({
      ok: true,
      slug: 'fix-cli',
      packet: {
        verified: { provider: 'codex', branch: 'fix/cli' },
        asserted: { goal: 'Fix the CLI', verification: [{ claim: 'lint', probe: 'npm run lint', result: 'not run' }] },
      },
    });
    const resumed = await baton(['packet', 'resume', '--root', repo]);
    expect(resumed).toMatchObject({ code: 0, json: { ok: true, slug: 'fix-cli', warnings: [], asserted: { next_action: 'Test it' } } });
  });

  it('exits 1 with the refusal JSON when refused', async () => {
    const refused = await baton(['packet', 'resume', '--root', repo, '--slug', '.hidden']);
    expect(refused).toMatchObject({ code: 1, json: { ok: false, reason: 'invalid_slug' } });
  });
});
