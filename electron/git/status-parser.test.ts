import { describe, expect, it } from 'vitest';
import { parseStatus } from './status-parser.ts';

const z = (...entries: string[]) => entries.join('\0') + '\0';
const OID = 'a'.repeat(40);
const MODES = '100644 100644 100644';
const SHAS = `${'1'.repeat(40)} ${'2'.repeat(40)}`;

describe('porcelain v2 status parser', () => {
  it('reads branch, upstream and ahead/behind from the headers', () => {
    const s = parseStatus(z(`# branch.oid ${OID}`, '# branch.head feature/x', '# branch.upstream origin/feature/x', '# branch.ab +3 -1'));
    expect(s).toMatchObject({
      head: OID,
      branch: 'feature/x',
      detached: false,
      upstream: 'origin/feature/x',
      upstreamExists: true,
      ahead: 3,
      behind: 1,
    });
  });

  it('reads a detached HEAD, an unborn branch and an upstream that is gone', () => {
    expect(parseStatus(z(`# branch.oid ${OID}`, '# branch.head (detached)'))).toMatchObject({ branch: null, detached: true, head: OID });
    expect(parseStatus(z('# branch.oid (initial)', '# branch.head main')).head).toBeNull();
    const gone = parseStatus(z(`# branch.oid ${OID}`, '# branch.head main', '# branch.upstream origin/main'));
    expect(gone).toMatchObject({ upstream: 'origin/main', upstreamExists: false, ahead: 0 });
  });

  it('reads changed, renamed (with spaces), conflicted and untracked paths', () => {
    const s = parseStatus(
      z(
        '# branch.oid (initial)',
        '# branch.head main',
        `1 .M N... ${MODES} ${SHAS} src/a file.ts`,
        `2 R. N... ${MODES} ${SHAS} R100 new name.ts`,
        'old name.ts',
        `u UU N... 100644 100644 100644 100644 ${SHAS} ${'3'.repeat(40)} conflict.txt`,
        '? notes/',
        '? todo.md',
      ),
    );
    expect(s.changed).toEqual(['src/a file.ts', 'new name.ts']);
    expect(s.conflicted).toEqual(['conflict.txt']);
    expect(s.untracked).toEqual(['notes/', 'todo.md']);
  });
});
