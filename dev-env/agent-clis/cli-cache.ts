/**
 * The real agent CLIs the tests run (Claude Code, Codex, GitHub Copilot CLI, Qwen Code): their
 * pinned versions (scripts/agent-clis/package.json, the one place they are named) and where
 * scripts/ensure-agent-clis.js installed them (.cache/agent-clis/, or $BATON_AGENT_CLIS_DIR), with
 * the unpack cache Copilot reads (its xdg-cache/, unpacked there once by the install).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const PROJECT_ROOT = resolve(import.meta.dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'scripts', 'agent-clis', 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};

export const AGENT_CLIS = ['claude', 'codex', 'copilot', 'qwen'] as const;
export type AgentCli = (typeof AGENT_CLIS)[number];

/** The exact versions the tests run, e.g. { claude: '2.1.332', codex: '0.171.0', … }. */
export const AGENT_CLI_VERSIONS: Readonly<Record<AgentCli, string>> = {
  claude: manifest.dependencies['@anthropic-ai/claude-code'] ?? '',
  codex: manifest.dependencies['@openai/codex'] ?? '',
  copilot: manifest.dependencies['@github/copilot'] ?? '',
  qwen: manifest.dependencies['@qwen-code/qwen-code'] ?? '',
};

/** The folder the CLIs are installed in. */
export function agentCliCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.BATON_AGENT_CLIS_DIR || join(PROJECT_ROOT, '.cache', 'agent-clis'));
}

/** The XDG cache folder the tests' homes share: Copilot's unpacked files are there, read-only to them. */
export function agentCliXdgCache(env: NodeJS.ProcessEnv = process.env): string {
  return join(agentCliCacheDir(env), 'xdg-cache');
}

/**
 * The absolute path of the installed `cli` (its npm bin entry); throws, naming the command that
 * installs it, when it is not there — `npm test` installs it before the unit tests.
 */
export function agentCliPath(cli: AgentCli, env: NodeJS.ProcessEnv = process.env): string {
  const path = join(agentCliCacheDir(env), 'node_modules', '.bin', cli);
  if (!existsSync(path)) {
    throw new Error(`The ${cli} CLI the tests run is not installed at ${path}: run \`node scripts/ensure-agent-clis.js\` (npm test does).`);
  }
  return path;
}
