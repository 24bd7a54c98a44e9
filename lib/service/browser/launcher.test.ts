import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { Launcher, type Prepared } from './launcher.ts';

/** Prepared launches that record what happened to them; `failNext` makes the next preparation fail. */
function doubles() {
  const made: FakePrepared[] = [];
  const state = { failNext: false, failStart: false };
  class FakePrepared implements Prepared<string> {
    readonly n = made.length + 1;
    started = false;
    discarded = false;
    dead = false;
    get usable() {
      return !this.started && !this.discarded && !this.dead;
    }
    async start() {
      assert.ok(this.usable, `prepared launch ${this.n} started when it could not be`);
      this.started = true;
      if (state.failStart) throw new Error('Chromium did not start');
      return `browser ${this.n}`;
    }
    async discard() {
      this.discarded = true;
    }
  }
  const prepare = async () => {
    await new Promise((r) => setImmediate(r));
    if (state.failNext) {
      state.failNext = false;
      throw new Error('no uid left');
    }
    const p = new FakePrepared();
    made.push(p);
    return p;
  };
  return { made, state, prepare };
}

const log = pino({ level: 'silent' });
/** A moment, for what must not happen: long enough for the launcher's own timer to have fired. */
const aMoment = () => new Promise((r) => setTimeout(r, 30));
/** Wait for what must happen, however loaded the machine (fails after 5 s). */
async function until(done: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 5000; !done(); await new Promise((r) => setTimeout(r, 1)))
    if (Date.now() > deadline) assert.fail(`not within 5 s: ${what}`);
}
/** The next launch is prepared this long after a start. */
const aheadDelayMs = 10;

/** A launcher over fresh doubles, with its first launch prepared ahead and waiting. */
async function launcherWithOnePrepared() {
  const fakes = doubles();
  const launcher = new Launcher(fakes.prepare, log, { aheadDelayMs });
  launcher.prepareAhead();
  await until(() => launcher.prepared === 1, 'a launch prepared');
  return { ...fakes, launcher };
}

describe('Launcher', () => {
  it('prepares the first launch when asked for one, then the next one ahead', async () => {
    const { made, prepare } = doubles();
    const launcher = new Launcher(prepare, log, { aheadDelayMs });
    assert.equal(await launcher.launch(), 'browser 1');
    await new Promise((r) => setImmediate(r));
    assert.equal(made.length, 1, 'not while the browser is handed over');
    await until(() => launcher.prepared === 1, 'the next launch prepared');
    assert.equal(made.length, 2);
    assert.equal(await launcher.launch(), 'browser 2');
    assert.equal(launcher.prepared, 0, 'the prepared launch was taken');
    await launcher.close();
  });

  it('starts the launch prepared ahead, even one still being prepared', async () => {
    const { made, prepare } = doubles();
    const launcher = new Launcher(prepare, log, { aheadDelayMs });
    launcher.prepareAhead();
    launcher.prepareAhead(); // one at a time
    assert.equal(await launcher.launch(), 'browser 1');
    await until(() => made.length === 2, 'the next launch prepared');
    assert.deepEqual(
      made.map((p) => p.started),
      [true, false],
    );
    await launcher.close();
  });

  it('discards a prepared launch that can no longer start, and prepares another', async () => {
    const { made, launcher } = await launcherWithOnePrepared();
    made[0]!.dead = true;
    assert.equal(launcher.prepared, 0);
    assert.equal(await launcher.launch(), 'browser 2');
    assert.equal(made[0]!.discarded, true);
    await launcher.close();
  });

  it('prepares inline when the preparation ahead failed, and tries ahead again after', async () => {
    const { made, state, prepare } = doubles();
    const launcher = new Launcher(prepare, log, { aheadDelayMs });
    state.failNext = true;
    launcher.prepareAhead();
    await aMoment();
    assert.equal(launcher.prepared, 0);
    assert.equal(await launcher.launch(), 'browser 1');
    await until(() => launcher.prepared === 1, 'the next launch prepared');
    assert.equal(made.length, 2);
    await launcher.close();
  });

  it('fails a launch whose preparation fails, and one whose start fails, then prepares the next after a start', async () => {
    const { made, state, prepare } = doubles();
    const launcher = new Launcher(prepare, log, { aheadDelayMs });
    state.failNext = true;
    await assert.rejects(launcher.launch(), /no uid left/);
    await aMoment();
    assert.equal(launcher.prepared, 0, 'a failed preparation is not retried in the background');
    state.failStart = true;
    await assert.rejects(launcher.launch(), /did not start/);
    state.failStart = false;
    await until(() => launcher.prepared === 1, 'the next launch prepared after a failed start');
    assert.equal(made.length, 2);
    assert.equal(await launcher.launch(), 'browser 2');
    await launcher.close();
  });

  it('never hands one prepared launch to two launches at once', async () => {
    const { made, launcher } = await launcherWithOnePrepared();
    const browsers = await Promise.all([launcher.launch(), launcher.launch(), launcher.launch()]);
    assert.equal(new Set(browsers).size, 3);
    await until(() => launcher.prepared === 1, 'the next launch prepared');
    await aMoment();
    assert.equal(made.filter((p) => p.started).length, 3);
    assert.equal(made.filter((p) => !p.started).length, 1, 'one prepared ahead afterwards, not one per launch');
    await launcher.close();
  });

  it('on close discards the launch that waits, and one still being prepared once it is made', async () => {
    const { made, launcher } = await launcherWithOnePrepared();
    await launcher.close();
    assert.equal(made[0]!.discarded, true);

    const second = doubles();
    const closing = new Launcher(second.prepare, log, { aheadDelayMs });
    closing.prepareAhead();
    await closing.close(); // before the preparation ends
    assert.equal(second.made.length, 1);
    assert.equal(second.made[0]!.discarded, true);
    await assert.rejects(closing.launch(), /closed/);

    const third = doubles();
    const launchedThenClosed = new Launcher(third.prepare, log, { aheadDelayMs });
    await launchedThenClosed.launch();
    await launchedThenClosed.close(); // before the next one was due
    await aMoment();
    assert.equal(third.made.length, 1, 'the preparation that was due is not made');
    closing.prepareAhead();
    await aMoment();
    assert.equal(second.made.length, 1, 'nothing is prepared after close');
  });
});
