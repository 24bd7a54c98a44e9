import type { NextConfig } from 'next';

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The custom server in server/portal owns the process; Next only renders.
  serverExternalPackages: ['pino', 'ws', 'prom-client'],
};

export default config;
