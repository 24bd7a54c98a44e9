'use client';
import { useRef, useState } from 'react';
import type { z } from 'zod';
import { fieldErrors } from '#portal/schemas.ts';

/**
 * Inline validation with the same zod schema the server uses: a field is checked when it loses
 * focus (once touched, on every change), the whole form on submit. Server-side field errors
 * merge in through `setErrors`.
 */
export function useForm<S extends z.ZodType>(schema: S) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [touched, setTouched] = useState<Record<string, boolean>>({});

  const check = (values: Record<string, unknown>, field?: string) => {
    const parsed = schema.safeParse(values);
    const all = parsed.success ? {} : fieldErrors(parsed.error);
    if (field) setErrors((e) => ({ ...e, [field]: all[field] ?? '' }));
    return { parsed, all };
  };

  return {
    errors,
    setErrors,
    blur: (values: Record<string, unknown>, field: string) => {
      setTouched((t) => ({ ...t, [field]: true }));
      check(values, field);
    },
    change: (values: Record<string, unknown>, field: string) => {
      if (touched[field] || errors[field]) check(values, field);
    },
    /** The parsed values, or null after showing every error. */
    submit: (values: Record<string, unknown>): z.output<S> | null => {
      const { parsed, all } = check(values);
      setErrors(all);
      setTouched(Object.fromEntries(Object.keys(values).map((k) => [k, true])));
      return parsed.success ? parsed.data : null;
    },
  };
}

/**
 * A form's values, and a setter per field that also re-checks it (once touched) through `form`.
 * Fields set one after another before the next render build on each other: on hydration every
 * field holding text filled in before it is set at once (decision 0116).
 */
export function useFields<V extends Record<string, string>>(
  initial: V,
  form: { change: (values: Record<string, unknown>, field: string) => void },
) {
  const [values, setState] = useState(initial);
  const latest = useRef(values);
  latest.current = values;
  const setValues = (next: V | ((values: V) => V)) => {
    latest.current = typeof next === 'function' ? next(latest.current) : next;
    setState(latest.current);
  };
  const set = (field: keyof V & string, value: string) => {
    const next = { ...latest.current, [field]: value };
    setValues(next);
    form.change(next, field);
  };
  return { values, set, setValues };
}
