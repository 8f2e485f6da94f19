/**
 * Reading and writing a packet file under `<repo>/docs/handoffs/`, confined to the repository:
 * a symlinked folder pointing elsewhere is refused, and checked before anything is created, so a
 * refused write leaves nothing behind outside the repository. Failures are values.
 */
import { lstat, mkdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, isAbsolute } from 'node:path';
import { packetPath, parsePacket, type Packet } from './packet-format.ts';

export type PacketRead = { ok: true; packet: Packet } | { ok: false; reason: 'packet_not_found' | 'packet_unreadable'; message: string };

const MAX_READ_BYTES = 1 << 20;

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Reads and parses the packet of `slug` in the repository at `toplevel`; never writes. */
export async function readPacketFile(toplevel: string, slug: string): Promise<PacketRead> {
  const file = join(toplevel, packetPath(slug));
  const info = await lstat(file).catch((error: NodeJS.ErrnoException) => error);
  if (info instanceof Error) {
    if (info.code === 'ENOENT' || info.code === 'ENOTDIR')
      return { ok: false, reason: 'packet_not_found', message: `no packet at ${packetPath(slug)}` };
    return { ok: false, reason: 'packet_unreadable', message: `cannot read ${packetPath(slug)}: ${info.message}` };
  }
  try {
    const [realRoot, realFile] = await Promise.all([realpath(toplevel), realpath(file)]);
    if (!inside(realRoot, realFile))
      return { ok: false, reason: 'packet_unreadable', message: `${packetPath(slug)} points outside the repository` };
    if (info.size > MAX_READ_BYTES)
      return { ok: false, reason: 'packet_unreadable', message: `${packetPath(slug)} is ${info.size} bytes, not a packet` };
    const parsed = parsePacket(await readFile(realFile, 'utf8'));
    if (!parsed.ok) return { ok: false, reason: 'packet_unreadable', message: `${packetPath(slug)}: ${parsed.message}` };
    return { ok: true, packet: parsed.packet };
  } catch (error) {
    return { ok: false, reason: 'packet_unreadable', message: `cannot read ${packetPath(slug)}: ${(error as Error).message}` };
  }
}

export type PacketWrite = { ok: true } | { ok: false; reason: 'write_denied'; message: string };

/**
 * Makes the folder `rel` (relative, `/`-separated) under `toplevel` one part at a time: a part that
 * exists must be a folder inside the repository once links are followed, and is checked before
 * the next part is made in it. Undefined when the folder is there; else why not.
 */
async function folderInside(toplevel: string, rel: string): Promise<string | undefined> {
  const realRoot = await realpath(toplevel);
  let dir = toplevel;
  for (const part of rel.split('/')) {
    dir = join(dir, part);
    if ((await lstat(dir).catch(() => undefined)) === undefined) {
      // Not there: made here, inside what was checked (a part that appeared since fails as EEXIST).
      await mkdir(dir);
      continue;
    }
    const real = await realpath(dir).catch(() => undefined);
    if (real === undefined || !inside(realRoot, real)) return `${relative(toplevel, dir)} points outside the repository`;
    if (!(await stat(real)).isDirectory()) return `${relative(toplevel, dir)} is not a folder`;
  }
  return undefined;
}

/** Writes `text` as the packet of `slug`, atomically (temp file + rename), only inside the repository. */
export async function writePacketFile(toplevel: string, slug: string, text: string): Promise<PacketWrite> {
  const file = join(toplevel, packetPath(slug));
  const temp = join(dirname(file), `.${slug}.md.${process.pid}.${Date.now()}.tmp`);
  try {
    const refused = await folderInside(toplevel, dirname(packetPath(slug)));
    if (refused) return { ok: false, reason: 'write_denied', message: refused };
    const existing = await lstat(file).catch(() => undefined);
    if (existing && !existing.isFile())
      return { ok: false, reason: 'write_denied', message: `${packetPath(slug)} exists and is not a regular file` };
    await writeFile(temp, text, { encoding: 'utf8', flag: 'wx' });
    await rename(temp, file);
    return { ok: true };
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    return { ok: false, reason: 'write_denied', message: `cannot write ${packetPath(slug)}: ${(error as Error).message}` };
  }
}
