/**
 * Claude Code's transcript file (one JSON object a line: `summary`, `user`, `assistant`, … lines
 * threaded by `uuid` / `parentUuid`): reading it into the agent map and transcript, and — one line
 * at a time, for transcripts of any size — checking it is resumable and moving its `cwd` fields to
 * another workspace.
 */
import type { AgentView, TranscriptEntry } from '../../../shared/agents.ts';
import { fail, ok, type Result } from '../../../shared/errors.ts';
import { forEachLine } from '../../io/line-reader.ts';
import type { LinePart } from '../../io/line-writer.ts';
import { movePath, readableLines, type JsonLine } from '../json-lines.ts';
import { SessionState } from '../session-state.ts';
import { MAIN_AGENT, MessageFolder } from './message-folder.ts';

function timestampOf(line: JsonLine, fallback: number): number {
  const parsed = typeof line.timestamp === 'string' ? Date.parse(line.timestamp) : NaN;
  return Number.isNaN(parsed) ? fallback : parsed;
}

/**
 * Folds transcript lines into the agent map and transcript: the main agent, one subagent per
 * `Task` call (done once its tool_result is in), and the user/assistant/tool entries. Sidechain lines
 * (a subagent's own messages) are left to the subagent. `keepEntries` false keeps only the agents.
 */
export class TranscriptFold {
  private at = 0;
  private readonly state: SessionState;
  private readonly folder: MessageFolder;
  sessionId: string | null = null;

  constructor(keepEntries = true) {
    this.state = new SessionState(() => this.at, 'claude', keepEntries);
    this.folder = new MessageFolder(this.state, { userText: true });
  }

  line(line: JsonLine): void {
    if ((line.type !== 'user' && line.type !== 'assistant') || line.isSidechain === true) return;
    this.at = timestampOf(line, this.at);
    if (typeof line.sessionId === 'string') this.sessionId = line.sessionId;
    if (!this.state.agent(MAIN_AGENT))
      this.state.upsertAgent({ id: MAIN_AGENT, parentId: null, name: 'Claude Code', role: 'main', status: 'waiting' });
    const message = line.message as Record<string, unknown> | undefined;
    this.folder.fold(line.type, message?.content, null);
  }

  snapshot(): { agents: AgentView[]; transcript: TranscriptEntry[] } {
    return this.state.snapshot();
  }
}

/** Reads a transcript's text into the agent map and transcript; unreadable lines are skipped. */
export function readTranscript(text: string): { agents: AgentView[]; transcript: TranscriptEntry[]; sessionId: string | null } {
  const fold = new TranscriptFold();
  for (const line of readableLines(text)) fold.line(line);
  return { ...fold.snapshot(), sessionId: fold.sessionId };
}

/** Reads a transcript file line by line (never the whole file as one string) into the agent map and transcript. */
export async function readTranscriptFile(
  path: string,
): Promise<{ agents: AgentView[]; transcript: TranscriptEntry[]; sessionId: string | null }> {
  const fold = new TranscriptFold();
  await forEachLine(path, (raw) => {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return; // blank or damaged line
    }
    if (value && typeof value === 'object' && !Array.isArray(value)) fold.line(value as JsonLine);
  });
  return { ...fold.snapshot(), sessionId: fold.sessionId };
}

const CWD_KEY = '"cwd":';
const SESSION_KEY = '"sessionId":';
const CWD_KEY_BYTES = Buffer.from(CWD_KEY);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether offset `at` of a JSON text is outside every string and inside the top-level object only;
 * `codeAt`: its character codes, or its UTF-8 bytes (every character looked at here is one byte there).
 */
function atTopLevel(codeAt: (i: number) => number, at: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < at; i += 1) {
    const c = codeAt(i);
    if (inString) {
      if (c === BACKSLASH) i += 1;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === 0x7b || c === 0x5b)
      depth += 1; // { [
    else if (c === 0x7d || c === 0x5d) depth -= 1; // } ]
  }
  return !inString && depth === 1;
}

/**
 * `raw` (a line JSON.parse read as an object whose `cwd` is `from`) with that field holding `to`
 * instead, spliced into the text so the rest of the line keeps its bytes; null when the text does
 * not show it plainly — `"cwd":` not there exactly once, not a top-level key, or not followed by
 * `from` as JSON.stringify writes it — and the line is then written anew. Real transcripts put `cwd`
 * near the start of the line, so the check reads only a short prefix.
 */
export function spliceCwd(raw: string, from: string, to: string): string | null {
  return spliceField(raw, CWD_KEY, from, to);
}

/** spliceCwd for any top-level string field: `key` is its `"name":`. */
function spliceField(raw: string, key: string, from: string, to: string): string | null {
  const value = fieldValueAt(raw, key, from);
  if (value === null) return null;
  return `${raw.slice(0, value)}${JSON.stringify(to)}${raw.slice(value + JSON.stringify(from).length)}`;
}

/** Where `from`'s JSON starts as the value of `raw`'s plainly written top-level `key` (see spliceCwd), or null. */
function fieldValueAt(raw: string, key: string, from: string): number | null {
  const at = raw.indexOf(key);
  if (at < 0 || raw.indexOf(key, at + key.length) >= 0 || !atTopLevel((i) => raw.charCodeAt(i), at)) return null;
  const value = at + key.length;
  return raw.startsWith(JSON.stringify(from), value) ? value : null;
}

/** fieldValueAt for `cwd` over the line's UTF-8 `bytes`, `fromJson` being JSON.stringify(from)'s: the byte offset of the value, or null. */
function cwdValueAtBytes(bytes: Buffer, fromJson: Buffer): number | null {
  const at = bytes.indexOf(CWD_KEY_BYTES);
  if (at < 0 || bytes.indexOf(CWD_KEY_BYTES, at + CWD_KEY_BYTES.length) >= 0 || !atTopLevel((i) => bytes[i]!, at)) return null;
  const value = at + CWD_KEY_BYTES.length;
  return bytes.compare(fromJson, 0, fromJson.length, value, value + fromJson.length) === 0 ? value : null;
}

/**
 * A transcript moving to another workspace, checked and rewritten one line at a time. A transcript
 * is resumable when every line is a JSON object, at least one line has a `uuid`, and every
 * `leafUuid` (summary lines) points at a line's `uuid`. Each line keeps its bytes except its `cwd`,
 * moved from `from` to `to` (subfolders kept), and — for a fork — its `sessionId`, renamed as
 * `claude --fork-session` renames it; only a line whose field cannot be found exactly once in its
 * text is written anew.
 */
export class TranscriptMove {
  private readonly uuids = new Set<string>();
  private readonly leaves = new Set<string>();
  private lines = 0;
  private lastCwd: { cwd: string; json: Buffer } | null = null;

  /** `fold`: also fold each line into it (the agent map of the moved session); `rename`: the session id lines of `rename.from` get. */
  constructor(
    private readonly from: string,
    private readonly to: string,
    private readonly fold?: TranscriptFold,
    private readonly rename?: { from: string; to: string },
  ) {}

  /** The line as it goes to the target ('' for a blank line, which is dropped), or why the file is damaged. */
  take(raw: string, lineNumber: number): Result<string, 'malformed'> {
    const read = this.read(raw, lineNumber);
    if (!read.ok) return read;
    if (read.value === null) return ok('');
    const { line, moved } = read.value;
    return ok(this.rewritten(raw, line, moved));
  }

  /** The session id `line` gets (a fork's), or null when it keeps its own. */
  private renamed(line: JsonLine): string | null {
    return this.rename !== undefined && line.sessionId === this.rename.from ? this.rename.to : null;
  }

  /** `raw` with its cwd moved (`moved`, null: it stays) and its session id renamed, spliced where the fields show plainly. */
  private rewritten(raw: string, line: JsonLine, moved: string | null): string {
    const renamed = this.renamed(line);
    if (moved === null && renamed === null) return raw;
    let text: string | null = raw;
    if (moved !== null) text = spliceCwd(raw, line.cwd as string, moved);
    if (text !== null && renamed !== null) text = spliceField(text, SESSION_KEY, line.sessionId as string, renamed);
    return text ?? JSON.stringify({ ...line, ...(moved !== null && { cwd: moved }), ...(renamed !== null && { sessionId: renamed }) });
  }

  /**
   * The same line as take gives, as parts of `bytes` (the line's UTF-8) around the new cwd, so the
   * rest of the line is copied, not encoded again; no parts for a blank line.
   */
  takeParts(raw: string, lineNumber: number, bytes: Uint8Array): Result<LinePart[], 'malformed'> {
    const read = this.read(raw, lineNumber);
    if (!read.ok) return read;
    if (read.value === null) return ok([]);
    const { line, moved } = read.value;
    // A fork's line (rare: only an import that must not replace what is here) is spliced as text.
    if (this.renamed(line) !== null) return ok([this.rewritten(raw, line, moved)]);
    if (moved === null) return ok([bytes]);
    // Looked for in the bytes (the string's search would read the line a second time).
    const fromJson = this.jsonOf(line.cwd as string);
    const value = cwdValueAtBytes(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), fromJson);
    if (value === null) return ok([JSON.stringify({ ...line, cwd: moved })]);
    return ok([bytes.subarray(0, value), JSON.stringify(moved), bytes.subarray(value + fromJson.length)]);
  }

  /** JSON.stringify(cwd) as UTF-8, kept for the next line (a transcript's lines mostly share their cwd). */
  private jsonOf(cwd: string): Buffer {
    if (this.lastCwd?.cwd !== cwd) this.lastCwd = { cwd, json: Buffer.from(JSON.stringify(cwd)) };
    return this.lastCwd.json;
  }

  /** Checks and counts one line: null for a blank one, else the line and its moved cwd (null when it stays). */
  private read(raw: string, lineNumber: number): Result<{ line: JsonLine; moved: string | null } | null, 'malformed'> {
    if (raw.charCodeAt(0) !== 0x7b && raw.trim() === '') return ok(null); // '{' starts every line but a blank one
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return fail('malformed', `line ${lineNumber} is not JSON`);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) return fail('malformed', `line ${lineNumber} is not a JSON object`);
    const line = value as JsonLine;
    this.lines += 1;
    if (typeof line.uuid === 'string') this.uuids.add(line.uuid);
    if (line.leafUuid !== undefined) this.leaves.add(typeof line.leafUuid === 'string' ? line.leafUuid : String(line.leafUuid));
    this.fold?.line(line);
    if (typeof line.cwd !== 'string') return ok({ line, moved: null });
    const moved = movePath(line.cwd, this.from, this.to);
    return ok({ line, moved: moved === line.cwd ? null : moved });
  }

  /** Whether what was taken is resumable; resolves to the number of lines. */
  finish(): Result<number, 'not_resumable'> {
    if (this.uuids.size === 0) return fail('not_resumable', 'The Claude transcript has no message lines (no line has a uuid).');
    for (const leaf of this.leaves) {
      if (!this.uuids.has(leaf))
        return fail('not_resumable', `The Claude transcript's summary points at a message that is not in it (leafUuid ${leaf}).`);
    }
    return ok(this.lines);
  }
}
