import NextAuth from 'next-auth';
import { auth } from '#app/_lib/session.ts';

type Ctx = { params: Promise<{ nextauth: string[] }> };

// next-auth's own endpoints (sign-in, callback, csrf, session, sign-out): public by design.
async function handler(req: Request, ctx: Ctx): Promise<Response> {
  return (NextAuth as unknown as (req: Request, ctx: Ctx, options: unknown) => Promise<Response>)(req, ctx, auth());
}

export { handler as GET, handler as POST };
