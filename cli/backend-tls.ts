/**
 * How `baton backend` serves TLS: `--tls-cert FILE --tls-key FILE` (read again on SIGHUP, on the same
 * listener), `--tls self-signed` (a key the storage keeps: backend/tls/kept-key.ts), `--tls proxy`
 * (plain HTTP behind a proxy that terminates TLS), or none: plain HTTP, with one line of warning when
 * it listens beyond this machine.
 */
import type { RunningBackend } from '../backend/backend.ts';
import type { Storage } from '../backend/storage.ts';
import { identityFromFiles, newTlsKey, selfSignedIdentity, type TlsIdentity } from '../backend/tls/tls-identity.ts';
import { isLoopbackHost } from '../shared/backend-addresses.ts';
import { fail, ok, type Result } from '../shared/errors.ts';
import { UsageError } from './command.ts';

export type TlsChoice =
  { kind: 'files'; certFile: string; keyFile: string } | { kind: 'self-signed' } | { kind: 'proxy' } | { kind: 'none' };

/** The usage lines of the TLS flags. */
export const TLS_USAGE = [
  '  --tls-cert FILE --tls-key FILE  serve HTTPS with this certificate (PEM, chain after it) and key;',
  '                 SIGHUP reads both again and serves them from the next connection on',
  '  --tls self-signed  serve HTTPS with a key it makes once and keeps (in DIR, or in the database for',
  '                 every instance on it); devices pin it from the invite. Prints `backend key: sha256:…`',
  '  --tls proxy    serve plain HTTP to a proxy in front that terminates TLS (no warning)',
];

/** Reads the TLS flags; contradicting ones are usage errors. */
export function tlsChoice(values: Record<string, string | boolean | undefined>): TlsChoice {
  const mode = typeof values.tls === 'string' ? values.tls : undefined;
  const cert = typeof values['tls-cert'] === 'string' ? values['tls-cert'] : undefined;
  const key = typeof values['tls-key'] === 'string' ? values['tls-key'] : undefined;
  if (mode !== undefined && mode !== 'self-signed' && mode !== 'proxy')
    throw new UsageError(`--tls takes self-signed or proxy, got ${mode}`);
  if ((cert === undefined) !== (key === undefined)) throw new UsageError('--tls-cert and --tls-key go together');
  if (cert !== undefined && key !== undefined) {
    if (mode !== undefined) throw new UsageError(`--tls ${mode} cannot be used with --tls-cert and --tls-key`);
    return { kind: 'files', certFile: cert, keyFile: key };
  }
  return mode === undefined ? { kind: 'none' } : { kind: mode };
}

/** The identity to serve with (null: plain HTTP), or why it cannot be had, on one line. */
export async function tlsIdentity(choice: TlsChoice, storage: Storage, host: string): Promise<Result<TlsIdentity | null>> {
  if (choice.kind === 'files') return identityFromFiles(choice.certFile, choice.keyFile);
  if (choice.kind !== 'self-signed') return ok(null);
  try {
    const key = await storage.keepTlsKey(newTlsKey);
    return ok(await selfSignedIdentity(key, [host]));
  } catch (error) {
    return fail('tls_unusable', `cannot make or read the self-signed TLS key: ${(error as Error).message}`);
  }
}

/** The one line of warning for plain HTTP beyond this machine without `--tls proxy`, or null. */
export function plainHttpWarning(choice: TlsChoice, host: string): string | null {
  if (choice.kind !== 'none' || isLoopbackHost(host)) return null;
  return (
    `baton backend: warning: serving plain HTTP on ${host}: requests are signed and content sealed, but ids, states and sizes ` +
    'cross the network readable; use --tls self-signed (or --tls-cert/--tls-key), or --tls proxy behind a proxy that terminates TLS'
  );
}

/**
 * With certificate files, SIGHUP reads them again and serves them from the next handshake on; an
 * unusable pair is refused on one line and the old one kept. Without them SIGHUP keeps its default
 * (it stops the process). Returns the function that stops listening.
 */
export function reloadOnHangUp(choice: TlsChoice, backend: RunningBackend, log: (line: string) => void): () => void {
  if (choice.kind !== 'files') return () => undefined;
  const onHangUp = () =>
    void identityFromFiles(choice.certFile, choice.keyFile).then((read) => {
      if (!read.ok) return log(`baton backend: SIGHUP: kept the old certificate: ${read.message}`);
      backend.replaceTls(read.value);
      log(`baton backend: SIGHUP: serving the certificate of ${choice.certFile} (key ${read.value.fingerprint})`);
    });
  process.on('SIGHUP', onHangUp);
  return () => process.off('SIGHUP', onHangUp);
}
