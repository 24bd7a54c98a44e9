import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { spliceDevtools } from '../../../lib/browser/cdp-proxy.ts';
import { parseDevtoolsPath, requireBrowserId } from '../../../lib/browser/devtools-address.ts';
import type { Instance } from '../../../lib/browser/fleet.ts';
import { NotFound } from '../../../lib/errors.ts';
import { authenticate } from '../../../lib/keys/auth.ts';
import { rejectUpgrade } from '../../http/respond.ts';
import type { ServiceContext } from '../context.ts';

/** WebSocket to webSocketDebuggerUrl (spec 4.3): authorise, then splice to the instance's Chromium. */
export class DevtoolsSockets {
  readonly #ctx: ServiceContext;
  readonly #byInstance = new Map<string, Set<() => void>>();

  constructor(ctx: ServiceContext) {
    this.#ctx = ctx;
    ctx.fleet.on('ended', (instance) => this.#cut(instance));
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): void {
    let instance: Instance;
    let path: string;
    try {
      const target = parseDevtoolsPath(url.pathname);
      if (!target) throw new NotFound('no such DevTools endpoint; use the webSocketDebuggerUrl from /json/version');
      const key = authenticate(this.#ctx.keys, req.headers.authorization);
      instance = this.#ctx.fleet.get(requireBrowserId(req.headers['x-browser-id']), key.id);
      if (target.kind === 'browser' && target.id !== instance.browser.guid) {
        throw new NotFound('that DevTools address does not belong to this browser');
      }
      path = url.pathname;
    } catch (err) {
      rejectUpgrade(socket, err);
      return;
    }
    const { metrics } = this.#ctx;
    const { hostname, port } = instance.browser.devtoolsUrl;
    const splice = spliceDevtools(req, socket, head, { host: hostname, port: Number(port), path }, {
      toBrowser: (n) => metrics.proxyBytes.inc({ direction: 'to_browser' }, n),
      toClient: (n) => metrics.proxyBytes.inc({ direction: 'to_client' }, n),
    });
    const cuts = this.#byInstance.get(instance.id) ?? new Set();
    cuts.add(splice.destroy);
    this.#byInstance.set(instance.id, cuts);
    metrics.proxyConnections.inc();
    void splice.closed.then(() => {
      metrics.proxyConnections.dec();
      cuts.delete(splice.destroy);
      if (cuts.size === 0 && this.#byInstance.get(instance.id) === cuts) this.#byInstance.delete(instance.id);
    });
  }

  #cut(instance: Instance): void {
    for (const destroy of this.#byInstance.get(instance.id) ?? []) destroy();
    this.#byInstance.delete(instance.id);
  }
}
