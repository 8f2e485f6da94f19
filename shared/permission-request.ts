/**
 * What an agent asks before a tool use its session's permission level does not allow outright, and
 * the answer it gets — the provider-level half of a permission request (shared/provider.ts carries
 * them: the `permission-request` and `permission-cancelled` events, `ProviderSession.answerPermission`).
 *
 * The flow, whatever the CLI:
 * 1. The adapter reads its CLI's own ask (Claude's `control_request` `can_use_tool`, Codex's
 *    `item/commandExecution/requestApproval` or `item/fileChange/requestApproval`) and emits
 *    `{ type: 'permission-request', request }` with a `PermissionRequest`. The CLI keeps waiting.
 * 2. The runtime shows it (on every device of the account), or answers it itself when one of the
 *    session's "Allow for this session" rules covers it (`ruleCovers`), then calls
 *    `answerPermission(request.id, answer)` exactly once.
 * 3. The adapter writes the CLI's own answer (Claude `control_response` allow/deny with the message;
 *    Codex `accept` / `decline`). `allow-session` is an allow to the adapter: the runtime remembers
 *    the rule (it travels sealed with the session on a Move), so the adapter need not — it may also
 *    tell its CLI when the CLI has a session-wide answer of its own.
 * 4. When the adapter stops waiting without an answer (the CLI withdrew the ask, the turn's process
 *    ended, the session stopped) it emits `{ type: 'permission-cancelled', requestId, reason }`; a
 *    later answer to that id is refused with `request_not_pending`.
 *
 * Nothing here is sent in clear: requests and answers cross devices sealed (tool, command, paths and
 * diffs are content).
 */
import { z } from 'zod';

/** The longest command, path or detail a request carries (characters); longer ones are cut with "…". */
export const PERMISSION_TEXT_MAX = 4000;
/** The longest diff a request carries (characters); a longer one is cut with a line saying so. */
export const PERMISSION_DIFF_MAX = 64_000;

/**
 * What "Allow for this session" remembers: every later use of `tool` — or, when `commandPrefix` is
 * set, every command that is that prefix, or that prefix followed by a space and plain arguments
 * (no `;`, `&`, `|`, redirection, substitution or newline: `ruleCovers`).
 */
export interface PermissionRule {
  /** The tool, in the CLI's own name, as in PermissionRequest.tool. */
  tool: string;
  commandPrefix?: string;
}

export const PermissionRuleSchema = z.strictObject({
  tool: z.string().min(1).max(200),
  commandPrefix: z.string().min(1).max(PERMISSION_TEXT_MAX).optional(),
}) satisfies z.ZodType<PermissionRule>;

/** One pending ask of an agent, as its adapter reports it. */
export interface PermissionRequest {
  /**
   * The adapter's id for this ask (Claude's control `request_id`, Codex's JSON-RPC request id, as a
   * string), unique in the session while it is pending: answerPermission takes it back.
   */
  id: string;
  /** The agent that asks: an agent map id (the main agent, or a subagent). */
  agent: string;
  /** The tool, in the CLI's own name: "Bash", "Edit", "Write", Codex "commandExecution", "fileChange". */
  tool: string;
  /** The exact command line, when it asks to run a command. */
  command?: string;
  /** The file a change touches (the first, when it touches several: the diff shows them all). */
  path?: string;
  /** The change as a unified diff (or a new file's content), when it asks to change files. */
  diff?: string;
  /** Any other tool input, briefly (e.g. a URL to fetch), when there is neither command nor file. */
  detail?: string;
  /** Why the CLI asks, in its own words, when it says. */
  reason?: string;
  /**
   * What "Allow for this session" would remember, best first (from the CLI's own suggestions where
   * it makes them); absent or empty: the runtime remembers `{ tool, commandPrefix: command }`.
   */
  suggestions?: PermissionRule[];
}

export const PermissionRequestSchema = z.strictObject({
  id: z.string().min(1).max(200),
  agent: z.string().min(1).max(200),
  tool: z.string().min(1).max(200),
  command: z.string().max(PERMISSION_TEXT_MAX).optional(),
  path: z.string().max(PERMISSION_TEXT_MAX).optional(),
  diff: z.string().max(PERMISSION_DIFF_MAX).optional(),
  detail: z.string().max(PERMISSION_TEXT_MAX).optional(),
  reason: z.string().max(PERMISSION_TEXT_MAX).optional(),
  suggestions: z.array(PermissionRuleSchema).max(10).optional(),
}) satisfies z.ZodType<PermissionRequest>;

/** allow: this once; allow-session: this once, and the rule from now on in this session; deny: refuse it. */
export const PermissionDecision = z.enum(['allow', 'allow-session', 'deny']);
export type PermissionDecision = z.infer<typeof PermissionDecision>;

/** The answer to one request. `message` goes back to the agent with a deny (why, or what to do instead). */
export interface PermissionAnswer {
  decision: PermissionDecision;
  message?: string;
}

export const PermissionAnswerSchema = z.strictObject({
  decision: PermissionDecision,
  message: z.string().max(PERMISSION_TEXT_MAX).optional(),
}) satisfies z.ZodType<PermissionAnswer>;

/** Cuts `text` to `max` characters, marking the cut. */
export function clipPermissionText(text: string, max = PERMISSION_TEXT_MAX): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Characters after which a command is no longer "the prefix with plain arguments". */
const SHELL_CONTROL = /[;&|<>`$(){}\n\r\\]/;

/** The rule "Allow for this session" remembers for `request`: its first suggestion, else its tool and exact command. */
export function sessionRuleFor(request: PermissionRequest): PermissionRule {
  const suggested = request.suggestions?.[0];
  if (suggested) return suggested;
  return request.command === undefined || request.command === ''
    ? { tool: request.tool }
    : { tool: request.tool, commandPrefix: request.command };
}

/**
 * True when `rule` allows `request` without asking: the same tool, and no prefix, or a command that
 * is the prefix or the prefix, a space and arguments free of shell control characters — so
 * `npm test` covers `npm test -- --watch` but never `npm test; rm -rf ~` or `npm test && curl …`.
 */
export function ruleCovers(rule: PermissionRule, request: PermissionRequest): boolean {
  if (rule.tool !== request.tool) return false;
  if (rule.commandPrefix === undefined) return true;
  const command = request.command;
  if (command === undefined) return false;
  if (command === rule.commandPrefix) return true;
  if (!command.startsWith(`${rule.commandPrefix} `)) return false;
  return !SHELL_CONTROL.test(command.slice(rule.commandPrefix.length));
}
