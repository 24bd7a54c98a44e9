import { ConfigError } from '#shared/config-schema.ts';
import { loadServiceConfig } from '#service/config.ts';
import { startService } from './app.ts';

/** `npm run service`: the browser and search service alone. */
try {
  const service = await startService(loadServiceConfig());
  const stop = (signal: string) => {
    service.ctx.log.info({ signal }, 'signal received');
    void service.close().then(() => process.exit(0));
  };
  // `on`, not `once`: a supervisor signals the whole process group, and `npm start` forwards the
  // signal as well, so a second one arrives mid-shutdown and must not kill the process outright.
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}
