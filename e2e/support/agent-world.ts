/**
 * The e2e world with the real agent CLIs: an AgentCliLab (the scripted model server, the pinned
 * `claude` and `codex`, a loopback-only namespace where the machine allows) and the two device
 * processes, each with its own throwaway CLI homes and a PATH to the lab's CLIs. `versions` makes a
 * device's CLIs report other versions (the real CLIs still run); `only` gives a device just some of them.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test, type Browser } from '@playwright/test';
import { AgentCliLab } from '../../dev-env/agent-clis/agent-cli-lab.ts';
import type { AgentHome } from '../../dev-env/agent-clis/agent-homes.ts';
import { cliReporting } from '../../dev-env/agent-clis/versioned-cli.ts';
import { personsWords } from '../../dev-env/scripted-model-server/rules.ts';
import type { ModelApi, RecordedRequest } from '../../dev-env/scripted-model-server/server.ts';
import { openWorld, type World } from './devices.ts';

export interface AgentWorld extends World {
  lab: AgentCliLab;
  homes: { laptop: AgentHome; desktop: AgentHome };
}

type Versions = Partial<Record<'claude' | 'codex', string>>;
type Cli = 'claude' | 'codex';

/** A device's CLI env: its homes, with `claude`/`codex` reporting `versions` where given, and only the CLIs `only` names. */
function deviceEnv(lab: AgentCliLab, home: AgentHome, versions: Versions, only?: Cli[]): NodeJS.ProcessEnv {
  const entries = Object.entries(versions) as ['claude' | 'codex', string][];
  if (only) {
    const bin = join(home.root, 'only-bin');
    mkdirSync(bin, { recursive: true });
    for (const cli of only) symlinkSync(join(lab.binDir, cli), join(bin, cli));
    const path = (home.env.PATH ?? '').split(':').map((dir) => (dir === lab.binDir ? bin : dir));
    return { ...home.env, PATH: path.join(':') };
  }
  if (entries.length === 0) return home.env;
  const bin = join(home.root, 'versioned-bin');
  for (const [tool, line] of entries) cliReporting(bin, tool, line, join(lab.binDir, tool));
  return { ...home.env, PATH: `${bin}:${home.env.PATH ?? ''}` };
}

/** Starts the lab and the two devices (each with its own CLI homes) and opens both UIs (`notifications`: as openWorld's). */
export async function openAgentWorld(
  browser: Browser,
  versions: { laptop?: Versions; desktop?: Versions } = {},
  options: { notifications?: boolean; only?: { laptop?: Cli[]; desktop?: Cli[] } } = {},
): Promise<AgentWorld> {
  const lab = await AgentCliLab.start();
  try {
    const homes = { laptop: await lab.home('laptop'), desktop: await lab.home('desktop') };
    const world = await openWorld(
      browser,
      {
        laptop: deviceEnv(lab, homes.laptop, versions.laptop ?? {}, options.only?.laptop),
        desktop: deviceEnv(lab, homes.desktop, versions.desktop ?? {}, options.only?.desktop),
      },
      options,
    );
    return {
      ...world,
      lab,
      homes,
      async close() {
        await world.close();
        await lab.close();
      },
    };
  } catch (error) {
    await lab.close();
    throw error;
  }
}

/**
 * Opens the agent world before the spec's tests and closes it after them; the getter returns it. The
 * tests share it, each starting from what it makes itself (support/starting-points.ts).
 */
export function useAgentWorld(): () => AgentWorld {
  let world: AgentWorld | undefined;
  test.beforeAll(async ({ browser }) => {
    test.setTimeout(120_000);
    world = await openAgentWorld(browser);
  });
  test.afterAll(async () => {
    await world?.close();
  });
  return () => {
    if (!world) throw new Error('the agent world is not open');
    return world;
  };
}

/** The model calls `world`'s scripted server received for `api` whose newest user text is `text` (after Baton's move note, if any). */
export function requestsFor(world: AgentWorld, api: ModelApi, text: string): RecordedRequest[] {
  return world.lab.server.requests.filter((r) => r.api === api && r.lastUserText !== null && personsWords(r.lastUserText) === text);
}
