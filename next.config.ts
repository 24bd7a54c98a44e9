import type { NextConfig } from 'next';

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The custom server in server/portal owns the process; Next only renders.
  serverExternalPackages: ['pino', 'ws', 'prom-client'],
  // `npm run typecheck` checks the whole project (tsc, strict) before every test run; the build
  // need not check it again, nor fail on files it does not bundle (tests, benchmarks).
  typescript: { ignoreBuildErrors: true },
};

export default config;
