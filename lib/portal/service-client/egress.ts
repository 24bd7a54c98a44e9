import { egressJudgement, type EgressJudgement } from '#shared/protocol/egress.ts';
import type { HeldBrowser } from './browser.ts';

/** How long the portal waits for the service's judgement before it says what it can without it. */
const JUDGE_TIMEOUT_MS = 5000;

/**
 * How the service's egress proxy judges `host` for a held browser (`GET /v0/browser/egress`,
 * docs/api.md, "Network egress"), or null when the service did not say (an older service, an
 * ended browser, no answer in time): the caller then keeps the words it had.
 */
export async function judgeEgress(serviceUrl: string, held: Pick<HeldBrowser, 'headers'>, host: string): Promise<EgressJudgement | null> {
  try {
    const res = await fetch(`${serviceUrl.replace(/\/+$/, '')}/v0/browser/egress?host=${encodeURIComponent(host)}`, {
      headers: held.headers,
      signal: AbortSignal.timeout(JUDGE_TIMEOUT_MS),
    });
    if (!res.ok) return null;
    const parsed = egressJudgement.safeParse(await res.json());
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
