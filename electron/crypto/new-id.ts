/** Ids this device makes for what it creates (sessions, handoffs, Baton's transcript notes). */
import { randomBytes } from 'node:crypto';

/** A new 22-character url-safe id. */
export function newId(): string {
  return randomBytes(16).toString('base64url');
}
