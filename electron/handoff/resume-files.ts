/**
 * A provider export kept from before (the session record's) is carried in a checkpoint only while
 * the files it names are still there: each is looked at again, and its size taken as it is now.
 */
import { stat } from 'node:fs/promises';
import type { ResumeData } from '../../shared/provider.ts';

/** `resume` with its files' sizes as they are now; null (and `why` told) when one is gone. Inline data passes as it is. */
export async function currentFiles(resume: ResumeData | null, why: (reason: string) => void): Promise<ResumeData | null> {
  if (resume === null || resume.files === undefined) return resume;
  const files = [];
  for (const file of resume.files) {
    const size = await stat(file.path).then(
      (s) => (s.isFile() ? s.size : null),
      () => null,
    );
    if (size === null) {
      why(`its file ${file.name} is no longer on this device`);
      return null;
    }
    files.push({ ...file, size });
  }
  return { ...resume, files };
}
