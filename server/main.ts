import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseLogLine, prettyRecord, startBanner, StartWatch } from '#shared/console.ts';

/**
 * `npm start`: the service and the portal as two processes of one command (docs/decisions/0003-two-processes-and-socket-routing.md). Each
 * keeps its own event loop, so rendering a page never delays a CDP message. A signal reaches
 * both; if either dies, the other is stopped and the command fails.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// A self-hosted product does not report usage anywhere unless its operator asks it to.
process.env.NEXT_TELEMETRY_DISABLED ??= '1';
const dev = process.env.NODE_ENV === 'development';

if (!dev && !existsSync(join(root, '.next', 'BUILD_ID'))) {
  console.log('periscope: building the portal once (next build)...');
  const built = spawnSync(process.execPath, [join(root, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

// The portal issues keys through the service's operator interface (decision 0107): the two
// processes of one command share an operator token, made for this run unless the operator set one.
process.env.SERVICE_OPERATOR_TOKEN ??= randomBytes(32).toString('base64url');

const children = new Map<string, ChildProcess>();
let stopping = false;

// A person at a terminal gets readable lines and a banner; a collector (a pipe, a file) gets the JSON.
const format = process.env.LOG_FORMAT ?? 'auto';
if (!['auto', 'json', 'pretty'].includes(format)) {
  console.error(`periscope: LOG_FORMAT must be auto, json or pretty (got ${JSON.stringify(format)})`);
  process.exit(2);
}
const pretty = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
const color = pretty && process.stdout.isTTY === true && !process.env.NO_COLOR;
const watch = new StartWatch();

function relay(stream: NodeJS.ReadableStream, out: NodeJS.WritableStream): void {
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
    const record = parseLogLine(line);
    if (!record) return void out.write(`${line}\n`);
    out.write(`${prettyRecord(record, color)}\n`);
    const facts = watch.see(record);
    if (facts) process.stdout.write(`${startBanner(facts, color)}\n`);
  });
}

function run(name: string, script: string): void {
  const child = spawn(process.execPath, [join(root, script)], {
    cwd: root,
    stdio: pretty ? ['inherit', 'pipe', 'pipe'] : 'inherit',
    env: process.env,
  });
  if (pretty) {
    relay(child.stdout!, process.stdout);
    relay(child.stderr!, process.stderr);
  }
  children.set(name, child);
  // 'close', not 'exit': the relayed output is read to its end before the command exits.
  child.once('close', (code, signal) => {
    children.delete(name);
    if (!stopping) {
      console.error(`periscope: the ${name} exited (code ${code}, signal ${signal}); stopping`);
      stop('SIGTERM', 1);
    } else if (children.size === 0) {
      process.exit(process.exitCode ?? 0);
    }
  });
}

function stop(signal: NodeJS.Signals, exitCode = 0): void {
  if (stopping) return;
  stopping = true;
  process.exitCode = exitCode;
  if (children.size === 0) process.exit(exitCode);
  for (const child of children.values()) child.kill(signal);
  setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL');
    process.exit(exitCode || 1);
  }, 10_000).unref();
}

process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
run('service', 'server/service/main.ts');
run('portal', 'server/portal/main.ts');
