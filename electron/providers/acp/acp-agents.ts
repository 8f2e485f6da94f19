/**
 * The ACP agents Baton knows, each a small definition for the ACP provider (acp-session.ts): GitHub
 * Copilot CLI (`copilot --acp`). Each runs with the environment the
 * device gives it (its login, or its own model endpoint: docs/using-agents.md), and maps the
 * session's permission level to its own settings on top of the answers the adapter gives itself
 * (acp-permissions.ts: edits inside the workspace at "workspace", everything at "full").
 */
import type { AcpAgent } from './acp-agent.ts';
import { copilotStore } from './copilot/copilot-store.ts';

/** Copilot's "Allow All" session option: on at Full access (it then asks nothing), else off, asking before edits and commands. */
export const COPILOT_AGENT: AcpAgent = {
  provider: 'copilot',
  binary: 'copilot',
  args: ['--acp'],
  name: 'Copilot',
  settings: (level) => (level === 'full' ? [{ kind: 'config', configId: 'allow_all', value: 'on' }] : []),
  startTimeoutMs: 60_000,
  store: copilotStore,
};

export const ACP_AGENTS = { copilot: COPILOT_AGENT } as const;
