import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DemoAgent } from '../providers/demo-agent.ts';
import { settleTurn } from './source-steps.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function agentInTurn(turnMs: number): Promise<DemoAgent> {
  const workspace = mkdtempSync(join(tmpdir(), 'baton-settle-'));
  dirs.push(workspace);
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
