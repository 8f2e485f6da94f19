/**
 * Bench support: a Claude Code transcript grown to a chosen size in the real CLI's line shapes (those
 * of cli-session-files.ts, recorded from Claude Code 2.1.332): turns of a prompt, a Write tool call
 * and its result, and a reply, each with its queue-operation / api-request / last-prompt lines,
 * threaded by uuid / parentUuid after what the file already holds. Written a batch of turns at a
 * time, so the bench never holds the file whole.
 */
import { randomUUID } from 'node:crypto';
import { appendFile, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

const WORDS = (
  'the parser test fails when a quoted field holds a comma so split on commas outside quotes and keep ' +
  'the escaped quotes then run the suite again check the fixtures under src and update the snapshot ' +
  'if the expected output changed the flaky case came from a timer that was not awaited before the assert'
).split(' ');

/** A deterministic pseudo-random word stream (xorshift), so every run writes the same shapes. */
function prose(seed: number, words: number): string {
  let x = seed | 1;
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out.push(WORDS[(x >>> 0) % WORDS.length]!);
    if (i % 14 === 13) out.push('.\n');
  }
  return out.join(' ');
}

/** The last `uuid` among the file's lines (the message new turns follow), or null. */
function lastUuid(text: string): string | null {
  let last: string | null = null;
  for (const line of text.split('\n')) {
    try {
      const uuid = (JSON.parse(line) as { uuid?: unknown }).uuid;
      if (typeof uuid === 'string') last = uuid;
    } catch {
      // not a line
    }
  }
  return last;
}

/**
 * Appends turns to Claude session `sessionId`'s transcript at `path` (its workspace `cwd`) until the
 * file holds at least `bytes`; resolves with its size.
 */
export async function growClaudeTranscript(path: string, options: { sessionId: string; cwd: string; bytes: number }): Promise<number> {
  const { sessionId, cwd } = options;
  let parent = lastUuid(await readFile(path, 'utf8'));
  let size = (await stat(path)).size;
  let clock = Date.now();
  const at = () => new Date((clock += 150)).toISOString();
  const common = { isSidechain: false, userType: 'external', cwd, sessionId, version: '2.1.332', gitBranch: 'main' };
  let turn = 0;
  while (size < options.bytes) {
    const lines: string[] = [];
    const push = (value: object) => lines.push(`${JSON.stringify(value)}\n`);
    const message = (type: 'user' | 'assistant', content: unknown, extra: object = {}) => {
      const uuid = randomUUID();
      push({ parentUuid: parent, ...common, type, message: { role: type, content }, uuid, timestamp: at(), ...extra });
      parent = uuid;
      return uuid;
    };
    // About a MiB of turns per write.
    for (let i = 0; i < 128; i++, turn++) {
      const prompt = `Step ${turn}: ${prose(turn * 7 + 1, 40)}`;
      push({ type: 'queue-operation', operation: 'enqueue', timestamp: at(), sessionId });
      message('user', [{ type: 'text', text: prompt }], { promptSource: 'sdk', entrypoint: 'sdk-cli', permissionMode: 'acceptEdits' });
      push({ type: 'api-request', timestamp: at(), sessionId });
      const toolId = `toolu_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
      const filePath = join(cwd, `notes/step-${turn}.md`);
      const content = prose(turn * 7 + 3, 300);
      message('assistant', [{ type: 'tool_use', id: toolId, name: 'Write', input: { file_path: filePath, content } }]);
      message('user', [{ tool_use_id: toolId, type: 'tool_result', content: `File created successfully at: ${filePath}` }], {
        toolUseResult: { type: 'create', filePath, content },
      });
      const last = message('assistant', [{ type: 'text', text: prose(turn * 7 + 5, 700) }]);
      push({ type: 'last-prompt', lastPrompt: prompt, leafUuid: last, sessionId });
    }
    const text = lines.join('');
    await appendFile(path, text);
    size += Buffer.byteLength(text);
  }
  return size;
}
