/**
 * What a CLI session refuses to import, in the same words for Claude Code and Codex (turn-session.ts
 * `importableId`): another provider's data, a format it does not read, data naming no session, and
 * anything once the session was stopped. Each is refused before the CLI or its files are touched.
 */
import { describe, expect, it } from 'vitest';
import type { ResumeData } from '../../shared/provider.ts';
import { ClaudeCodeSession } from './claude-code/claude-code-session.ts';
import { CLAUDE_FORMAT } from './claude-code/session-export.ts';
import { CodexSession } from './codex/codex-session.ts';
import { CODEX_FORMAT } from './codex/rollout.ts';

const cases = [
  { name: 'Claude Code', make: () => new ClaudeCodeSession({ env: {} }), data: { provider: 'claude-code', format: CLAUDE_FORMAT } },
  { name: 'Codex', make: () => new CodexSession({ env: {} }), data: { provider: 'codex', format: CODEX_FORMAT } },
] as const;

describe.each(cases)('$name refuses an import it cannot take', ({ name, make, data }) => {
  const importing = (changed: Partial<ResumeData>) =>
    make().resumeFromImport({ ...data, sessionId: 'session-1', payload: null, ...changed }, '/nowhere');

  it('another provider’s data, a format it does not read, and data naming no session', async () => {
    const other = data.provider === 'codex' ? 'claude-code' : 'codex';
    expect(await importing({ provider: other })).toEqual({
      ok: false,
      code: 'import_check_failed',
      message: `${name} cannot import "${other}" data of format "${data.format}".`,
    });
    expect(await importing({ format: 'other/format@9' })).toEqual({
      ok: false,
      code: 'import_check_failed',
      message: `${name} cannot import "${data.provider}" data of format "other/format@9".`,
    });
    expect(await importing({ sessionId: null })).toMatchObject({ ok: false, code: 'import_check_failed' });
  });

  it('anything once it was stopped', async () => {
    const session = make();
    await session.stop();
    const imported = await session.resumeFromImport({ ...data, sessionId: 'session-1', payload: null }, '/nowhere');
    expect(imported).toEqual({ ok: false, code: 'stopped', message: `${name} was stopped.` });
  });
});
