/**
 * Which carried files look like secrets, by name only (nothing is read): environment files, private
 * keys and certificates, credential stores. Carrying them is the person's choice, made by name before
 * the move starts; they travel sealed like everything else. A name is matched on its last part, case
 * folded, so `config/.env.local` and `deploy/ID_RSA` are both found.
 */
import { posix } from 'node:path';

/** Names that are secrets whatever their folder. */
const NAMES = new Set([
  '.netrc',
  '_netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.htpasswd',
  '.pgpass',
  'credentials',
  'credentials.json',
  'secrets.json',
  'secrets.yml',
  'secrets.yaml',
  'service-account.json',
]);

/** Endings of key, certificate and keystore files. */
const ENDINGS = ['.pem', '.key', '.p12', '.pfx', '.jks', '.keystore', '.ppk', '.kdbx', '.tfvars', '.ovpn'];

/** Whether the file at `path` (relative, `/`-separated) looks like a secret. */
export function looksSecret(path: string): boolean {
  const name = posix.basename(path).toLowerCase();
  if (name === '.env' || name.startsWith('.env.') || name.endsWith('.env')) return true;
  // SSH keys (id_rsa, id_ed25519, id_ecdsa…), but not their public halves.
  if (name.startsWith('id_') && !name.endsWith('.pub')) return true;
  return NAMES.has(name) || ENDINGS.some((ending) => name.endsWith(ending));
}
