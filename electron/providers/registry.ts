/**
 * Making a provider session by id, with this device's settings for it. The runtime calls
 * `createProvider` and then drives the session only through the ProviderSession interface.
 */
import type { Result } from '../../shared/errors.ts';
import { DEFAULT_PERMISSION_LEVEL, type ProviderId, type ProviderSession, type SessionSettings } from '../../shared/provider.ts';
import { ACP_AGENTS } from './acp/acp-agents.ts';
import { AcpSession } from './acp/acp-session.ts';
import { ClaudeCodeSession } from './claude-code/claude-code-session.ts';
import { CodexSession } from './codex/codex-session.ts';
import { CommandAgentSession } from './command-agent.ts';
import { DemoAgent, type DemoAgentOptions } from './demo-agent.ts';
import type { Clock } from './session-state.ts';

export interface ProviderOptions {
  /** The environment provider CLIs run with (PATH, CLAUDE_CONFIG_DIR, CODEX_HOME, …); default process.env. */
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  demo?: DemoAgentOptions;
  claude?: { command?: string; extraArgs?: readonly string[] };
  /** `extraArgs`: options of `codex app-server` for every turn, e.g. ['-c', 'model="gpt-5-codex"']. */
  codex?: { command?: string; extraArgs?: readonly string[] };
  /** GitHub Copilot CLI's executable and extra arguments after `--acp`. */
  copilot?: { command?: string; extraArgs?: readonly string[] };
  /** Qwen Code's executable and extra arguments after `--acp`. */
  qwen?: { command?: string; extraArgs?: readonly string[] };
  /** The command agent configured on this device: argv, no shell; the prompt goes to stdin. */
  command?: { argv: readonly string[] } | null;
  /** This device's name, as the providers' notes in the transcript name it. */
  deviceName?: string;
}

/**
 * A new, unstarted session of provider `id` with the session's `settings` (its permission level, which
 * the CLI adapters map to their own flags); fails when the command agent has no command configured.
 */
export function createProvider(
  id: ProviderId,
  options: ProviderOptions = {},
  settings: SessionSettings = { permission: DEFAULT_PERMISSION_LEVEL },
): Result<ProviderSession, 'not_configured'> {
  const common = { env: options.env, clock: options.clock, permission: settings.permission, deviceName: options.deviceName };
  switch (id) {
    case 'demo':
      return {
        ok: true,
        value: new DemoAgent({ clock: options.clock, deviceName: options.deviceName, ...options.demo, permission: settings.permission }),
      };
    case 'claude-code':
      return { ok: true, value: new ClaudeCodeSession({ ...common, ...options.claude }) };
    case 'codex':
      return { ok: true, value: new CodexSession({ ...common, ...options.codex }) };
    case 'copilot':
      return { ok: true, value: new AcpSession(ACP_AGENTS.copilot, { ...common, ...options.copilot }) };
    case 'qwen-code':
      return { ok: true, value: new AcpSession(ACP_AGENTS['qwen-code'], { ...common, ...options.qwen }) };
    case 'command': {
      const argv = options.command?.argv ?? [];
      if (argv.length === 0 || argv[0] === '') {
        return { ok: false, code: 'not_configured', message: 'No command-line agent is configured on this device.' };
      }
      return { ok: true, value: new CommandAgentSession({ ...common, argv }) };
    }
  }
}
