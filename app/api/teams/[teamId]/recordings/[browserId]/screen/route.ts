import { teamRecordingScreen } from '#portal/inspector/recordings.ts';
import { SignInRequired } from '#portal/errors.ts';
import { errorResponse } from '#app/_lib/api.ts';
import { signedIn } from '#app/_lib/session.ts';

/**
 * One frame of a recording's screen, named in the address by its frame event's `offset` and
 * `length` (so a browser may cache it: the frame never changes), answered as a JPEG.
 */
export async function GET(req: Request, ctx: { params: Promise<{ teamId: string; browserId: string }> }): Promise<Response> {
  try {
    const s = await signedIn();
    if (!s) throw new SignInRequired();
    const { teamId, browserId } = await ctx.params;
    const upstream = await teamRecordingScreen(
      { vault: s.portal.vault, serviceUrl: s.portal.config.serviceUrl },
      s.actor,
      teamId,
      browserId,
      new URL(req.url).searchParams,
    );
    if (upstream.status !== 206) return new Response(null, { status: upstream.status === 416 ? 416 : 502 });
    // A frame never changes once written: the browser may keep it.
    return new Response(upstream.body, {
      status: 200,
      headers: { 'content-type': 'image/jpeg', 'cache-control': 'private, max-age=86400, immutable' },
    });
  } catch (err) {
    return errorResponse(err);
  }
}
