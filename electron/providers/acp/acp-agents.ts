/**
 * The ACP agents Baton knows, each a small definition for the ACP provider (acp-session.ts): GitHub
 * Copilot CLI (`copilot --acp`). Each runs with the environment the
 * device gives it (its login, or its own model endpoint: docs/using-agents.md), and maps the
 * session's permission level to its own settings on top of the answers the adapter gives itself
 * (acp-permissions.ts: edits inside the workspace at "workspace", everything at "full").
 */
import type { PermissionLevel } from '../../../shared/provider.ts';
import type { AcpAgent } from './acp-agent.ts';
import { copilotStore } from './copilot/copilot-store.ts';
import { qwenStore } from './qwen/qwen-store.ts';

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

/** Qwen's approval modes: default (asks before edits and commands), auto-edit (edits run), yolo (nothing asked). */
export const QWEN_MODES: Readonly<Record<PermissionLevel, string>> = { ask: 'default', workspace: 'auto-edit', full: 'yolo' };

export const QWEN_AGENT: AcpAgent = {
  provider: 'qwen-code',
  binary: 'qwen',
  args: ['--acp'],
  name: 'Qwen Code',
  settings: (level) => [{ kind: 'mode', modeId: QWEN_MODES[level] }],
  startTimeoutMs: 120_000,
  store: qwenStore,
};

export const ACP_AGENTS = { copilot: COPILOT_AGENT, 'qwen-code': QWEN_AGENT } as const;
