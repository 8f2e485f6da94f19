/**
 * Test support: a certificate authority of the test's own and certificates it issues (ECDSA P-256,
 * @peculiar/x509), to stand for a public CA's certificate: a process told to trust the authority
 * (NODE_EXTRA_CA_CERTS) accepts its certificates as it would a public CA's.
 */
import { createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

export interface TestPair {
  /** PEM. */
  cert: string;
  /** PEM, PKCS#8. */
  key: string;
}

const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const crypto = webcrypto as unknown as Parameters<typeof x509.X509CertificateGenerator.create>[1];
const DAY = 24 * 60 * 60 * 1000;

async function keyPair() {
  return (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

async function pem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }).export({ type: 'pkcs8', format: 'pem' }) as string;
}

const serial = () => `01${randomBytes(15).toString('hex')}`;

/** A new authority; `issue` signs certificates for names and addresses with it. */
export async function testAuthority(): Promise<TestPair & { issue(hosts: string[]): Promise<TestPair> }> {
  const keys = await keyPair();
  const now = Date.now();
  const authority = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serial(),
      name: 'CN=Baton test authority',
      notBefore: new Date(now - DAY),
      notAfter: new Date(now + 30 * DAY),
      keys,
      signingAlgorithm: SIGNING,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      ],
    },
    crypto,
  );
  return {
    cert: authority.toString('pem'),
    key: await pem(keys.privateKey),
    async issue(hosts) {
      const leaf = await keyPair();
      const cert = await x509.X509CertificateGenerator.create(
        {
          serialNumber: serial(),
          subject: `CN=${hosts[0] ?? 'baton'}`,
          issuer: authority.subject,
          notBefore: new Date(now - DAY),
          notAfter: new Date(now + 30 * DAY),
          publicKey: leaf.publicKey,
          signingKey: keys.privateKey,
          signingAlgorithm: SIGNING,
          extensions: [
            new x509.BasicConstraintsExtension(false, undefined, true),
            new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
            new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
            new x509.SubjectAlternativeNameExtension(hosts.map((value) => ({ type: /^[\d.]+$/.test(value) ? 'ip' : 'dns', value }))),
          ],
        },
        crypto,
      );
      return { cert: cert.toString('pem'), key: await pem(leaf.privateKey) };
    },
  };
}
