import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stdout. Secrets never reach a log: redact the headers that carry them. */
export function createLogger(name: string, level: string): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.token', 'token', 'password', '*.password'],
      censor: '[redacted]',
    },
  });
}
