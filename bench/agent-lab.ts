/**
 * What the benches that run the real agent CLIs share before their world starts: everything they
 * write (repositories, CLI homes, device profiles) goes under .bench-tmp/, and the agent-CLI lab
 * runs with a home for each of the two devices.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AgentCliLab } from '../dev-env/agent-clis/agent-cli-lab.ts';
import type { AgentHome } from '../dev-env/agent-clis/agent-homes.ts';

/** Points TMPDIR into .bench-tmp/ and starts the lab with the laptop's and the desktop's homes; the caller closes the lab. */
export async function startBenchAgentLab(): Promise<{ lab: AgentCliLab; laptopHome: AgentHome; desktopHome: AgentHome }> {
  process.env.TMPDIR = join(import.meta.dirname, '..', '.bench-tmp');
  mkdirSync(process.env.TMPDIR, { recursive: true });
  const lab = await AgentCliLab.start();
  try {
    return { lab, laptopHome: await lab.home('laptop'), desktopHome: await lab.home('desktop') };
  } catch (error) {
    await lab.close();
    throw error;
  }
}
