import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openKeyDatabase, type DatabasePlace } from '#service/keys/key-database.ts';
import { testStore } from '../../../tests/helpers/portal-doubles.ts';
import { freshDatabase } from '../../../tests/helpers/postgres-data.ts';
import { EmbeddedIssuer } from './issuer.ts';

/**
 * The embedded portal issues keys into the service's own store, wherever the shared configuration
 * puts it: DATA_DIR/service.db, or PostgreSQL in the PostgreSQL pass (decision 0093).
 */
describe(`EmbeddedIssuer (${testStore})`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'periscope-issuer-'));
  let where: DatabasePlace = { dataDir, database: { kind: 'sqlite' } };
  before(async () => {
    if (testStore === 'postgres') where = { dataDir, database: { kind: 'postgres', url: await freshDatabase() } };
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('issues keys the service accepts, sets their recording, sees their use and revokes them', async () => {
    const limits = { ratePerMinute: 40, maxInstances: 5 };
    const issuer = new EmbeddedIssuer(where, limits);
    const service = await openKeyDatabase(where, limits);
    try {
      const { serviceKeyId, token } = await issuer.issue('Robot (team t1)', { record: true });
      assert.equal(await issuer.lastUsed(serviceKeyId), null);
      const key = await service.keys.verify(token);
      assert.deepEqual([key?.id, key?.name, key?.record], [serviceKeyId, 'Robot (team t1)', true]);
      assert.ok((await issuer.lastUsed(serviceKeyId)) !== null, "the service's use is seen by the portal");
      assert.equal(await issuer.setRecord(serviceKeyId, false), true);
      assert.equal((await service.keys.get(serviceKeyId))?.record, false);
      assert.equal(await issuer.setRecord('0123456789abcdef', true), false);
      await issuer.revoke(serviceKeyId);
      assert.equal(await service.keys.verify(token), null, 'refused at once');
      await assert.rejects(issuer.issue('bad\u0000name'), { status: 400 });
    } finally {
      await issuer.close();
      await service.close();
    }
  });
});
