/**
 * The headless device's UI address, kept in its profile (`ui-address.json`, 0600: the token opens
 * the device's API): the port and token it served on last, so the address — and a bookmark of it —
 * stays the same across restarts. `--port` overrides the port; a kept port another process holds
 * now gives way to a free one (and the new address is kept).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { TOKEN_PARAM } from '../../shared/device-bridge.ts';

const FILE = 'ui-address.json';

const UiAddress = z.object({ port: z.number().int().min(1).max(65535), token: z.string().regex(/^[A-Za-z0-9_-]{16,128}$/) });
export type UiAddress = z.infer<typeof UiAddress>;

/** The address a profile's device served its UI on last, or null (never started headless, or unreadable). */
export function loadUiAddress(profileDir: string): UiAddress | null {
  try {
    const parsed = UiAddress.safeParse(JSON.parse(readFileSync(join(profileDir, FILE), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Keeps `address` in the profile (written whole, then renamed into place; readable by its owner only). */
export function saveUiAddress(profileDir: string, address: UiAddress): void {
  mkdirSync(profileDir, { recursive: true, mode: 0o700 });
  const temp = join(profileDir, `${FILE}.tmp`);
  writeFileSync(temp, `${JSON.stringify(address)}\n`, { mode: 0o600 });
  renameSync(temp, join(profileDir, FILE));
}

/** The token a device's UI is opened with: the kept one, else a new random one. */
export function uiToken(kept: UiAddress | null): string {
  return kept?.token ?? randomBytes(24).toString('base64url');
}

/** The page address of a UI served on `port` with `token`. */
export function uiUrl(port: number, token: string): string {
  return `http://127.0.0.1:${port}/?${TOKEN_PARAM}=${encodeURIComponent(token)}`;
}
