/**
 * TLS connections whose key is checked before they carry anything: HTTPS agents that hand a request
 * its socket only once the handshake is done and the presented key accepted (backend-trust.ts says
 * which keys are), so no request head or body is written to a backend with another key. Node checks
 * a certificate's authority and names itself; a self-signed key is accepted only by its pin, so the
 * agents connect without Node's refusal and leave the decision to the check. Sessions are not
 * resumed: every new connection shows its certificate.
 */
import { createHash } from 'node:crypto';
import type { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions, type RequestOptions } from 'node:https';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect, type TLSSocket } from 'node:tls';
import { KEY_FINGERPRINT_PREFIX } from '../../shared/backend-keys.ts';
import { DEFAULT_AGENTS, type AgentPair } from './http-transport.ts';

/** Decides whether a connection's key is accepted: null, or the refusal to fail the request with. */
export interface KeyCheck {
  check(url: string, socket: TLSSocket): Error | null;
}

/** The longest a TLS handshake may take before the connection is given up. */
const HANDSHAKE_TIMEOUT_MS = 30_000;

/** The fingerprint of the key a connected TLS socket's peer presented (null: none). */
export function peerFingerprint(socket: TLSSocket): string | null {
  const cert = socket.getPeerX509Certificate();
  if (!cert) return null;
  const spki = cert.publicKey.export({ type: 'spki', format: 'der' });
  return `${KEY_FINGERPRINT_PREFIX}${createHash('sha256').update(spki).digest('hex')}`;
}

/** How to reach `host` by TLS: the name it is asked for by (SNI), unless it is an address. */
function serverName(host: string): { servername?: string } {
  return isIP(host) ? {} : { servername: host };
}

/** An https agent whose connections are handed out only once their key passed `keys`. */
class VerifyingAgent extends HttpsAgent {
  constructor(
    private readonly keys: KeyCheck,
    options: AgentOptions,
  ) {
    super({ ...options, maxCachedSessions: 0 });
  }

  override createConnection(options: RequestOptions, callback?: (error: Error | null, stream: Duplex) => void): Duplex | null | undefined {
    const host = options.host ?? options.hostname ?? 'localhost';
    const url = `https://${host.includes(':') ? `[${host}]` : host}:${String(options.port ?? 443)}`;
    // The request's own `path` (null here) is no socket path: leave it out.
    const { path: _path, ...connection } = options;
    const socket = connect({ ...connection, host, ...serverName(host), port: Number(options.port ?? 443), rejectUnauthorized: false });
    socket.setTimeout(HANDSHAKE_TIMEOUT_MS, () => socket.destroy(new Error(`no TLS handshake within ${HANDSHAKE_TIMEOUT_MS} ms`)));
    const onError = (error: Error) => callback?.(error, socket);
    socket.once('error', onError);
    socket.once('secureConnect', () => {
      socket.off('error', onError);
      socket.setTimeout(0);
      const refused = this.keys.check(url, socket);
      if (refused) {
        socket.destroy();
        callback?.(refused, socket);
      } else callback?.(null, socket);
    });
    return undefined;
  }
}

/** A fresh pair of verifying agents (calls kept alive, one socket per stream), and the function that drops their connections. */
export function verifyingAgents(keys: KeyCheck): AgentPair & { destroy(): void } {
  const request = new VerifyingAgent(keys, { keepAlive: true, maxSockets: 64 });
  const stream = new VerifyingAgent(keys, { keepAlive: false });
  return {
    request: (url): HttpAgent => (url.protocol === 'https:' ? request : DEFAULT_AGENTS.request(url)),
    stream: (url): HttpAgent => (url.protocol === 'https:' ? stream : DEFAULT_AGENTS.stream(url)),
    destroy() {
      request.destroy();
      stream.destroy();
    },
  };
}

/**
 * One TLS handshake with `url`'s host, nothing sent: resolves with the connected socket (its peer's
 * certificate and whether the system trusts it), rejects when it cannot be reached in `timeoutMs`.
 */
export function handshake(url: string, timeoutMs: number): Promise<TLSSocket> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port: Number(target.port || 443), ...serverName(host), rejectUnauthorized: false });
    const timer = setTimeout(() => socket.destroy(new Error(`no TLS handshake with ${url} within ${timeoutMs} ms`)), timeoutMs);
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(new TypeError(`fetch failed: ${error.message}`, { cause: error }));
    });
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
  });
}
