/**
 * Listing this machine's own sessions of a CLI provider for a workspace (what a user had before
 * Baton), so one can be adopted: Claude Code transcripts, Codex rollouts, Copilot's session
 * folders and Qwen Code's chats, read in place.
 */
import { realpath } from 'node:fs/promises';
import { fail, ok, type Result } from '../../shared/errors.ts';
import { isProviderId, PROVIDER_CAPABILITIES, PROVIDER_LABELS, type ExistingSession } from '../../shared/provider.ts';
import { ACP_AGENTS } from './acp/acp-agents.ts';
import { listClaudeSessions } from './claude-code/session-list.ts';
import { listCodexSessions } from './codex/rollout-list.ts';

/**
 * The sessions of `provider` for `workspace` found with `env`'s CLI homes (CLAUDE_CONFIG_DIR,
 * CODEX_HOME, COPILOT_HOME, QWEN_HOME, else under HOME), newest first; refuses an unknown provider, one that
 * cannot adopt, and a workspace that does not exist.
 */
export async function listExistingSessions(
  provider: string,
  workspace: string,
  env: NodeJS.ProcessEnv,
  limit = 50,
): Promise<Result<ExistingSession[]>> {
  if (!isProviderId(provider)) return fail('unknown_provider', `No provider named ${provider}.`);
  if (!PROVIDER_CAPABILITIES[provider].adoption) return fail('unsupported', `${PROVIDER_LABELS[provider]} has no sessions to adopt.`);
  if ((await realpath(workspace).catch(() => null)) === null) return fail('invalid_path', `${workspace} does not exist.`);
  if (provider === 'claude-code') return ok(await listClaudeSessions(env, workspace, limit));
  if (provider === 'codex') return ok(await listCodexSessions(env, workspace, limit));
  if (provider === 'copilot' || provider === 'qwen-code') return ok(await ACP_AGENTS[provider].store.listSessions(env, workspace, limit));
  return fail('unsupported', `${PROVIDER_LABELS[provider]} has no sessions to adopt.`);
}
