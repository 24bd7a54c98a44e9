import { join } from 'node:path';
import type { PortalConfig } from '../config.ts';
import { loadOrCreateSecret } from '../crypto/secret-file.ts';

export const secretFiles = (dataDir: string) => ({
  auth: join(dataDir, 'secrets', 'nextauth-secret'),
  keyEncryption: join(dataDir, 'secrets', 'key-encryption-secret'),
});

export type PortalSecrets = { authSecret: string; keyEncryptionSecret: string; generated: string[]; keyEncryptionFromFile: boolean };

/**
 * The configured secrets, or ones generated into DATA_DIR/secrets (0600) on first start so a
 * fresh install works. Production deployments set both in the environment (see README).
 */
export function resolvePortalSecrets(config: PortalConfig): PortalSecrets {
  const files = secretFiles(config.dataDir);
  const generated: string[] = [];
  const fromFile = (file: string) => {
    const { secret, created } = loadOrCreateSecret(file);
    if (created) generated.push(file);
    return secret;
  };
  return {
    authSecret: config.authSecret ?? fromFile(files.auth),
    keyEncryptionSecret: config.keyEncryptionSecret ?? fromFile(files.keyEncryption),
    keyEncryptionFromFile: config.keyEncryptionSecret === undefined,
    generated,
  };
}
