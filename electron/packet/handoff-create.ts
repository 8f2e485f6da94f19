/**
 * handoff_create as a pure function: reads the branch facts from git, records the caller's prose
 * verbatim, writes one packet per branch and links it in memory. No MCP here; results are values.
 */
import { readBranchFacts, readDefaultBaseRef } from './git-facts.ts';
import { openGitReader, type GitExec } from './git-read.ts';
import { DEFAULT_BASE_REF, DEFAULT_PROVIDER, describeIssue, HandoffCreateArgs } from './handoff-args.ts';
import { noBackendLink, type MemoryLink, type MemoryStoreState } from './memory-link.ts';
import {
  byteLength,
  FIELD_CAP_BYTES,
  NOT_RUN,
  PACKET_CAP_BYTES,
  packetPath,
  renderPacket,
  SECTIONS,
  slugOfBranch,
  slugProblem,
  type Packet,
  type PacketProse,
} from './packet-format.ts';
import { readPacketFile, writePacketFile } from './packet-file.ts';

/** What create and resume may be given instead of the real edges. */
export interface HandoffDeps {
  /** Runs git (default: the shared git runner with the process env). */
  exec?: GitExec;
  /** The clock (default: the system clock). */
  now?: () => Date;
  /** The memory link (default: none, so memory is skipped with no_backend). */
  memory?: MemoryLink;
}

export type HandoffCreateResult =
  | { ok: true; path: string; slug: string; packet: Packet; memory: MemoryStoreState }
  | { ok: false; reason: 'field_over_cap'; field: string; limit: number; bytes: number; message: string }
  | { ok: false; reason: 'packet_over_cap'; limit: number; bytes: number; message: string }
  | { ok: false; reason: 'git_read_failed' | 'write_denied' | 'invalid_arguments'; message: string };

/** The first caller field over the per-field byte cap, named the way the caller sent it. */
function fieldOverCap(args: HandoffCreateArgs): { field: string; bytes: number } | undefined {
  const fields: Array<[string, string | undefined]> = [
    ...SECTIONS.map(([key]) => [key, args[key]] as [string, string | undefined]),
    ...(args.verification ?? []).flatMap((row, i): Array<[string, string]> => [
      [`verification[${i}].claim`, row.claim],
      [`verification[${i}].probe`, row.probe],
    ]),
    ['provider', args.provider],
    ['base_ref', args.base_ref],
  ];
  for (const [field, value] of fields) {
    if (value !== undefined && byteLength(value) > FIELD_CAP_BYTES) return { field, bytes: byteLength(value) };
  }
  return undefined;
}

/**
 * Builds the asserted half from the caller's arguments; every verification result becomes "not run".
 * `extraSections` are sections a person added to the previous packet, carried over verbatim.
 */
export function assertedFrom(args: HandoffCreateArgs, extraSections: Record<string, string> = {}): PacketProse {
  return {
    goal: args.goal ?? '',
    acceptance_criteria: args.acceptance_criteria ?? '',
    scope_assumptions: args.scope_assumptions ?? '',
    current_state: args.current_state ?? '',
    next_action: args.next_action ?? '',
    verification: (args.verification ?? []).map((row) => ({ claim: row.claim, probe: row.probe, result: NOT_RUN })),
    extra_sections: { ...extraSections },
  };
}

/**
 * Writes `docs/handoffs/<slug>.md` for the current branch of the repository at `root`. Oversize
 * input is refused by name (never truncated); an overwrite keeps the previous created_at as
 * superseded_at and the sections a person added to the previous packet, verbatim (they count
 * toward the packet cap).
 */
export async function handoffCreate(root: string, rawArgs: unknown, deps: HandoffDeps = {}): Promise<HandoffCreateResult> {
  const parsed = HandoffCreateArgs.safeParse(rawArgs ?? {});
  if (!parsed.success) return { ok: false, reason: 'invalid_arguments', message: describeIssue(parsed.error) };
  const args = parsed.data;
  const over = fieldOverCap(args);
  if (over) {
    return {
      ok: false,
      reason: 'field_over_cap',
      field: over.field,
      limit: FIELD_CAP_BYTES,
      bytes: over.bytes,
      message: `${over.field} is ${over.bytes} bytes; the cap is ${FIELD_CAP_BYTES}`,
    };
  }

  const opened = await openGitReader(root, deps.exec);
  if (!opened.ok) return { ok: false, reason: 'git_read_failed', message: opened.message };
  const baseRef = args.base_ref ?? (await readDefaultBaseRef(opened.reader, DEFAULT_BASE_REF));
  const facts = await readBranchFacts(opened.reader, baseRef);
  if (!facts.ok) return { ok: false, reason: 'git_read_failed', message: facts.message };
  const { toplevel, ...branchFacts } = facts.value;
  const slug = slugOfBranch(branchFacts.branch);
  const problem = slugProblem(slug);
  if (problem)
    return { ok: false, reason: 'write_denied', message: `the branch ${branchFacts.branch} cannot name a packet file: ${problem}` };

  const previous = await readPacketFile(toplevel, slug);
  const now = (deps.now ?? (() => new Date()))();
  const { merge_base_error, ...base } = branchFacts;
  const packet: Packet = {
    verified: {
      ...base,
      created_at: now.toISOString(),
      provider: args.provider ?? DEFAULT_PROVIDER,
      ...(previous.ok ? { superseded_at: previous.packet.verified.created_at } : {}),
      ...(merge_base_error !== undefined ? { merge_base_error } : {}),
    },
    asserted: assertedFrom(args, previous.ok ? previous.packet.asserted.extra_sections : {}),
  };
  const text = renderPacket(packet);
  const bytes = byteLength(text);
  if (bytes > PACKET_CAP_BYTES) {
    const kept = Object.keys(packet.asserted.extra_sections);
    return {
      ok: false,
      reason: 'packet_over_cap',
      limit: PACKET_CAP_BYTES,
      bytes,
      message: `the rendered packet is ${bytes} bytes; the cap is ${PACKET_CAP_BYTES}${
        kept.length > 0 ? ` (it keeps the sections a person added: ${kept.join(', ')})` : ''
      }`,
    };
  }
  const written = await writePacketFile(toplevel, slug, text);
  if (!written.ok) return written;

  const path = packetPath(slug);
  const memory = await (deps.memory ?? noBackendLink).remember({ slug, goal: packet.asserted.goal, path, repo: toplevel });
  return { ok: true, path, slug, packet, memory };
}
