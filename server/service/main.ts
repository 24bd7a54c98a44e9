import { ConfigError } from '#shared/config-schema.ts';
import { loadServiceConfig } from '#service/config.ts';
import { startService } from './app.ts';

/** `npm run service`: the browser and search service alone. */
try {
  const service = await startService(loadServiceConfig());
  const config = service.ctx.config;
  let first: number | null = null;
  const stop = (signal: string) => {
    service.ctx.log.info({ signal }, 'signal received');
    // A supervisor signals the whole process group and `npm start` forwards the signal as well, so
    // one stop can arrive twice at once: only a signal a second or more after the first stops a drain.
    const again = first !== null && Date.now() - first >= 1000;
    first ??= Date.now();
    if (signal === 'SIGTERM' && config.shutdownDrainMs > 0 && !again) {
      void service
        .drain()
        .then(() => service.close())
        .then(() => process.exit(0));
      return;
    }
    void service.close().then(() => process.exit(0));
  };
  // `on`, not `once`: a second signal must not kill the process outright (see above).
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}
