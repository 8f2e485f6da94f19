/**
 * Which providers this device has, for its published capabilities: a provider CLI counts when its
 * binary is on PATH and `<binary> --version` answers within a bounded time. The demo agent is
 * built in and always available; the command agent is available when one is configured and found.
 */
import { execFile } from 'node:child_process';
import { access, constants, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import type { ProviderView } from '../../shared/device-api.ts';
import { PROVIDER_CAPABILITIES, PROVIDER_IDS, PROVIDER_LABELS, type ProviderId } from '../../shared/provider.ts';

/** The executable each CLI provider runs. */
export const PROVIDER_BINARIES = { 'claude-code': 'claude', codex: 'codex', copilot: 'copilot', 'qwen-code': 'qwen' } as const;

/**
 * How long `--version` may take by default: 3 s, but 15 s for Qwen Code, a 26 MB Node script that
 * takes seconds to load on a busy machine.
 */
const VERSION_TIMEOUT_MS: Readonly<Record<keyof typeof PROVIDER_BINARIES, number>> = {
  'claude-code': 3000,
  codex: 3000,
  copilot: 3000,
  'qwen-code': 15_000,
};

export interface DetectOptions {
  /** The environment whose PATH is searched (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** How long `--version` may take per binary (default 3000 ms; 15000 ms for Qwen Code). */
  timeoutMs?: number;
  /** The configured command agent's argv, if any. */
  commandArgv?: readonly string[] | null;
}

/** The absolute path of `name` found on PATH (or `name` itself when absolute and executable), else null. */
export async function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  const candidates = isAbsolute(name)
    ? [name]
    : (env.PATH ?? '')
        .split(delimiter)
        .filter((dir) => dir !== '')
        .map((dir) => join(dir, name));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return null;
}

/** Runs `<binary> --version`; resolves its first output line, or null on failure or timeout. */
export function readVersion(binary: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(binary, ['--version'], { env, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 }, (error, stdout) => {
      if (error) return resolve(null);
      const line = stdout
        .split('\n')
        .map((l) => l.trim())
        .find((l) => l !== '');
      resolve(line ? line.slice(0, 100) : null);
    });
  });
}

function view(id: ProviderId, available: boolean, version: string | null): ProviderView {
  const { checkpointImport, permissions, adoption } = PROVIDER_CAPABILITIES[id];
  return { id, label: PROVIDER_LABELS[id], available, version, checkpointImport, permissions, adoption };
}

async function detectOne(id: ProviderId, options: DetectOptions): Promise<ProviderView> {
  const env = options.env ?? process.env;
  if (id === 'demo') return view(id, true, 'built in');
  if (id === 'command') {
    const program = options.commandArgv?.[0];
    return view(id, program !== undefined && (await findOnPath(program, env)) !== null, null);
  }
  const path = await findOnPath(PROVIDER_BINARIES[id], env);
  if (path === null) return view(id, false, null);
  const version = await readVersion(path, env, options.timeoutMs ?? VERSION_TIMEOUT_MS[id]);
  return view(id, version !== null, version);
}

/** Detects every provider (in PROVIDER_IDS order), probing the CLIs in parallel. */
export function detectProviders(options: DetectOptions = {}): Promise<ProviderView[]> {
  return Promise.all(PROVIDER_IDS.map((id) => detectOne(id, options)));
}
