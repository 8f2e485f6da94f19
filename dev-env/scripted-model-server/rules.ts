/**
 * The scripted model's rule table: a deterministic reply for the conversation a request carries,
 * keyed on the newest user text. When the newest input is a tool result, the reply is the turn's
 * closing text instead of another call.
 *
 *   say hello                      → "Hello from the scripted model."
 *   write file NAME with TEXT      → Write (Claude) / apply_patch (Codex) / create (Copilot) / write_file (Qwen),
 *                                    then "Wrote NAME."
 *   … using shell                  → Codex: the shell tool instead of apply_patch
 *   edit file NAME replacing A with B → Edit (Claude) / apply_patch's Update File (Codex) / edit (Copilot, Qwen),
 *                                    then "Edited NAME."
 *   run command CMD                → Bash (Claude) / the shell tool (Codex) / bash (Copilot) / run_shell_command
 *                                    (Qwen), then "Command output: …"
 *   run command twice CMD          → the same call again after its result, then "Command output: …"
 *   use a subagent                 → Claude's Agent (older: Task) tool; the subagent is told "subagent: say hello"
 *   subagent: …                    → "Hello from the subagent."
 *   slow                           → a long text streamed in small delayed chunks (to interrupt)
 *   what did I say first?          → "I remember: <first user text of the received conversation>"
 *   Managed memory directory: …    → "Nothing durable to remember." (Qwen Code's memory extraction after a turn)
 *   error NNN                      → an HTTP NNN error in the API's own error format
 *   a failed tool result           → "The tool call failed: <result>"
 *   anything else                  → "Scripted reply to: <text>"
 *
 * A paragraph Baton puts ahead of the person's words (its note after a move, "Baton: …") is not
 * part of what the rules match; the "anything else" reply still quotes the whole text.
 */
import { isAbsolute, join } from 'node:path';
import type { Conversation, Json } from './conversation.ts';

export type Reply =
  | { kind: 'text'; text: string; slow?: boolean }
  | { kind: 'tool'; name: string; input: Json | string; custom?: boolean }
  | { kind: 'error'; status: number; message: string };

/** Single-quotes a string for a POSIX shell. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function offered(conv: Conversation, names: string[]): string | undefined {
  return names.find((name) => conv.tools.includes(name));
}

/** A call of whichever shell tool the request offers (Claude's Bash, Codex's exec_command or older forms, Copilot's bash, Qwen's run_shell_command). */
function shellCall(conv: Conversation, command: string): Reply {
  switch (offered(conv, ['Bash', 'bash', 'run_shell_command', 'exec_command', 'shell_command', 'shell'])) {
    case 'Bash':
    case 'bash':
    case 'run_shell_command': {
      const name = offered(conv, ['Bash', 'bash', 'run_shell_command']) ?? 'Bash';
      return { kind: 'tool', name, input: { command, description: 'Run the scripted command' } };
    }
    case 'exec_command':
      return { kind: 'tool', name: 'exec_command', input: { cmd: command } };
    case 'shell_command':
      return { kind: 'tool', name: 'shell_command', input: { command } };
    case 'shell':
      return { kind: 'tool', name: 'shell', input: { command: ['bash', '-lc', command] } };
    default:
      return { kind: 'text', text: `No shell tool was offered (tools: ${conv.tools.join(', ')}).` };
  }
}

/** `name` as an absolute path in the agent's working directory (when the request names one). */
function inCwd(conv: Conversation, name: string): string {
  return isAbsolute(name) || conv.cwd === null ? name : join(conv.cwd, name);
}

/** A call that writes `name` with `text`: Claude's Write, Copilot's create, Qwen's write_file, Codex's apply_patch, else a shell command. */
function writeCall(conv: Conversation, name: string, text: string, forceShell: boolean): Reply {
  const path = inCwd(conv, name);
  if (conv.tools.includes('Write')) return { kind: 'tool', name: 'Write', input: { file_path: path, content: `${text}\n` } };
  if (conv.tools.includes('create')) return { kind: 'tool', name: 'create', input: { path, file_text: `${text}\n` } };
  if (conv.tools.includes('write_file')) return { kind: 'tool', name: 'write_file', input: { file_path: path, content: `${text}\n` } };
  if (!forceShell && conv.tools.includes('apply_patch')) {
    const patch = `*** Begin Patch\n*** Add File: ${name}\n+${text}\n*** End Patch\n`;
    return { kind: 'tool', name: 'apply_patch', input: patch, custom: true };
  }
  return shellCall(conv, `printf '%s\\n' ${shellQuote(text)} > ${shellQuote(name)}`);
}

/**
 * A call that replaces `before` by `after` in `name`: Claude's Edit, Copilot's edit (beside its
 * create), Qwen's edit (beside its write_file), Codex's apply_patch (an Update File hunk).
 */
function editCall(conv: Conversation, name: string, before: string, after: string): Reply {
  const path = inCwd(conv, name);
  if (conv.tools.includes('Edit')) return { kind: 'tool', name: 'Edit', input: { file_path: path, old_string: before, new_string: after } };
  if (conv.tools.includes('edit') && conv.tools.includes('create'))
    return { kind: 'tool', name: 'edit', input: { path, old_str: before, new_str: after } };
  if (conv.tools.includes('edit')) return { kind: 'tool', name: 'edit', input: { file_path: path, old_string: before, new_string: after } };
  if (conv.tools.includes('apply_patch')) {
    const patch = `*** Begin Patch\n*** Update File: ${name}\n@@\n-${before}\n+${after}\n*** End Patch\n`;
    return { kind: 'tool', name: 'apply_patch', input: patch, custom: true };
  }
  return { kind: 'text', text: `No edit tool was offered (tools: ${conv.tools.join(', ')}).` };
}

/** A subagent call: Claude's Agent tool (Task in older releases), run in the foreground. */
function subagentCall(conv: Conversation): Reply {
  const name = offered(conv, ['Agent', 'Task']);
  if (name === undefined) return { kind: 'text', text: `No subagent tool was offered (tools: ${conv.tools.join(', ')}).` };
  const input = {
    description: 'Scripted subagent',
    prompt: 'subagent: say hello',
    subagent_type: 'general-purpose',
    run_in_background: false,
  };
  return { kind: 'tool', name, input };
}

const WRITE = /^write file (\S+) with ([\s\S]+?)( using shell)?$/i;
const RUN = /^run command ([\s\S]+)$/i;
const RUN_TWICE = /^run command twice ([\s\S]+)$/i;
const EDIT = /^edit file (\S+) replacing (.+?) with (.+)$/i;

/** The person's words of a user text: without the note paragraph Baton may put ahead of them. */
export function personsWords(text: string): string {
  const noteEnd = text.indexOf('\n\n');
  return text.startsWith('Baton: ') && noteEnd > 0 ? text.slice(noteEnd + 2).trimStart() : text;
}

/** The reply to a conversation (see the table at the top of this file). */
export function decide(conv: Conversation): Reply {
  const text = conv.userTexts.at(-1) ?? '';
  const prompt = personsWords(text);
  const write = WRITE.exec(prompt);
  const twice = RUN_TWICE.exec(prompt);
  if (conv.toolResult !== null) {
    const result = conv.toolResult.text.trim();
    if (conv.toolResult.isError) return { kind: 'text', text: `The tool call failed: ${result}` };
    if (twice && conv.toolRounds < 2) return shellCall(conv, twice[1] ?? 'true');
    if (write) return { kind: 'text', text: `Wrote ${write[1]}.` };
    const edited = EDIT.exec(prompt);
    if (edited) return { kind: 'text', text: `Edited ${edited[1]}.` };
    if (/^use a subagent/i.test(prompt)) return { kind: 'text', text: `The subagent answered: ${result}` };
    return { kind: 'text', text: `Command output: ${result}` };
  }
  if (write) return writeCall(conv, write[1] ?? 'out.txt', write[2] ?? '', write[3] !== undefined);
  const run = twice ?? RUN.exec(prompt);
  if (run) return shellCall(conv, run[1] ?? 'true');
  const edit = EDIT.exec(prompt);
  if (edit) return editCall(conv, edit[1] ?? 'out.txt', edit[2] ?? '', edit[3] ?? '');
  if (/^say hello/i.test(prompt)) return { kind: 'text', text: 'Hello from the scripted model.' };
  if (/^use a subagent/i.test(prompt)) return subagentCall(conv);
  if (/^subagent:/i.test(prompt)) return { kind: 'text', text: 'Hello from the subagent.' };
  if (/^slow/i.test(prompt)) return { kind: 'text', text: '', slow: true };
  if (/^Managed memory directory:/.test(prompt)) return { kind: 'text', text: 'Nothing durable to remember.' };
  if (/^what did i say first\??$/i.test(prompt)) return { kind: 'text', text: `I remember: ${conv.userTexts[0] ?? '(nothing)'}` };
  const error = /^error (\d{3})$/i.exec(prompt);
  if (error) return { kind: 'error', status: Number(error[1]), message: `Scripted error ${error[1]}` };
  return { kind: 'text', text: `Scripted reply to: ${text}` };
}

/** A short description of a reply for the request record, e.g. "text", "tool Write", "http 400". */
export function describeReply(reply: Reply): string {
  if (reply.kind === 'error') return `http ${reply.status}`;
  if (reply.kind === 'tool') return `tool ${reply.name}`;
  return reply.slow === true ? 'text (slow)' : 'text';
}
