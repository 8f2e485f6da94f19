import { describe, expect, it } from 'vitest';
import { sessionInputs as inputs } from './sessions.ts';

const start = { workspace: '/w/app', provider: 'claude-code', prompt: 'hi' };

describe('device API inputs for sessions', () => {
  it('takes a permission level at startSession only when it is one of the three', () => {
    for (const permission of ['ask', 'workspace', 'full'])
      expect(inputs.startSession.safeParse({ ...start, permission }).success).toBe(true);
    expect(inputs.startSession.safeParse(start).success).toBe(true);
    expect(inputs.startSession.safeParse({ ...start, permission: 'root' }).success).toBe(false);
  });

  it('adopts only a CLI session id, never a path', () => {
    const adopt = { workspace: '/w/app', provider: 'codex', sessionId: '01a22cf5-131a-7ba2-a9a7-86714565aa2e' };
    expect(inputs.adoptSession.safeParse(adopt).success).toBe(true);
    for (const sessionId of ['../../etc/passwd', 'a/b', '.hidden', ''])
      expect(inputs.adoptSession.safeParse({ ...adopt, sessionId }).success, sessionId).toBe(false);
    expect(inputs.adoptSession.safeParse({ ...adopt, permission: 'sudo' }).success).toBe(false);
  });

  it('lists existing sessions for a workspace and a provider, both required', () => {
    expect(inputs.listAgentSessions.safeParse({ workspace: '/w/app', provider: 'codex' }).success).toBe(true);
    expect(inputs.listAgentSessions.safeParse({ provider: 'codex' }).success).toBe(false);
    expect(inputs.listAgentSessions.safeParse({ workspace: '/w/app' }).success).toBe(false);
  });
});
