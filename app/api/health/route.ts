import { NextResponse } from 'next/server.js';

/** Liveness of the portal; public. */
export function GET(): NextResponse {
  return NextResponse.json({ status: 'ok' }, { headers: { 'cache-control': 'no-store' } });
}
