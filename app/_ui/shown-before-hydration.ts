'use client';
import { useEffect, useRef } from 'react';

/**
 * What a form control of a server-rendered page shows when the page hydrates, handed on if it is
 * not what was rendered (decisions 0115, 0116). On a slow connection the server's HTML is usable
 * before the scripts run: text typed, filled in by the browser or chosen then shows on screen but
 * reaches no handler, and hydration leaves the control as it finds it, so the page would go on
 * with the value it rendered while showing another. Once hydrated, a value shown that differs
 * from the one rendered goes to `onValue`, as its change would have. A control mounted after
 * hydration shows what it rendered, so nothing happens for it; development's strict mode, which
 * runs effects twice, hands a value on once. Returns the ref to put on the control.
 */
export function useShownBeforeHydration<E extends HTMLInputElement | HTMLSelectElement>(value: string, onValue: (value: string) => void) {
  const control = useRef<E>(null);
  const checked = useRef(false);
  const first = useRef({ value, onValue });
  useEffect(() => {
    if (checked.current) return;
    checked.current = true;
    const shown = control.current?.value;
    if (shown !== undefined && shown !== first.current.value) first.current.onValue(shown);
  }, []);
  return control;
}
