import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DemoAgent } from './demo-agent.ts';
import { waitForIdle } from './wait-idle.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function started(turnMs: number): Promise<DemoAgent> {
  const dir = await mkdtemp(join(tmpdir(), 'baton-idle-'));
  const agent = new DemoAgent({ turnMs });
  cleanups.push(async () => {
    await agent.stop();
    await rm(dir, { recursive: true, force: true });
  });
  await agent.start(dir, 'work');
  return agent;
}

describe('waitForIdle', () => {
  it('resolves true when the running turn ends within the bound', async () => {
    const agent = await started(30);
    expect(await waitForIdle(agent, 2000)).toBe(true);
    expect(agent.isTurnActive()).toBe(false);
  });

  it('resolves false when the bound passes first, leaving the turn running', async () => {
    const agent = await started(5000);
    expect(await waitForIdle(agent, 20)).toBe(false);
    expect(agent.isTurnActive()).toBe(true);
  });
});
