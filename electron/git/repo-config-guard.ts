/**
 * What keeps a git process Baton starts on its own (readiness, clone finding, prepare, fetch,
 * clone, pin, drift, the MCP tools) from running a command a repository's config names. A
 * repository unpacked from an archive or cloned by a tool can carry such a config; Baton must not
 * run it in the background. The commands the user asks for (Commit, Push) run as the user's own
 * git would and are not guarded (git-runner.ts: `asUser`).
 *
 * Every guarded call, whatever it runs:
 * - `core.fsmonitor=false`, `core.hooksPath=<the null device>` (no hook, global ones included),
 *   `core.pager=cat`, `core.editor=:`, `sequence.editor=:`, no gpg program and no signature check
 *   in `log`, and only the transports git carries itself (GIT_ALLOW_PROTOCOL, below);
 * - no descent into a submodule, whose own config the listing below does not see:
 *   `submodule.recurse` and `fetch.recurseSubmodules` off; `status`, `diff`, `log` and `show` get
 *   `--ignore-submodules=dirty` (the submodule's commit is still compared, from its refs, but no
 *   git runs inside it) and the last three `--submodule=short`; `fetch`, `pull`, `clone`,
 *   `checkout`, `switch` and `reset` get `--no-recurse-submodules` (which also beats a
 *   `submodule.<name>.fetchRecurseSubmodules` of the config or `.gitmodules`); a call may not ask
 *   for recursion, nor run `git submodule`. Readiness looks inside each submodule itself, with a
 *   guarded call there (submodule-status.ts);
 * - `diff`, `log` and `show` get `--no-ext-diff --no-textconv` (`diff.external`,
 *   `diff.<driver>.command` and `.textconv` cannot be switched off by a setting).
 *
 * Transports: GIT_ALLOW_PROTOCOL is `file:git:http:https:ssh` (the user's own GIT_ALLOW_PROTOCOL,
 * when set, is kept as their choice). Any other transport a remote's URL names — `name::address`,
 * `name://`, or one a `url.*.insteadOf` of the repository rewrites to — would start the program
 * `git-remote-<name>` found on the machine; git refuses it instead ("transport 'name' not
 * allowed"), which the runner reports as `transport_refused` (transportRefusal).
 *
 * A call that may read the working tree or a remote (anything but the object reads in
 * OBJECT_READS) first lists the config as git sees it there (`git config --list --show-scope`,
 * which follows `include.path` and `includeIf`, a file included from the repository's config
 * counting as the repository's). Each program the repository's own config (scope local or
 * worktree) names then takes the user's value (system, global or command scope) or none:
 * `filter.<driver>.clean/smudge/process` (and `required`), `merge.<driver>.driver`,
 * `credential.*helper` (the list is reset, then the user's helpers given again in order),
 * `core.sshCommand`, `core.askPass`, `core.gitProxy`, `core.alternateRefsCommand`,
 * `remote.<name>.vcs`, and `remote.<name>.uploadpack` and `.receivepack` (a fetch then names
 * `git-upload-pack`, a push `git-receive-pack`: a setting cannot replace the first one git reads).
 * A clone whose config files hold none of the words those keys are spelled with is read from its
 * files on this thread instead (plainRepoConfig), so a plain repository costs no extra process.
 * Settings go to git as GIT_CONFIG_COUNT pairs, so a key holding `=` (a credential URL) passes whole.
 *
 * Not reached by any command Baton runs on its own, so not listed: `alias.*` (never replaces a
 * built-in), `pager.<cmd>` (pagers need a terminal), `submodule.<name>.update`, `status.submoduleSummary`
 * (long format only), `push.recurseSubmodules` (a guarded call never pushes), `difftool`,
 * `mergetool`, `trailer.*`, `tar.*.command`, `sendemail`, browsers. `uploadpack.packObjectsHook`
 * git itself reads only from the user's config.
 */
import { devNull } from 'node:os';
import { join, resolve } from 'node:path';
import type { SimpleGitOptions } from 'simple-git';
import { pathKind, readSmallText } from '../io/small-reads.ts';

type Capability = keyof NonNullable<SimpleGitOptions['unsafe']>;

/** One setting the guard gives git, and the simple-git capability that lets it through. */
interface Setting {
  key: string;
  value: string;
  needs?: Capability;
}

/** One line of `git config --list --show-scope -z`. */
export interface ConfigEntry {
  scope: string;
  /** As git prints it: section and name lower case, a subsection as written. */
  key: string;
  value: string;
}

/** Lists the config as git sees it in a folder; run without the guard's settings (it starts nothing). */
export const CONFIG_SCAN_ARGS = ['config', '--list', '--show-scope', '-z'] as const;

/** Subcommands that read objects and refs only: no working tree, no remote, no driver. */
const OBJECT_READS = new Set([
  'rev-parse',
  'merge-base',
  'for-each-ref',
  'show-ref',
  'rev-list',
  'update-ref',
  'symbolic-ref',
  'config',
  'branch',
  'var',
  'check-ref-format',
  'ls-tree',
  'log',
  'show',
]);
const DIFF_FAMILY = new Set(['diff', 'log', 'show']);
/** Subcommands that start the remote's upload or receive program, and the flag that names git's own. */
const PACK_PROGRAMS: Record<string, { key: RegExp; flag: string }> = {
  fetch: { key: /^remote\..+\.uploadpack$/, flag: '--upload-pack=git-upload-pack' },
  pull: { key: /^remote\..+\.uploadpack$/, flag: '--upload-pack=git-upload-pack' },
  'ls-remote': { key: /^remote\..+\.uploadpack$/, flag: '--upload-pack=git-upload-pack' },
  push: { key: /^remote\..+\.receivepack$/, flag: '--receive-pack=git-receive-pack' },
};
/** Scopes that are the user's own: anything else is the repository's. */
const USER_SCOPES = new Set(['system', 'global', 'command']);

const ALWAYS: readonly Setting[] = [
  { key: 'core.fsmonitor', value: 'false', needs: 'allowUnsafeFsMonitor' },
  { key: 'core.hooksPath', value: devNull, needs: 'allowUnsafeHooksPath' },
  { key: 'core.pager', value: 'cat', needs: 'allowUnsafePager' },
  { key: 'core.editor', value: ':', needs: 'allowUnsafeEditor' },
  { key: 'sequence.editor', value: ':', needs: 'allowUnsafeEditor' },
  { key: 'gpg.program', value: '', needs: 'allowUnsafeGpgProgram' },
  { key: 'gpg.ssh.program', value: '', needs: 'allowUnsafeGpgProgram' },
  { key: 'gpg.x509.program', value: '', needs: 'allowUnsafeGpgProgram' },
  { key: 'log.showSignature', value: 'false' },
  { key: 'submodule.recurse', value: 'false' },
  { key: 'fetch.recurseSubmodules', value: 'false' },
];

/** The transports git carries itself: local paths and file://, git://, http(s)://, ssh. */
export const ALLOWED_TRANSPORTS = 'file:git:http:https:ssh';

/** Flags that keep a subcommand out of submodules (see the header), put right after it. */
const NO_RECURSION = ['--no-recurse-submodules'] as const;
const NO_DESCENT: Record<string, readonly string[]> = {
  status: ['--ignore-submodules=dirty'],
  diff: ['--ignore-submodules=dirty', '--submodule=short'],
  log: ['--ignore-submodules=dirty', '--submodule=short'],
  show: ['--ignore-submodules=dirty', '--submodule=short'],
  fetch: NO_RECURSION,
  pull: NO_RECURSION,
  clone: NO_RECURSION,
  checkout: NO_RECURSION,
  switch: NO_RECURSION,
  reset: NO_RECURSION,
};

/** A flag that would send git into a submodule: recursion, or a descent the NO_DESCENT flags keep out. */
const DESCENDS = /^--(?:recursive|recurse-submodules(?:=(?!no$).*)?|ignore-submodules=(?!dirty$|all$).*|submodule(?:=(?!short$).*)?)$/;

/**
 * Keys the guard sets or takes back. A `-c` in the call beats the guard's settings (which come
 * from the environment), so a guarded call may not set these itself.
 */
const GUARDED_KEY =
  /^(?:core\.(?:fsmonitor|hookspath|pager|editor|sshcommand|askpass|gitproxy|alternaterefscommand)|sequence\.editor|gpg\..*|log\.showsignature|protocol\..*|submodule\..*|fetch\.recursesubmodules|filter\..*|merge\..*\.driver|diff\..*|credential\..*|remote\..*\.(?:uploadpack|receivepack|vcs)|include\..*|includeif\..*)$/i;

/** Where the subcommand is in `args` (after `-c k=v` and other global flags); -1 when there is none. */
function subcommandAt(args: readonly string[]): number {
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) i += args[i] === '-c' ? 2 : 1;
  return i < args.length ? i : -1;
}

/**
 * Why a guarded call cannot run `args` (with the runner's own `-c` settings): it sets a key the
 * guard keeps, or names an upload or receive program. Undefined when it may run.
 */
export function guardRefusal(args: readonly string[], settings: readonly string[] = []): string | undefined {
  const at = subcommandAt(args);
  const global = at < 0 ? args : args.slice(0, at);
  const keys = [...settings, ...global.filter((_, i) => global[i - 1] === '-c')].map((s) => s.split('=')[0]!.trim());
  for (const arg of global) if (arg.startsWith('--config-env=')) keys.push(arg.slice('--config-env='.length).split('=')[0]!);
  const key = keys.find((k) => GUARDED_KEY.test(k));
  if (key !== undefined) return `Setting ${key} is refused: git started by Baton on its own keeps it.`;
  const pack = args.find((a) => /^--(?:upload|receive)-pack/.test(a));
  if (pack !== undefined) return `${pack.split('=')[0]} is refused: git started by Baton on its own runs no other program.`;
  // Options only: after `--` come paths.
  const options = at < 0 ? [] : args.slice(at + 1);
  const end = options.indexOf('--');
  const descent = args[at] === 'submodule' ? 'git submodule' : (end < 0 ? options : options.slice(0, end)).find((a) => DESCENDS.test(a));
  return descent === undefined ? undefined : `${descent} is refused: git started by Baton on its own never enters a submodule.`;
}

/**
 * The clear sentence for git's refusal of a transport outside ALLOWED_TRANSPORTS, from a failed
 * call's stderr; undefined when git refused none.
 */
export function transportRefusal(stderr: string): string | undefined {
  const name = /transport '([^']+)' not allowed/.exec(stderr)?.[1];
  if (name === undefined) return undefined;
  return (
    `The remote's URL asks for the transport "${name}" (a program git-remote-${name} on this device), which git started by ` +
    `Baton on its own does not run: it uses file, git, http, https and ssh only (GIT_ALLOW_PROTOCOL in Baton's environment allows more).`
  );
}

/** Whether `args` may read the working tree or a remote, so the config must be listed before it runs. */
export function needsConfigScan(args: readonly string[]): boolean {
  const at = subcommandAt(args);
  return at >= 0 && !OBJECT_READS.has(args[at]!);
}

/**
 * Words one of which a config file must hold (in any case) for git to read from it a key the guard
 * takes back: a section or key name is spelled out in plain ASCII, so a file without any of them
 * names none of those programs and includes no other file.
 */
const PROGRAM_WORDS = /filter|driver|helper|sshcommand|askpass|gitproxy|alternaterefs|vcs|uploadpack|receivepack|include/i;

/**
 * True when the repository whose top level is `cwd` certainly sets none of the programs the guard
 * takes back, read from its config files on this thread (no process): `cwd/.git` is the git dir
 * git will use (HEAD, objects and refs there), and neither its config nor its worktree config
 * holds a PROGRAM_WORDS word. False means "list the config" (also for any folder that is not such
 * a top level, or an environment that points git elsewhere).
 */
export function plainRepoConfig(cwd: string, env: NodeJS.ProcessEnv): boolean {
  if (env.GIT_DIR !== undefined || env.GIT_COMMON_DIR !== undefined) return false;
  const dotGit = join(cwd, '.git');
  const kind = pathKind(dotGit);
  const pointer = kind === 'file' ? /^gitdir:\s*(.+)$/m.exec(readSmallText(dotGit) ?? '')?.[1] : undefined;
  const gitDir = kind === 'directory' ? dotGit : pointer ? resolve(cwd, pointer.trim()) : null;
  if (gitDir === null) return false;
  const common = readSmallText(join(gitDir, 'commondir'));
  const commonDir = common ? resolve(gitDir, common) : gitDir;
  if (pathKind(join(gitDir, 'HEAD')) !== 'file' || pathKind(join(commonDir, 'objects')) !== 'directory') return false;
  if (pathKind(join(commonDir, 'refs')) !== 'directory') return false;
  const config = readSmallText(join(commonDir, 'config'));
  const worktree = pathKind(join(gitDir, 'config.worktree')) === null ? '' : readSmallText(join(gitDir, 'config.worktree'));
  return config !== null && worktree !== null && !PROGRAM_WORDS.test(config) && !PROGRAM_WORDS.test(worktree);
}

/** Parses the output of CONFIG_SCAN_ARGS: `scope NUL key LF value NUL` (a key without value has no LF). */
export function parseConfigList(stdout: string): ConfigEntry[] {
  const fields = stdout.split('\0');
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const pair = fields[i + 1]!;
    const newline = pair.indexOf('\n');
    entries.push({
      scope: fields[i]!,
      key: newline < 0 ? pair : pair.slice(0, newline),
      value: newline < 0 ? '' : pair.slice(newline + 1),
    });
  }
  return entries;
}

/** The settings that take back what the repository's own config names (see the header), from `entries`. */
function repoOverrides(
  entries: readonly ConfigEntry[],
  env: NodeJS.ProcessEnv,
): { settings: Setting[]; env: Record<string, string>; keys: string[] } {
  const repo = entries.filter((e) => !USER_SCOPES.has(e.scope));
  const user = entries.filter((e) => USER_SCOPES.has(e.scope));
  const userValue = (key: string) => user.findLast((e) => e.key === key)?.value;
  const settings: Setting[] = [];
  const extraEnv: Record<string, string> = {};
  const names = (pattern: RegExp) => [...new Set(repo.flatMap((e) => pattern.exec(e.key)?.[1] ?? []))];
  for (const driver of names(/^filter\.(.+)\.[^.]+$/)) {
    for (const part of ['clean', 'smudge', 'process'])
      settings.push({ key: `filter.${driver}.${part}`, value: userValue(`filter.${driver}.${part}`) ?? '', needs: 'allowUnsafeFilter' });
    settings.push({ key: `filter.${driver}.required`, value: userValue(`filter.${driver}.required`) ?? 'false' });
  }
  for (const driver of names(/^merge\.(.+)\.driver$/))
    settings.push({ key: `merge.${driver}.driver`, value: userValue(`merge.${driver}.driver`) ?? '', needs: 'allowUnsafeMergeDriver' });
  for (const remote of names(/^remote\.(.+)\.vcs$/)) settings.push({ key: `remote.${remote}.vcs`, value: '' });
  const helper = /^credential\.(?:.+\.)?helper$/;
  if (repo.some((e) => helper.test(e.key))) {
    settings.push({ key: 'credential.helper', value: '', needs: 'allowUnsafeCredentialHelper' });
    for (const e of user) if (helper.test(e.key)) settings.push({ key: e.key, value: e.value, needs: 'allowUnsafeCredentialHelper' });
  }
  const setByRepo = (key: string) => repo.some((e) => e.key === key);
  // The environment's own program, where git prefers it to the config, already wins.
  if (setByRepo('core.sshcommand') && env.GIT_SSH_COMMAND === undefined) {
    const fallback = env.GIT_SSH ? `'${env.GIT_SSH.replaceAll("'", `'\\''`)}'` : 'ssh';
    settings.push({ key: 'core.sshCommand', value: userValue('core.sshcommand') ?? fallback, needs: 'allowUnsafeSshCommand' });
  }
  if (setByRepo('core.askpass'))
    settings.push({ key: 'core.askPass', value: userValue('core.askpass') ?? '', needs: 'allowUnsafeAskPass' });
  if (setByRepo('core.alternaterefscommand'))
    settings.push({ key: 'core.alternateRefsCommand', value: userValue('core.alternaterefscommand') ?? '' });
  // git takes the first core.gitProxy it reads, so only the environment's (even empty) beats the repository's.
  if (setByRepo('core.gitproxy') && env.GIT_PROXY_COMMAND === undefined) extraEnv.GIT_PROXY_COMMAND = '';
  return { settings, env: extraEnv, keys: repo.map((e) => e.key) };
}

/** How a guarded call runs: its arguments, the environment it adds, and the capabilities simple-git must open for them. */
export interface GuardedCall {
  args: string[];
  env: Record<string, string>;
  unsafe: Partial<Record<Capability, boolean>>;
}

/**
 * The guarded form of `git <args>` run with `env`: `scanned` is the config listed where it runs
 * (null when needsConfigScan said no list is needed).
 */
export function guardCall(args: readonly string[], env: NodeJS.ProcessEnv, scanned: readonly ConfigEntry[] | null): GuardedCall {
  const fromRepo = scanned ? repoOverrides(scanned, env) : { settings: [], env: {}, keys: [] };
  const settings = [...ALWAYS, ...fromRepo.settings];
  const at = subcommandAt(args);
  const sub = at < 0 ? '' : args[at]!;
  const pack = Object.hasOwn(PACK_PROGRAMS, sub) ? PACK_PROGRAMS[sub]! : undefined;
  const namesPack = pack !== undefined && fromRepo.keys.some((k) => pack.key.test(k));
  const flags = [
    ...(DIFF_FAMILY.has(sub) ? ['--no-ext-diff', '--no-textconv'] : []),
    ...(Object.hasOwn(NO_DESCENT, sub) ? NO_DESCENT[sub]! : []),
    ...(namesPack ? [pack.flag] : []),
  ];
  const unsafe: GuardedCall['unsafe'] = { allowUnsafeConfigEnvCount: true };
  for (const s of settings) if (s.needs) unsafe[s.needs] = true;
  if (namesPack) unsafe.allowUnsafePack = true;
  if ('GIT_PROXY_COMMAND' in fromRepo.env) unsafe.allowUnsafeGitProxy = true;
  // After the environment's own pairs, which the user set: later pairs win.
  const first = Number.parseInt(env.GIT_CONFIG_COUNT ?? '0', 10) || 0;
  const pairs: Record<string, string> = { GIT_CONFIG_COUNT: String(first + settings.length) };
  settings.forEach((s, i) => {
    pairs[`GIT_CONFIG_KEY_${first + i}`] = s.key;
    pairs[`GIT_CONFIG_VALUE_${first + i}`] = s.value;
  });
  return {
    args: at < 0 ? [...args] : [...args.slice(0, at + 1), ...flags, ...args.slice(at + 1)],
    env: { ...fromRepo.env, ...pairs, GIT_ALLOW_PROTOCOL: env.GIT_ALLOW_PROTOCOL ?? ALLOWED_TRANSPORTS },
    unsafe,
  };
}
