import { auditCsv } from '#portal/teams/audit.ts';
import { SignInRequired } from '#portal/errors.ts';
import { errorResponse } from '#app/_lib/api.ts';
import { signedIn } from '#app/_lib/session.ts';

/** The filtered log as a CSV download (same `?kind=&actor=` as the page). */
export async function GET(req: Request, ctx: { params: Promise<{ teamId: string }> }): Promise<Response> {
  try {
    const s = await signedIn();
    if (!s) throw new SignInRequired();
    const { teamId } = await ctx.params;
    const rows = auditCsv(s.portal.data, s.actor, teamId, Object.fromEntries(new URL(req.url).searchParams));
    // The first chunk carries the checks (role, filter): an error there is still an error response.
    const first = await rows.next();
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        if (!first.done) controller.enqueue(encoder.encode(first.value));
      },
      async pull(controller) {
        const next = await rows.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
    });
    return new Response(body, {
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="audit-${teamId}-${new Date().toISOString().slice(0, 10)}.csv"`,
        'cache-control': 'no-store',
      },
    });
  } catch (err) {
    return errorResponse(err);
  }
}
