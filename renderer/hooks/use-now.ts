/** The time now, kept current once a second while `active` (an elapsed time that counts up). */
import { useEffect, useState } from 'react';

/** Date.now(), re-read every `everyMs` while `active`; read once otherwise. */
export function useNow(active: boolean, everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [active, everyMs]);
  return now;
}
