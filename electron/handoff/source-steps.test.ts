import { describe, expect, it } from 'vitest';
import { tempFolders } from '../../dev-env/temp-folders.ts';
import { DemoAgent } from '../providers/demo-agent.ts';
import { BACKEND_STALL_MS, targetTimeout } from './source-steps.ts';
import { settleTurn } from './turn-settle.ts';

const tempFolder = tempFolders('baton-settle-');

async function agentInTurn(turnMs: number): Promise<DemoAgent> {
  const workspace = tempFolder();
  const agent = new DemoAgent({ turnMs });
  await agent.start(workspace, 'hello');
  return agent;
}

describe('settling the provider turn before the checkpoint', () => {
  it('returns at once when no turn runs', async () => {
    const agent = new DemoAgent();
    expect(await settleTurn(agent, 1000)).toBe('idle');
  });

  it('waits for a turn that ends within the bound', async () => {
    const agent = await agentInTurn(150);
    const started = Date.now();
    expect(await settleTurn(agent, 5000)).toBe('ended');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(agent.isTurnActive()).toBe(false);
    expect(agent.snapshot().transcript.some((e) => e.role === 'assistant')).toBe(true);
    await agent.stop();
  });

  it('interrupts a turn that outlasts the bound', async () => {
    const agent = await agentInTurn(10_000);
    const started = Date.now();
    expect(await settleTurn(agent, 200)).toBe('interrupted');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(agent.isTurnActive()).toBe(false);
    expect(agent.snapshot().agents.some((a) => a.status === 'interrupted')).toBe(true);
    await agent.stop();
  });
});

describe('the reason a move times out waiting for the target', () => {
  it('names what the target did not do, and the backend too when a call of this device has waited on it that long', () => {
    expect(targetTimeout('prepare within 6 s', BACKEND_STALL_MS - 1)).toEqual({
      code: 'target_timeout',
      message: 'The target did not prepare within 6 s.',
    });
    expect(targetTimeout('prepare within 6 s', 5_400)).toEqual({
      code: 'target_timeout',
      message:
        'The target did not prepare within 6 s. The sync backend has not answered a call of this device for 5 s either: it, rather than the target, may be what held the move up.',
    });
  });
});
