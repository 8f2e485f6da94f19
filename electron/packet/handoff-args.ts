/**
 * The arguments of handoff_create and handoff_resume, declared once: the pure functions validate
 * with these and the MCP server publishes them as the tools' input schemas. Sizes are not limited
 * here: the byte caps are checked by create so an oversize field is refused by name, never truncated.
 */
import { z } from 'zod';

const prose = (what: string) => z.string().optional().describe(`${what} (at most 2048 bytes; omitted from the packet when empty)`);

export const VerificationInput = z.object({
  claim: z.string().describe('What is claimed to hold, e.g. "unit tests pass"'),
  probe: z.string().describe('How to check it, e.g. "npx vitest run"'),
  result: z.string().optional().describe('Ignored: every stored result is "not run" — the next session runs the probe itself'),
});

export const handoffCreateShape = {
  goal: prose('What this branch is for'),
  acceptance_criteria: prose('How to tell the work is done'),
  scope_assumptions: prose('What is in and out of scope, and the assumptions made'),
  current_state: prose('Where the work stands now'),
  next_action: prose('The next concrete step for whoever picks this up'),
  verification: z
    .array(VerificationInput)
    .optional()
    .describe('Claims and the probes that check them; stored as a table with result "not run"'),
  provider: z.string().optional().describe('The agent writing the packet, e.g. "claude-code" or "codex" (default "unspecified")'),
  base_ref: z
    .string()
    .optional()
    .describe(
      "The ref the branch is compared with (default: the remote's default branch, where origin/HEAD points, else origin/main or origin/master, else main or master)",
    ),
};

export const handoffResumeShape = {
  slug: z.string().optional().describe("The packet's slug: the branch name with / as - (default: the current branch's)"),
};

export const HandoffCreateArgs = z.object(handoffCreateShape);
export const HandoffResumeArgs = z.object(handoffResumeShape);
export type HandoffCreateArgs = z.infer<typeof HandoffCreateArgs>;
export type HandoffResumeArgs = z.infer<typeof HandoffResumeArgs>;

export const DEFAULT_PROVIDER = 'unspecified';
/** The base a packet names when the repository has none of the usual ones (readDefaultBaseRef). */
export const DEFAULT_BASE_REF = 'origin/main';

/** The first validation problem as one line. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'arguments'}: ${issue.message}` : 'invalid arguments';
}
