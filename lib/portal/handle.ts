import type { Portal } from './runtime.ts';

/**
 * The one typed handle through which every part of the portal process reaches what the
 * composition root built (lib/portal/runtime.ts). The custom server publishes it before Next
 * prepares; pages, route handlers, the auth routes and proxy.ts read it. It lives on globalThis
 * under a registered symbol because Next bundles those parts separately, each with its own copy of
 * `lib/`; this file imports nothing at run time, so reading the handle pulls no module in.
 */
const KEY = Symbol.for('periscope.portal');
type Holder = { [KEY]?: Portal };

export function publishPortal(portal: Portal): void {
  const holder = globalThis as Holder;
  if (holder[KEY] && holder[KEY] !== portal) throw new Error('the portal was already built in this process');
  holder[KEY] = portal;
}

/** What the composition root built, or undefined outside a started portal (a build, a unit test). */
export function publishedPortal(): Portal | undefined {
  return (globalThis as Holder)[KEY];
}
