/**
 * The part of Codex's app-server protocol (JSON-RPC over stdio, `codex app-server`) the adapter
 * speaks, written once from what Codex 0.171.0 prints with `codex app-server generate-ts` (v2 types;
 * only the fields Baton reads or sends). app-server-protocol.test.ts checks each method and decision
 * named here against the pinned CLI's `generate-json-schema`.
 *
 * Messages are JSON lines without a `jsonrpc` field: requests `{id, method, params}`, responses
 * `{id, result}` or `{id, error: {code, message}}`, notifications `{method, params}`. The server also
 * sends requests (approvals) and waits for the client's response.
 */

export type SandboxMode = 'read-only' | 'workspace-write' | 'danger-full-access';
/** `untrusted`: ask before anything but known-safe reads; `on-request`: the model asks; `never`: never ask. */
export type AskForApproval = 'untrusted' | 'on-request' | 'never';

export type UserInput = { type: 'text'; text: string; text_elements: never[] };

export interface Thread {
  id: string;
  /** Set when the thread was made by forking another. */
  forkedFromId: string | null;
  cwd: string;
  /** The rollout file ([UNSTABLE] in the schema). */
  path: string | null;
}

export interface Turn {
  id: string;
  status: 'completed' | 'interrupted' | 'failed' | 'inProgress';
  error: TurnError | null;
}

export interface TurnError {
  message: string;
  additionalDetails: string | null;
}

export type CommandAction = { type: 'read' | 'listFiles' | 'search' | 'unknown'; command: string };

export type PatchChangeKind = { type: 'add' } | { type: 'delete' } | { type: 'update'; move_path: string | null };
export interface FileUpdateChange {
  path: string;
  kind: PatchChangeKind;
  diff: string;
}

/** The thread items the adapter shows (others are activity only). */
export type ThreadItem =
  | { type: 'userMessage'; id: string }
  | { type: 'agentMessage'; id: string; text: string }
  | {
      type: 'commandExecution';
      id: string;
      command: string;
      cwd: string;
      status: 'inProgress' | 'completed' | 'failed' | 'declined';
      commandActions: CommandAction[];
      aggregatedOutput: string | null;
      exitCode: number | null;
    }
  | { type: 'fileChange'; id: string; changes: FileUpdateChange[]; status: 'inProgress' | 'completed' | 'failed' | 'declined' }
  | { type: 'mcpToolCall'; id: string; server: string; tool: string; error: { message: string } | null }
  | { type: 'webSearch'; id: string; query: string }
  | { type: 'reasoning' | 'plan' | 'contextCompaction'; id: string };

/** Thread settings as thread/start, thread/resume and thread/fork take them. */
export interface ThreadSettings {
  cwd: string;
  approvalPolicy: AskForApproval;
  sandbox: SandboxMode;
}

/** What the client asks: method → [params, result]. */
export interface ClientRequests {
  initialize: [
    { clientInfo: { name: string; title: string | null; version: string }; capabilities: null },
    { userAgent: string; codexHome: string },
  ];
  'thread/start': [ThreadSettings, { thread: Thread }];
  /** Loads the thread's rollout (found by id under CODEX_HOME/sessions) and continues it. */
  'thread/resume': [ThreadSettings & { threadId: string; excludeTurns: boolean }, { thread: Thread }];
  /** A new thread with the history of `threadId` (through `lastTurnId` when given); the source is unchanged. */
  'thread/fork': [ThreadSettings & { threadId: string; lastTurnId?: string; excludeTurns: boolean }, { thread: Thread }];
  'turn/start': [{ threadId: string; input: UserInput[] }, { turn: Turn }];
  /** Adds input to the running turn (its id must still be the active one); the model sees it next. */
  'turn/steer': [{ threadId: string; expectedTurnId: string; input: UserInput[] }, { turnId: string }];
  /** Ends the running turn; turn/completed follows with status `interrupted`. */
  'turn/interrupt': [{ threadId: string; turnId: string }, Record<string, never>];
}

/** What the server tells: method → params. */
export interface ServerNotifications {
  'thread/started': { thread: Thread };
  'turn/started': { threadId: string; turn: Turn };
  'turn/completed': { threadId: string; turn: Turn };
  'item/started': { threadId: string; turnId: string; item: ThreadItem };
  'item/completed': { threadId: string; turnId: string; item: ThreadItem };
  error: { threadId: string; turnId: string; error: TurnError; willRetry: boolean };
  /** A server request was answered or withdrawn (e.g. by an interrupt). */
  'serverRequest/resolved': { threadId: string; requestId: number | string };
}

export type CommandDecision = 'accept' | 'acceptForSession' | 'decline' | 'cancel';
export type FileChangeDecision = 'accept' | 'acceptForSession' | 'decline' | 'cancel';

/** What the server asks the client: method → [params, result]. */
export interface ServerRequests {
  'item/commandExecution/requestApproval': [
    {
      threadId: string;
      turnId: string;
      itemId: string;
      reason?: string | null;
      command?: string | null;
      cwd?: string | null;
      commandActions?: CommandAction[] | null;
    },
    { decision: CommandDecision },
  ];
  /** The change itself is not in the request: it is the fileChange item of `itemId` (item/started came first). */
  'item/fileChange/requestApproval': [
    { threadId: string; turnId: string; itemId: string; reason?: string | null; grantRoot?: string | null },
    { decision: FileChangeDecision },
  ];
}

export type ClientMethod = keyof ClientRequests;
export type ServerRequestMethod = keyof ServerRequests;

/** Every method the adapter uses, by direction (the schema test checks each one). */
export const CODEX_METHODS = {
  client: ['initialize', 'thread/start', 'thread/resume', 'thread/fork', 'turn/start', 'turn/steer', 'turn/interrupt'],
  notifications: ['thread/started', 'turn/started', 'turn/completed', 'item/started', 'item/completed', 'error', 'serverRequest/resolved'],
  serverRequests: ['item/commandExecution/requestApproval', 'item/fileChange/requestApproval'],
} as const satisfies {
  client: readonly ClientMethod[];
  notifications: readonly (keyof ServerNotifications)[];
  serverRequests: readonly ServerRequestMethod[];
};

/** The decisions the adapter sends (the schema test checks both approval responses accept them). */
export const CODEX_DECISIONS: readonly CommandDecision[] = ['accept', 'acceptForSession', 'decline'];
