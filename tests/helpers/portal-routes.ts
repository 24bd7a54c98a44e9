import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { isPublicPath } from '#portal/accounts/public-paths.ts';

export type AppRoute = { kind: 'page' | 'api'; pattern: string; methods: string[]; public: boolean };

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Every page and API route of the portal, read from the app/ folder itself, so a route added
 * later is walked by the tests without anyone listing it.
 */
export function appRoutes(appDir: string): AppRoute[] {
  const out: AppRoute[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) {
        if (!name.startsWith('_')) walk(full);
        continue;
      }
      if (name !== 'page.tsx' && name !== 'route.ts') continue;
      const segments = relative(appDir, dir)
        .split(sep)
        .filter((s) => s && !/^\(.*\)$/.test(s));
      const pattern = `/${segments.join('/')}`;
      if (name === 'page.tsx') {
        out.push({ kind: 'page', pattern, methods: ['GET'], public: isPublicPath(fill(pattern, {})) });
      } else {
        const text = readFileSync(full, 'utf8');
        const methods = METHODS.filter((m) => new RegExp(`export (const|async function|function) ${m}\\b|as ${m}\\b`).test(text));
        out.push({ kind: 'api', pattern, methods, public: isPublicPath(fill(pattern, {})) });
      }
    }
  };
  walk(appDir);
  return out.sort((a, b) => a.pattern.localeCompare(b.pattern));
}

/** A concrete path: [param] from `values` (else a sample), [...rest] as two segments. */
export function fill(pattern: string, values: Record<string, string>): string {
  return pattern
    .replace(/\[\.\.\.(\w+)\]/g, (_, k: string) => values[k] ?? 'session')
    .replace(/\[(\w+)\]/g, (_, k: string) => encodeURIComponent(values[k] ?? `sample_${k}`));
}
