/**
 * robots.txt (RFC 9309): the group for our user agent (or `*`), Allow/Disallow with `*` and `$`
 * patterns, the longest match winning and Allow winning a tie; Crawl-delay as a politeness hint.
 */
type Rule = { allow: boolean; pattern: string; re: RegExp };
export type Robots = { allowed(path: string): boolean; crawlDelayMs: number | null };

const toRegExp = (pattern: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+?^{}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\\\$$|\$$/, '$')}`,
  );

export function parseRobots(text: string, userAgent: string): Robots {
  const token = userAgent.split('/')[0]?.toLowerCase() ?? '';
  type Group = { agents: string[]; rules: Rule[]; delay: number | null };
  const groups: Group[] = [];
  let current: Group | null = null;
  let lastWasAgent = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*/, '').trim();
    const m = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!m) continue;
    const field = (m[1] as string).toLowerCase();
    const value = (m[2] as string).trim();
    if (field === 'user-agent') {
      if (!current || !lastWasAgent) {
        current = { agents: [], rules: [], delay: null };
        groups.push(current);
      }
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (!current) continue;
    if ((field === 'allow' || field === 'disallow') && value)
      current.rules.push({ allow: field === 'allow', pattern: value, re: toRegExp(value) });
    if (field === 'crawl-delay' && Number.isFinite(Number(value))) current.delay = Number(value);
  }
  const mine = groups.filter((g) => g.agents.some((a) => a !== '*' && token.includes(a)));
  const chosen = mine.length ? mine : groups.filter((g) => g.agents.includes('*'));
  const rules = chosen.flatMap((g) => g.rules);
  const delay = chosen.map((g) => g.delay).find((d) => d !== null) ?? null;
  return {
    allowed(path: string) {
      let best: Rule | null = null;
      for (const r of rules) {
        if (!r.re.test(path)) continue;
        if (!best || r.pattern.length > best.pattern.length || (r.pattern.length === best.pattern.length && r.allow)) best = r;
      }
      return !best || best.allow;
    },
    crawlDelayMs: delay === null ? null : delay * 1000,
  };
}

export const ALLOW_ALL: Robots = { allowed: () => true, crawlDelayMs: null };
