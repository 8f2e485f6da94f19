import { describe, expect, it } from 'vitest';
import type { TranscriptEntry } from '../../shared/agents.ts';
import type { ContinuationInput } from '../../shared/provider.ts';
import { CONTINUATION_PROMPT_MAX_BYTES, renderContinuationPrompt } from './continuation-prompt.ts';

function entries(count: number, text: (i: number) => string): TranscriptEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `e${i}`,
    at: i,
    role: i % 2 ? 'assistant' : 'user',
    agentId: 'main',
    text: text(i),
  }));
}

function input(overrides: Partial<ContinuationInput> = {}): ContinuationInput {
  return {
    sessionTitle: 'Fix the login race',
    sourceDeviceName: 'laptop',
    packet: {
      goal: 'Make login idempotent.',
      acceptanceCriteria: 'Two concurrent logins yield one session row.',
      currentState: 'Lock added in auth.ts; tests not yet written.',
      nextAction: 'Write the concurrency test in auth.test.ts.',
    },
    verifiedFacts: ['branch fix/login is at 1a2b3c4', 'merge base with main is 9f8e7d6'],
    driftWarnings: [{ code: 'head_moved', detail: 'HEAD is 2 commits past the packet' }],
    transcriptTail: entries(4, (i) => `message ${i}`),
    ...overrides,
  };
}

describe('renderContinuationPrompt', () => {
  it('says it is a continuation, of which session and from which device', () => {
    const prompt = renderContinuationPrompt(input());
    expect(prompt).toMatch(/^This is a continuation of the session "Fix the login race", which ran on the device "laptop"/);
  });

  it('tells another agent that it continues in the place of the one named, its memory being this summary', () => {
    const prompt = renderContinuationPrompt(input({ previousAgent: 'Claude Code' }));
    expect(prompt).toContain('Until now the session was run by another agent, Claude Code; you continue it in its place.');
    expect(prompt).toContain('beyond this summary');
    expect(renderContinuationPrompt(input())).not.toContain('another agent');
  });

  it('after a move, tells the agent where it now runs and that its memory is only this summary', () => {
    const moveNote = 'Baton: this session just moved from the device "laptop" to "desktop"; you now run on desktop.';
    const prompt = renderContinuationPrompt(input({ moveNote }));
    expect(prompt).toContain(moveNote);
    expect(prompt).toContain('Your memory of the earlier conversation is only this summary, not the conversation itself');
    expect(renderContinuationPrompt(input())).not.toContain('Your memory of the earlier conversation');
  });

  it('carries the packet, the verified facts, the drift report and the tail', () => {
    const prompt = renderContinuationPrompt(input());
    for (const text of [
      'Make login idempotent.',
      'Two concurrent logins yield one session row.',
      'Lock added in auth.ts',
      'Write the concurrency test',
      'branch fix/login is at 1a2b3c4',
      'head_moved: HEAD is 2 commits past the packet',
      '[user] message 0',
      '[assistant] message 3',
    ]) {
      expect(prompt).toContain(text);
    }
    expect(prompt.indexOf('message 0')).toBeLessThan(prompt.indexOf('message 3'));
  });

  it('stays within the bound by dropping the oldest transcript entries, never the packet', () => {
    const tail = entries(400, (i) => `entry ${i} ${'x'.repeat(300)}`);
    const prompt = renderContinuationPrompt(input({ transcriptTail: tail }));
    expect(Buffer.byteLength(prompt)).toBeLessThanOrEqual(CONTINUATION_PROMPT_MAX_BYTES);
    expect(prompt).toContain('entry 399');
    expect(prompt).not.toContain('entry 0 ');
    expect(prompt).toMatch(/\(\d+ earlier entries left out/);
    expect(prompt).toContain('Write the concurrency test in auth.test.ts.');
  });

  it('counts bytes, not characters, for multi-byte text', () => {
    const tail = entries(200, () => '日本語'.repeat(300));
    const prompt = renderContinuationPrompt(input({ transcriptTail: tail }), 8192);
    expect(Buffer.byteLength(prompt)).toBeLessThanOrEqual(8192);
    expect(prompt).toContain('日本語');
  });

  it('keeps within the bound even when the packet alone is too large', () => {
    const big = 'y'.repeat(20_000);
    const prompt = renderContinuationPrompt(input({ packet: { goal: big, acceptanceCriteria: '', currentState: '', nextAction: '' } }));
    expect(Buffer.byteLength(prompt)).toBeLessThanOrEqual(CONTINUATION_PROMPT_MAX_BYTES);
    expect(prompt).toContain('This is a continuation');
  });

  it('marks missing packet fields and an empty drift report plainly', () => {
    const prompt = renderContinuationPrompt(
      input({ packet: { goal: 'g', acceptanceCriteria: '', currentState: ' ', nextAction: 'n' }, driftWarnings: [], transcriptTail: [] }),
    );
    expect(prompt).toContain('## Acceptance criteria\n(not recorded)');
    expect(prompt).toContain('None: the workspace matches');
    expect(prompt).toContain('## Transcript tail (oldest first)\n(empty)');
  });
});
