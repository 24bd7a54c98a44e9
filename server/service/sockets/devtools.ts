import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { spliceDevtools, type Splice, type Traffic } from '../../../lib/browser/cdp-proxy.ts';
import { parseDevtoolsPath, requireBrowserId } from '../../../lib/browser/devtools-address.ts';
import type { Instance } from '../../../lib/browser/fleet.ts';
import { NotFound } from '../../../lib/errors.ts';
import { authenticate } from '../../../lib/keys/auth.ts';
import { rejectUpgrade } from '../../http/respond.ts';
import type { ServiceContext } from '../context.ts';

/** WebSocket to webSocketDebuggerUrl (spec 4.3): authorise, then splice to the instance's Chromium. */
export class DevtoolsSockets {
  readonly #ctx: ServiceContext;
  readonly #byInstance = new Map<string, Set<Splice>>();
  /** Traffic already added to the metrics, per open splice. */
  readonly #reported = new Map<Splice, Traffic>();

  constructor(ctx: ServiceContext) {
    this.#ctx = ctx;
    ctx.fleet.on('ended', (instance) => this.#cut(instance));
    ctx.metrics.beforeScrape(() => {
      for (const splice of this.#reported.keys()) this.#report(splice);
    });
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
    const { hostname, port } = instance.browser.devtoolsUrl;
    const downloadDir = join(instance.browser.profileDir, 'Downloads');
    const splice = spliceDevtools(req, socket, head, { host: hostname, port: Number(port), path, downloadDir });
    const splices = this.#byInstance.get(instance.id) ?? new Set();
    splices.add(splice);
    this.#byInstance.set(instance.id, splices);
    this.#reported.set(splice, { toBrowser: 0, toClient: 0 });
    this.#ctx.metrics.proxyConnections.inc();
    void splice.closed.then(() => {
      this.#report(splice);
      this.#reported.delete(splice);
      this.#ctx.metrics.proxyConnections.dec();
      splices.delete(splice);
      if (splices.size === 0 && this.#byInstance.get(instance.id) === splices) this.#byInstance.delete(instance.id);
    });
  }

  #report(splice: Splice): void {
    const before = this.#reported.get(splice);
    if (!before) return;
    const now = splice.traffic();
    this.#ctx.metrics.proxyBytes.inc({ direction: 'to_browser' }, now.toBrowser - before.toBrowser);
    this.#ctx.metrics.proxyBytes.inc({ direction: 'to_client' }, now.toClient - before.toClient);
    this.#reported.set(splice, now);
  }

  #cut(instance: Instance): void {
    for (const splice of this.#byInstance.get(instance.id) ?? []) splice.destroy();
    this.#byInstance.delete(instance.id);
  }
}
