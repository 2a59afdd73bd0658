// Runs the browser test files given on the command line, two at a time, in the order given
// (tools/test-web.sh lists the longest first). `node --test FILES` sorts the files by name
// (Node 20) and so started the longest file last, alone, after the short ones: the step lasted
// as long as the short files and the long one end to end. TAP on stdout; exit 1 when a test fails.
//   node tests/web/run.mjs FILE...
import path from 'node:path';
import { run } from 'node:test';
import { tap } from 'node:test/reporters';

const files = process.argv.slice(2).map((f) => path.resolve(f));
if (!files.length) {
  console.error('usage: node tests/web/run.mjs FILE...');
  process.exit(2);
}
// Each file is its own process (server, PostgreSQL, chromium); a test has 15 minutes.
const stream = run({ files, concurrency: 2, timeout: 900000 });
stream.on('test:fail', () => {
  process.exitCode = 1;
});
stream.compose(tap).pipe(process.stdout);
