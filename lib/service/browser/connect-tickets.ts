import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isBrowserId } from '#shared/protocol/start.ts';

/**
 * Tickets for clients that take only an address (docs/api.md, section 2, `connectUrl`): a ticket
 * names one browser and proves, by an HMAC over its id and its Chromium's own id, that the service
 * handed it out for that browser. It opens that browser's DevTools addresses and nothing else, and
 * ends with the browser (the instance it names is gone). Nothing is stored: any node of a cluster
 * that shares the secret checks it.
 */
export class ConnectTickets {
  readonly #secret: Buffer;

  /** `sharedSecret`: the cluster's, so that every node checks every node's tickets; else one of this process's own. */
  constructor(sharedSecret?: string) {
    this.#secret = sharedSecret ? createHmac('sha256', sharedSecret).update('periscope connect tickets').digest() : randomBytes(32);
  }

  /** The ticket for browser `browserId`, whose Chromium has the DevTools id `guid`. */
  issue(browserId: string, guid: string): string {
    return `${browserId}.${this.#mac(browserId, guid)}`;
  }

  /** The browser id a ticket names, from its shape alone (to find the instance), or null. */
  static browserIdOf(ticket: string): string | null {
    const id = ticket.slice(0, ticket.indexOf('.'));
    return isBrowserId(id) ? id : null;
  }

  /** Whether `ticket` was issued for browser `browserId` with Chromium `guid`. */
  valid(ticket: string, browserId: string, guid: string): boolean {
    const expected = Buffer.from(this.issue(browserId, guid));
    const given = Buffer.from(ticket);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  #mac(browserId: string, guid: string): string {
    return createHmac('sha256', this.#secret).update(`${browserId}\n${guid}`).digest('base64url');
  }
}
