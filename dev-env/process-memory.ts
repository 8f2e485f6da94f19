/**
 * The resident memory of a process, read from Linux's /proc: now (VmRSS) and its peak since start
 * or since the last `resetPeak` (VmHWM). Tests and benches measure a device's or a probe's memory
 * during one piece of work this way: reset the peak, do the work, read the peak.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export interface ProcessMemory {
  /** Resident now, MiB. */
  rssMiB: number;
  /** The most resident since start or the last reset, MiB. */
  peakMiB: number;
}

const MiB = 1024 * 1024;

function field(status: string, name: string): number {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (!match) throw new Error(`/proc status has no ${name}`);
  return (Number(match[1]) * 1024) / MiB;
}

/** The process's resident memory now and at its peak. */
export function memoryOf(pid: number): ProcessMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rssMiB: field(status, 'VmRSS'), peakMiB: field(status, 'VmHWM') };
}

/** Sets the process's peak back to its resident memory now (clear_refs 5); false where the kernel refuses. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * Samples the process's resident memory every `everyMs` until stopped; resolves with the highest
 * sample. Used beside the kernel's peak where that cannot be reset.
 */
export function sampleRss(pid: number, everyMs = 10): { stop(): number } {
  let highest = 0;
  const take = () => {
    try {
      highest = Math.max(highest, memoryOf(pid).rssMiB);
    } catch {
      // the process is gone
    }
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return highest;
    },
  };
}
