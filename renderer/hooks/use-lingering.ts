/** Whether a value has stayed the same for a while (to show "still working" only when it helps). */
import { useEffect, useState } from 'react';

/** True once `value` has been unchanged for `ms`; false again as soon as it changes. */
export function useLingering(value: unknown, ms: number): boolean {
  const [lingering, setLingering] = useState<{ value: unknown; since: boolean }>({ value, since: false });
  useEffect(() => {
    const timer = setTimeout(() => setLingering({ value, since: true }), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return lingering.since && Object.is(lingering.value, value);
}
