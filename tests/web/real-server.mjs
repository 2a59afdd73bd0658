// The browser tests' world: a throwaway PostgreSQL cluster (tools/pg.sh, fsync off), the real
// imaxe-server on a free port, a loopback webhook receiver it may deliver to
// (IMAXE_WEBHOOK_ALLOW_HOSTS), and a small catalog seeded through the real /v1 API (seed.mjs).
// Run alone for UI work:  node tests/web/real-server.mjs   (prints the URL and the sign-in;
// Ctrl-C stops the server and removes the cluster).
import { spawn, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { seed, USER, ADMIN } from './seed.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '../..');

/** A loopback HTTP receiver that records every webhook delivery (headers and body). */
function startReceiver() {
  const received = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let body = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString());
      } catch {
        body = null;
      }
      received.push({ path: req.url, headers: req.headers, body });
      res.writeHead(204);
      res.end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ port: server.address().port, received, close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r); }) }),
    ),
  );
}

/** Waits for the server's "listening on http://host:port/" log line; resolves the base URL. */
function waitForListen(child, logFile, timeoutMs) {
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => done(new Error(`imaxe-server did not start within ${timeoutMs} ms; see ${logFile}`)), timeoutMs);
    const log = fs.createWriteStream(logFile);
    const onData = (d) => {
      log.write(d);
      buf += d.toString();
      const m = buf.match(/listening on (http:\/\/[^\s"/]+)\//);
      if (m) done(null, m[1]);
    };
    const onExit = (code) => done(new Error(`imaxe-server exited (${code}) before listening; see ${logFile}`));
    function done(err, url) {
      clearTimeout(timer);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve(url);
    }
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', onExit);
  });
}

/**
 * Starts PostgreSQL, the server and the receiver, and seeds the catalog. Resolves
 * { url, receiver, data (ids from seed.mjs), stop() }.
 */
export async function startRealServer({ server = path.join(ROOT, 'build/imaxe-server'), logDir = path.join(ROOT, 'build'), env = {}, seedCatalog = true, logName = 'web-test-server.log' } = {}) {
  if (!fs.existsSync(server)) throw new Error(`${server} is missing: run make build first`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'imaxe-web-'));
  fs.chmodSync(tmp, 0o755); // as root, pg.sh hands the cluster to `postgres`, who must reach it
  const pgDir = path.join(tmp, 'pg');
  // The cluster listens on a Unix socket in its own directory only, so the port never collides.
  const pgPort = String(20000 + crypto.randomInt(20000));
  const pgsh = path.join(ROOT, 'tools/pg.sh');
  let child = null;
  let receiver = null;
  const stop = async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    await receiver?.close();
    try {
      execFileSync(pgsh, ['stop', pgDir], { stdio: 'ignore' });
    } catch {
      /* already stopped */
    }
    // pg.sh may have put the cluster under /var/tmp behind a symlink (root + unreachable dir).
    const real = fs.existsSync(pgDir) ? fs.realpathSync(pgDir) : null;
    if (real && real !== pgDir) fs.rmSync(real, { recursive: true, force: true });
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  try {
    const dbUrl = execFileSync(pgsh, ['start', pgDir, pgPort, 'fast'], { encoding: 'utf8' }).trim();
    receiver = await startReceiver();
    fs.mkdirSync(logDir, { recursive: true });
    child = spawn(server, [], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        IMAXE_DATABASE_URL: dbUrl,
        IMAXE_BIND: '127.0.0.1',
        IMAXE_PORT: '0',
        IMAXE_JWT_SECRET: crypto.randomBytes(48).toString('base64'),
        IMAXE_ADMIN_EMAIL: ADMIN.email,
        IMAXE_ADMIN_PASSWORD: ADMIN.password,
        IMAXE_CATALOG_TEAM: 'ml-platform',
        IMAXE_WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${receiver.port}`,
        IMAXE_WEBHOOK_POLL_MS: '200',
        IMAXE_WEBHOOK_TIMEOUT_MS: '3000',
        IMAXE_ACCESS_LOG: '0',
        ...(process.env.IMAXE_CONFORMANCE_LOG ? { IMAXE_CONFORMANCE_LOG: process.env.IMAXE_CONFORMANCE_LOG } : {}),
        IMAXE_DB_POOL_SIZE: '8',
        // The exposure snapshot every second, so today's row follows what the tests seed.
        IMAXE_EXPOSURE_CHECK_S: '1',
        // IMX_WEB_DIR serves another copy of the UI (e.g. main's, to see a new test fail on it).
        ...(process.env.IMX_WEB_DIR ? { IMAXE_WEB_DIR: process.env.IMX_WEB_DIR } : {}),
        // A test's own settings (the single sign-on test's provider, a fixed port).
        ...env,
      },
    });
    const url = await waitForListen(child, path.join(logDir, logName), 30000);
    const data = seedCatalog ? await seed(url, { receiverPort: receiver.port }) : null;
    return { url, receiver, data, stop, dbUrl };
  } catch (e) {
    await stop();
    throw e;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const s = await startRealServer();
  console.log(`imaxe-server with the test catalog on ${s.url}/ — sign in as ${USER.email} / ${USER.password} (global admin: ${ADMIN.email} / ${ADMIN.password}); Ctrl-C stops it`);
  const quit = async () => {
    await s.stop();
    process.exit(0);
  };
  process.on('SIGINT', quit);
  process.on('SIGTERM', quit);
}
