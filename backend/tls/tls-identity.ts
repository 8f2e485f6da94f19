/**
 * The backend's TLS identity: a certificate, its private key, and the fingerprint devices pin (the
 * SHA-256 of the certificate's public key, shared/backend-keys.ts). With `--tls self-signed` the key
 * is made once (node:crypto, ECDSA P-256) and kept by the storage (storage.ts: a 0600 file in the data
 * folder, or a row in the database that every instance on it shares); the certificate is signed
 * afresh from it at every start (@peculiar/x509), so it never runs out under a device's pin, which is
 * on the key. With `--tls-cert`/`--tls-key` both come from files, read again on SIGHUP.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { createSecureContext } from 'node:tls';
// @peculiar/x509 needs the Reflect metadata API in place before it loads.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { fail, ok, type Result } from '../../shared/errors.ts';
import { KEY_FINGERPRINT_PREFIX } from '../../shared/backend-keys.ts';

export interface TlsIdentity {
  /** PEM: the certificate (and any chain after it). */
  cert: string;
  /** PEM: its private key. */
  key: string;
  /** `sha256:` + hex of the certificate's SubjectPublicKeyInfo: what devices pin. */
  fingerprint: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const EC_KEY = { name: 'ECDSA', namedCurve: 'P-256' } as const;

/** A new private key for a self-signed backend, PKCS#8 PEM. */
export function newTlsKey(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
}

/** The fingerprint of a certificate's public key (its first certificate, for a chain). */
export function certificateFingerprint(certPem: string): string {
  const spki = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  return `${KEY_FINGERPRINT_PREFIX}${createHash('sha256').update(spki).digest('hex')}`;
}

/**
 * A certificate for `keyPem` signed by itself, valid from a day ago for 397 days, naming `hosts`
 * (names or addresses) so a client that checks names can be pointed at it too.
 */
export async function selfSignedIdentity(keyPem: string, hosts: readonly string[], now: number = Date.now()): Promise<TlsIdentity> {
  const privateKey = createPrivateKey(keyPem);
  const keys = {
    privateKey: await webcrypto.subtle.importKey('pkcs8', privateKey.export({ type: 'pkcs8', format: 'der' }), EC_KEY, false, ['sign']),
    publicKey: await webcrypto.subtle.importKey('spki', createPublicKey(privateKey).export({ type: 'spki', format: 'der' }), EC_KEY, true, [
      'verify',
    ]),
  };
  const names = [...new Set(['localhost', ...hosts])].filter((host) => host !== '' && host !== '0.0.0.0' && host !== '::');
  // A positive serial: 16 random bytes with the top bit clear.
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  const certificate = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serial.toString('hex'),
      name: 'CN=baton backend',
      notBefore: new Date(now - DAY_MS),
      notAfter: new Date(now + 397 * DAY_MS),
      keys,
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.SubjectAlternativeNameExtension(names.map((value) => ({ type: isIP(value) ? 'ip' : 'dns', value }))),
      ],
    },
    webcrypto as unknown as Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[1],
  );
  const cert = certificate.toString('pem');
  return { cert, key: keyPem, fingerprint: certificateFingerprint(cert) };
}

/**
 * Reads a certificate and its key from files and checks they belong together (as the TLS server
 * will use them); a refusal names the file and why, on one line.
 */
export async function identityFromFiles(certFile: string, keyFile: string): Promise<Result<TlsIdentity, 'tls_unusable'>> {
  let cert: string;
  let key: string;
  try {
    [cert, key] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
  } catch (error) {
    return fail('tls_unusable', `cannot read the TLS files: ${(error as Error).message}`);
  }
  try {
    createSecureContext({ cert, key });
    return ok({ cert, key, fingerprint: certificateFingerprint(cert) });
  } catch (error) {
    const why = (error as Error).message.split('\n')[0] ?? 'unusable';
    return fail('tls_unusable', `${certFile} and ${keyFile} are not a usable certificate and key: ${why}`);
  }
}
