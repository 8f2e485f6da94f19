/**
 * Throwaway homes for the real CLIs: a blank HOME, CLAUDE_CONFIG_DIR and CODEX_HOME per "device"
 * (Copilot's ~/.copilot and Qwen's ~/.qwen under that HOME), with the settings that point each CLI
 * at the scripted model server and keep it off the network, and nothing of the caller's environment
 * (no real API keys, no real ~/.claude, ~/.codex, ~/.copilot or ~/.qwen).
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { agentCliXdgCache } from './cli-cache.ts';

/** The dummy keys the CLIs send to the scripted server (it redacts them in its records anyway). */
export const DUMMY_ANTHROPIC_KEY = 'sk-ant-scripted-dummy';
export const DUMMY_CODEX_KEY = 'scripted-dummy';
/** The model Copilot and Qwen ask for: one Copilot gives its `create`/`edit`/`bash` tools (newer names get apply_patch). */
export const CHAT_MODEL = 'gpt-4.1';

/**
 * Qwen Code's ~/.qwen/settings.json: no usage statistics and no telemetry (else it sends them to a
 * remote host).
 */
export const QWEN_SETTINGS = { privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } };

export interface AgentHome {
  name: string;
  /** The temp folder holding everything below. */
  root: string;
  home: string;
  claudeConfigDir: string;
  codexHome: string;
  /** Where Copilot keeps its sessions and config (HOME/.copilot). */
  copilotHome: string;
  /** Where Qwen keeps its settings and sessions (HOME/.qwen). */
  qwenHome: string;
  /** The whole environment to run any of the CLIs with (PATH finds the lab's `claude`, `codex`, `copilot` and `qwen`). */
  env: NodeJS.ProcessEnv;
}

/**
 * Codex's config.toml: the scripted server as the model provider (Responses API, no retries, so a
 * failure shows at once), a catalog model that gets plain tools (gpt-5.5: exec_command and
 * apply_patch; newer names get "code mode"), and plugins and analytics off (else it looks up
 * chatgpt.com, ab.chatgpt.com and github.com).
 */
export function codexConfig(modelUrl: string): string {
  return [
    'model = "gpt-5.5"',
    'model_provider = "scripted"',
    '',
    '[model_providers.scripted]',
    'name = "Scripted"',
    `base_url = "${modelUrl}/v1"`,
    'env_key = "SCRIPTED_API_KEY"',
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[features]',
    'plugins = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
  ].join('\n');
}

/**
 * Makes a device's homes under a new temp folder. `binDir` holds the CLIs to run; `modelUrl` is the
 * scripted server's. Claude gets ANTHROPIC_BASE_URL with a dummy key,
 * CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 (no telemetry, update or error-report hosts) and
 * CLAUDE_CODE_MAX_RETRIES=0 (an error shows at once instead of after ten retries). Copilot runs
 * offline (COPILOT_OFFLINE) against the server as an OpenAI provider, its unpacked files read from
 * the shared XDG cache; Qwen gets OPENAI_BASE_URL with a dummy key and its settings without telemetry.
 */
export async function makeAgentHome(name: string, modelUrl: string, binDir: string): Promise<AgentHome> {
  const root = await mkdtemp(join(tmpdir(), `baton-agents-${name}-`));
  const home = join(root, 'home');
  const claudeConfigDir = join(root, 'claude');
  const codexHome = join(root, 'codex');
  const copilotHome = join(home, '.copilot');
  const qwenHome = join(home, '.qwen');
  for (const dir of [home, claudeConfigDir, codexHome, qwenHome]) await mkdir(dir, { recursive: true });
  await writeFile(join(codexHome, 'config.toml'), codexConfig(modelUrl));
  await writeFile(join(qwenHome, 'settings.json'), `${JSON.stringify(QWEN_SETTINGS, null, 2)}\n`);
  const env: NodeJS.ProcessEnv = {
    PATH: [binDir, dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    HOME: home,
    CLAUDE_CONFIG_DIR: claudeConfigDir,
    CODEX_HOME: codexHome,
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: DUMMY_ANTHROPIC_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
    SCRIPTED_API_KEY: DUMMY_CODEX_KEY,
    XDG_CACHE_HOME: agentCliXdgCache(),
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_TYPE: 'openai',
    COPILOT_PROVIDER_BASE_URL: `${modelUrl}/v1`,
    COPILOT_PROVIDER_API_KEY: DUMMY_CODEX_KEY,
    COPILOT_MODEL: CHAT_MODEL,
    OPENAI_BASE_URL: `${modelUrl}/v1`,
    OPENAI_API_KEY: DUMMY_CODEX_KEY,
    OPENAI_MODEL: CHAT_MODEL,
  };
  return { name, root, home, claudeConfigDir, codexHome, copilotHome, qwenHome, env };
}
