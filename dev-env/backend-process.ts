/** Runs `baton backend` as a child process (tests, demo) and reads the URL it prints. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface BackendProcess {
  url: string;
  /** The fingerprint of the key it serves with (`backend key:`), null over plain HTTP. */
  fingerprint: string | null;
  child: ChildProcess;
  /** SIGTERM (or `signal`), then resolves with the exit code once the process is gone. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const BATON = fileURLToPath(new URL('../bin/baton.js', import.meta.url));

/**
 * Starts `node bin/baton.js backend --data DIR --port 0 [ARGS]` (or, given storage arguments such as
 * `['--database', URL]`, on those) and resolves once it prints `backend: URL` (with TLS, after its
 * `backend key:` line).
 */
export function startBackendProcess(
  storage: string | string[],
  options: { port?: number; timeoutMs?: number; env?: NodeJS.ProcessEnv; args?: string[] } = {},
): Promise<BackendProcess> {
  const where = typeof storage === 'string' ? ['--data', storage] : storage;
  const args = [BATON, 'backend', ...where, '--port', String(options.port ?? 0), ...(options.args ?? [])];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: options.env ?? process.env,
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      void stop('SIGKILL');
      reject(new Error(`the backend did not start in time: ${err.slice(-500)}`));
    }, options.timeoutMs ?? 20_000);
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /^backend: (https?:\/\/\S+)$/m.exec(out);
      if (match) {
        clearTimeout(timer);
        const fingerprint = /^backend key: (sha256:[0-9a-f]{64})$/m.exec(out)?.[1] ?? null;
        resolve({ url: match[1]!, fingerprint, child, stop });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the backend exited with ${code} before listening: ${err.slice(-500)}`));
    });
  });
}
