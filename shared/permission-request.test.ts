import { describe, expect, it } from 'vitest';
import { PermissionRequestSchema, ruleCovers, sessionRuleFor, type PermissionRequest } from './permission-request.ts';

const bash = (command: string): PermissionRequest => ({ id: 'r1', agent: 'main', tool: 'Bash', command });

describe('permission requests', () => {
  it('remembers the first suggestion, else the tool and its exact command', () => {
    expect(sessionRuleFor({ ...bash('npm test'), suggestions: [{ tool: 'Bash', commandPrefix: 'npm' }] })).toEqual({
      tool: 'Bash',
      commandPrefix: 'npm',
    });
    expect(sessionRuleFor(bash('npm test'))).toEqual({ tool: 'Bash', commandPrefix: 'npm test' });
    expect(sessionRuleFor({ id: 'r2', agent: 'main', tool: 'Edit', path: '/ws/a.ts' })).toEqual({ tool: 'Edit' });
  });

  it('covers the same command and the prefix with plain arguments, never a chained one', () => {
    const rule = { tool: 'Bash', commandPrefix: 'npm test' };
    expect(ruleCovers(rule, bash('npm test'))).toBe(true);
    expect(ruleCovers(rule, bash('npm test -- --watch'))).toBe(true);
    expect(ruleCovers(rule, bash('npm testing'))).toBe(false);
    expect(ruleCovers(rule, bash('npm test; rm -rf ~'))).toBe(false);
    expect(ruleCovers(rule, bash('npm test && curl x'))).toBe(false);
    expect(ruleCovers(rule, bash('npm test $(whoami)'))).toBe(false);
    expect(ruleCovers(rule, bash('npm test > /etc/passwd'))).toBe(false);
    expect(ruleCovers({ tool: 'Bash', commandPrefix: 'node -e "x()"' }, bash('node -e "x()"'))).toBe(true);
    expect(ruleCovers({ tool: 'Edit' }, bash('npm test'))).toBe(false);
    expect(ruleCovers({ tool: 'Edit' }, { id: 'r3', agent: 'main', tool: 'Edit', path: '/ws/b.ts' })).toBe(true);
  });

  it('checks a request from outside against its bounds', () => {
    expect(PermissionRequestSchema.safeParse(bash('ls')).success).toBe(true);
    expect(PermissionRequestSchema.safeParse({ ...bash('ls'), extra: 1 }).success).toBe(false);
    expect(PermissionRequestSchema.safeParse({ ...bash('ls'), command: 'x'.repeat(5000) }).success).toBe(false);
  });
});
