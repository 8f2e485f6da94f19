import { describe, expect, it } from 'vitest';
import { agentParts, continuationAgent, PROVIDER_CHANGES_MAX, withProviderChange, type ProviderChange } from './agent-switch.ts';

const change = (from: string, to: string, afterEntryId: string | null, at = 1): ProviderChange => ({
  from,
  to,
  at,
  afterEntryId,
  deviceId: 'desk',
  handoffId: null,
});
const entries = ['e1', 'e2', 'e3', 'e4'].map((id) => ({ id }));

describe('the agent a device continues a session with', () => {
  it("is none when the device has the session's agent, else the first real agent it has (never the demo agent)", () => {
    expect(continuationAgent(['demo', 'claude-code', 'codex'], 'claude-code')).toBeNull();
    expect(continuationAgent(['demo', 'command', 'codex'], 'claude-code')).toBe('codex');
    expect(continuationAgent(['demo', 'claude-code'], 'codex')).toBe('claude-code');
    expect(continuationAgent(['demo'], 'codex')).toBeNull();
  });
});

describe("the agents' parts of a history", () => {
  it("is one part of the session's agent when it never changed", () => {
    expect(agentParts(entries, [], 'codex')).toEqual([{ provider: 'codex', from: 0, change: null }]);
  });

  it("begins a part after each change's last entry of the earlier agent", () => {
    const changes = [change('claude-code', 'codex', 'e1'), change('codex', 'claude-code', 'e3')];
    expect(agentParts(entries, changes, 'claude-code').map(({ provider, from }) => [provider, from])).toEqual([
      ['claude-code', 0],
      ['codex', 1],
      ['claude-code', 3],
    ]);
  });

  it('starts the window with the newer agent when the change is before it, and lets the later of two changes at one spot win', () => {
    const early = [change('claude-code', 'codex', 'e0-not-in-window')];
    expect(agentParts(entries, early, 'codex').map((p) => [p.provider, p.from])).toEqual([['codex', 0]]);
    const twice = [change('claude-code', 'codex', 'e2'), change('codex', 'command', 'e2')];
    expect(agentParts(entries, twice, 'command').map((p) => [p.provider, p.from])).toEqual([
      ['claude-code', 0],
      ['command', 2],
    ]);
  });

  it('keeps at most the newest changes', () => {
    let all: ProviderChange[] = [];
    for (let i = 0; i < PROVIDER_CHANGES_MAX + 5; i += 1) all = withProviderChange(all, change('a', 'b', null, i));
    expect(all).toHaveLength(PROVIDER_CHANGES_MAX);
    expect(all[0]?.at).toBe(5);
  });
});
