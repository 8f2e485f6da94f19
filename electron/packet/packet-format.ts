/**
 * The packet file: YAML frontmatter of git-read facts, a markdown body of the caller's prose.
 * Rendering, parsing, the byte caps and the slug rules live here; nothing here touches disk or git.
 */
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { z } from 'zod';

export const FIELD_CAP_BYTES = 2048;
export const PACKET_CAP_BYTES = 8192;
export const PACKET_DIR = 'docs/handoffs';
export const NOT_RUN = 'not run';

/** Git-read facts, in frontmatter order. */
export interface PacketFacts {
  branch: string;
  head_sha: string;
  base_ref: string;
  merge_base: string | null;
  /** Every file changed since the merge base: committed, and in the working tree (uncommitted_files) when it was made. */
  changed_files: string[];
  /** Of changed_files, those not committed when the packet was made (absent: none, or an older packet). */
  uncommitted_files?: string[];
  created_at: string;
  provider: string;
  superseded_at?: string;
  merge_base_error?: string;
}

export interface VerificationRow {
  claim: string;
  probe: string;
  result: string;
}

/** The caller's prose; empty strings are sections the packet leaves out. */
export interface PacketProse {
  goal: string;
  acceptance_criteria: string;
  scope_assumptions: string;
  current_state: string;
  next_action: string;
  verification: VerificationRow[];
  /**
   * Sections a person added under headings the packet does not know (`## Notes`…): heading → text,
   * verbatim, in file order. Never folded into a known section; carried over when create rewrites
   * the packet. (Object keys that look like integers are listed first: that is how JSON objects order.)
   */
  extra_sections: Record<string, string>;
}

export interface Packet {
  verified: PacketFacts;
  asserted: PacketProse;
}

export type ProseField = Exclude<keyof PacketProse, 'verification' | 'extra_sections'>;

/** Body sections in their fixed order. */
export const SECTIONS: ReadonlyArray<readonly [ProseField, string]> = [
  ['goal', 'Goal'],
  ['acceptance_criteria', 'Acceptance criteria'],
  ['scope_assumptions', 'Scope assumptions'],
  ['current_state', 'Current state'],
  ['next_action', 'Next action'],
];
const VERIFICATION_TITLE = 'Verification';

/** UTF-8 byte length, the unit of both caps. */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The packet slug of a branch: `/` becomes `-`. */
export function slugOfBranch(branch: string): string {
  return branch.replaceAll('/', '-');
}

const SLUG_CHARS = /^[^./\\\s\p{Cc}:~^?*[][^/\\\s\p{Cc}:~^?*[]*$/u;

/** Says why `slug` cannot name a packet file (traversal, separators, hidden, empty), or undefined if it can. */
export function slugProblem(slug: string): string | undefined {
  if (slug.length === 0) return 'the slug is empty';
  if (slug.length > 200) return 'the slug is longer than 200 characters';
  if (slug.includes('..')) return 'the slug contains ".."';
  if (slug.includes('/') || slug.includes('\\')) return 'the slug contains a path separator';
  if (slug.startsWith('.')) return 'the slug starts with "." (hidden or relative)';
  if (!SLUG_CHARS.test(slug)) return 'the slug contains characters a branch name cannot hold';
  return undefined;
}

/** The repo-relative path of a slug's packet. */
export function packetPath(slug: string): string {
  return `${PACKET_DIR}/${slug}.md`;
}

const escapeCell = (text: string): string => text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '\\n');
const unescapeCell = (text: string): string => text.replace(/\\([\\|n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
// A prose line that looks like a section heading gets one more leading backslash, so parsing is exact.
const escapeProse = (text: string): string => text.replace(/^(\\*## )/gm, '\\$1');
const unescapeProse = (text: string): string => text.replace(/^\\(\\*## )/gm, '$1');

/** True when a prose field would appear in the body. */
export function hasText(text: string | undefined): text is string {
  return text !== undefined && text.trim() !== '';
}

/**
 * Renders the full packet file: frontmatter, title, then only the non-empty known sections in fixed
 * order, the verification table, and last the sections a person added, verbatim in their order.
 */
export function renderPacket(packet: Packet): string {
  const facts = packet.verified;
  const front: Record<string, unknown> = {
    branch: facts.branch,
    head_sha: facts.head_sha,
    base_ref: facts.base_ref,
    merge_base: facts.merge_base,
    changed_files: facts.changed_files,
    ...(facts.uncommitted_files?.length ? { uncommitted_files: facts.uncommitted_files } : {}),
    created_at: facts.created_at,
    provider: facts.provider,
  };
  if (facts.superseded_at !== undefined) front.superseded_at = facts.superseded_at;
  if (facts.merge_base_error !== undefined) front.merge_base_error = facts.merge_base_error;
  const parts = [`---\n${stringifyYaml(front, { lineWidth: 0 })}---\n`, `# Handoff: ${facts.branch}\n`];
  for (const [key, title] of SECTIONS) {
    const text = packet.asserted[key];
    if (hasText(text)) parts.push(`## ${title}\n\n${escapeProse(text)}\n`);
  }
  const rows = packet.asserted.verification;
  if (rows.length > 0) {
    const lines = [
      '| claim | probe | result |',
      '| --- | --- | --- |',
      ...rows.map((r) => `| ${escapeCell(r.claim)} | ${escapeCell(r.probe)} | ${escapeCell(r.result)} |`),
    ];
    parts.push(`## ${VERIFICATION_TITLE}\n\n${lines.join('\n')}\n`);
  }
  for (const [heading, text] of Object.entries(packet.asserted.extra_sections)) parts.push(`## ${heading}\n\n${text}\n`);
  return parts.join('\n');
}

const FrontMatter = z.object({
  branch: z.string().min(1),
  head_sha: z.string().regex(/^[0-9a-f]{40,64}$/),
  base_ref: z.string(),
  merge_base: z
    .string()
    .regex(/^[0-9a-f]{40,64}$/)
    .nullable(),
  changed_files: z.array(z.string()),
  uncommitted_files: z.array(z.string()).optional(),
  created_at: z.string().refine((s) => !Number.isNaN(parseUtc(s)), 'not a timestamp'),
  provider: z.string(),
  superseded_at: z.string().optional(),
  merge_base_error: z.string().optional(),
});

const Prose = z.object({
  goal: z.string(),
  acceptance_criteria: z.string(),
  scope_assumptions: z.string(),
  current_state: z.string(),
  next_action: z.string(),
  verification: z.array(z.object({ claim: z.string(), probe: z.string(), result: z.string() })),
  // Optional: checkpoints built before person-added sections were kept carry none.
  extra_sections: z.record(z.string(), z.string()).optional(),
});

/** Checks that a value (e.g. from an unsealed checkpoint) is a packet object. */
export function isPacket(value: unknown): value is Packet {
  const v = value as { verified?: unknown; asserted?: unknown } | null;
  return typeof v === 'object' && v !== null && FrontMatter.safeParse(v.verified).success && Prose.safeParse(v.asserted).success;
}

/** Parses a timestamp to epoch ms; a naive one (no zone) is read as UTC. NaN when unparseable. */
export function parseUtc(stamp: string): number {
  const naive = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$/.test(stamp.trim());
  const text = stamp.trim().replace(' ', 'T');
  if (!naive) return Date.parse(text);
  return Date.parse(text.includes('T') ? `${text}Z` : `${text}T00:00:00Z`);
}

export type ParsedPacket = { ok: true; packet: Packet } | { ok: false; message: string };

/** Parses a packet file; anything without valid frontmatter is a value saying why. */
export function parsePacket(text: string): ParsedPacket {
  const normalized = text.replace(/\r\n/g, '\n');
  const match = /^---\n([\s\S]*?\n)?---\n?([\s\S]*)$/.exec(normalized);
  if (!match) return { ok: false, message: 'the packet has no YAML frontmatter' };
  let data: unknown;
  try {
    data = parseYaml(match[1] ?? '');
  } catch (error) {
    return { ok: false, message: `the frontmatter is not valid YAML: ${(error as Error).message.split('\n')[0]}` };
  }
  const front = FrontMatter.safeParse(data);
  if (!front.success) {
    const issue = front.error.issues[0];
    return {
      ok: false,
      message: `the frontmatter is incomplete: ${issue ? `${issue.path.join('.') || 'root'}: ${issue.message}` : 'invalid'}`,
    };
  }
  const { superseded_at, merge_base_error, uncommitted_files, ...facts } = front.data;
  const verified: PacketFacts = { ...facts };
  if (uncommitted_files !== undefined) verified.uncommitted_files = uncommitted_files;
  if (superseded_at !== undefined) verified.superseded_at = superseded_at;
  if (merge_base_error !== undefined) verified.merge_base_error = merge_base_error;
  return { ok: true, packet: { verified, asserted: parseBody(match[2] ?? '') } };
}

/** A level-2 heading line (`## Title`); its title, or undefined when the line is not one. */
function headingOf(line: string): string | undefined {
  const match = /^## (.*\S)\s*$/.exec(line);
  return match?.[1];
}

/** A section's lines without the "heading, blank, text, blank" framing the renderer adds. */
function unframed(lines: string[]): string {
  const inner = lines.slice(lines[0] === '' ? 1 : 0);
  if (inner[inner.length - 1] === '') inner.pop();
  return inner.join('\n');
}

function parseBody(body: string): PacketProse {
  const titles = new Map<string, ProseField | 'verification'>([
    ...SECTIONS.map(([k, t]) => [`## ${t}`, k] as const),
    [`## ${VERIFICATION_TITLE}`, 'verification'],
  ]);
  const sections = new Map<ProseField | 'verification', string[]>();
  // Unknown headings start a section of their own (file order), never the tail of the previous one.
  const extra = new Map<string, string[][]>();
  let current: string[] | undefined;
  for (const line of body.split('\n')) {
    const key = titles.get(line);
    const heading = key === undefined ? headingOf(line) : undefined;
    if (key) {
      current = [];
      sections.set(key, current);
    } else if (heading !== undefined) {
      current = [];
      extra.set(heading, [...(extra.get(heading) ?? []), current]);
    } else if (current) {
      current.push(line);
    }
  }
  const prose = (key: ProseField): string => {
    const lines = sections.get(key);
    return lines ? unescapeProse(unframed(lines)) : '';
  };
  // A heading a person used twice keeps both texts, joined by the heading again (so a re-render reads back the same).
  const extraSections = Object.fromEntries(
    [...extra].map(([heading, texts]) => [heading, texts.map(unframed).join(`\n\n## ${heading}\n\n`)] as const),
  );
  return {
    goal: prose('goal'),
    acceptance_criteria: prose('acceptance_criteria'),
    scope_assumptions: prose('scope_assumptions'),
    current_state: prose('current_state'),
    next_action: prose('next_action'),
    verification: parseTable(sections.get('verification') ?? []),
    extra_sections: extraSections,
  };
}

function parseTable(lines: string[]): VerificationRow[] {
  const rows = lines.filter((l) => l.trimStart().startsWith('|')).map(splitRow);
  return rows
    .slice(2)
    .filter((cells) => cells.length >= 2)
    .map((cells) => ({ claim: cells[0] ?? '', probe: cells[1] ?? '', result: cells[2] ?? NOT_RUN }));
}

function splitRow(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  const text = line.trim();
  for (let i = 1; i < text.length; i += 1) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      cell += c + text[i + 1]!;
      i += 1;
    } else if (c === '|') {
      cells.push(cell);
      cell = '';
    } else {
      cell += c;
    }
  }
  return cells.map((raw) => unescapeCell(raw.replace(/^ /, '').replace(/ $/, '')));
}
