#!/usr/bin/env node
// The conformance check (make test): every response the server logged during the test run
// (IMAXE_CONFORMANCE_LOG=DIR, one NDJSON line each, server/http/conformance.c) is checked
// against the dereferenced contract (api/openapi.yaml as build/openapi.json) with Ajv 2020:
// the operation and its status are documented (a 2xx or 3xx must be listed by number; an error
// may fall to `default`), the content type is one the response declares, required headers are
// there, no undeclared one is sent, every declared header present matches its schema, and a JSON
// body passes its schema.
// The run fails on any failure and on any operation of the contract that no test answered with
// a success, in the spirit of Redis's utils/req-res-log-validator.py.
//
//   node tools/conformance.mjs build/openapi.json DIR [DIR...]
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(new URL('../tests/package.json', import.meta.url));
const Ajv2020 = require('ajv/dist/2020').default;
const addFormats = require('ajv-formats');

const MAX_REPORTED = 400; // distinct failures printed; the count covers all of them
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

const [specPath, ...dirs] = process.argv.slice(2);
if (!specPath || dirs.length === 0) {
  console.error('usage: conformance.mjs SPEC.json LOGDIR [LOGDIR...]');
  process.exit(2);
}
const spec = JSON.parse(fs.readFileSync(specPath, 'utf8'));
const SPEC_ID = 'imaxe-openapi.json';

// Responses are checked closed: an object schema that lists properties and says nothing of others
// is taken as allowing no others (unevaluatedProperties: false, so allOf compositions still see
// their members' properties), and so is a composition. Members of an allOf stay open: the
// composition closes them. An undeclared field in an answer is then a failure.
const allOfMembers = new Set();
(function collect(node) {
  if (Array.isArray(node)) return node.forEach(collect);
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node.allOf))
    for (const m of node.allOf) if (m && typeof m.$ref === 'string') allOfMembers.add(m.$ref);
  Object.values(node).forEach(collect);
})(spec);
(function close(node, inAllOf, ref) {
  if (Array.isArray(node)) return node.forEach((n) => close(n, inAllOf));
  if (!node || typeof node !== 'object') return;
  if (typeof node.$ref === 'string' && !inAllOf && allOfMembers.has(node.$ref)) {
    // A schema that is elsewhere an allOf member, used on its own here: close it at this use.
    node.allOf = [{ $ref: node.$ref }];
    delete node.$ref;
    node.unevaluatedProperties = false;
    return;
  }
  const open = !('additionalProperties' in node) && !('unevaluatedProperties' in node);
  if (open && !inAllOf && !allOfMembers.has(ref) && (node.properties || node.allOf))
    node.unevaluatedProperties = false;
  for (const [k, v] of Object.entries(node)) {
    if (k === 'allOf') close(v, true);
    else if (k === 'schemas' && node === spec.components)
      for (const [name, sch] of Object.entries(v)) close(sch, false, `#/components/schemas/${name}`);
    else if (k === 'properties' || k === 'patternProperties' || k === '$defs')
      Object.values(v || {}).forEach((sch) => close(sch, false));
    else if (k !== 'examples' && k !== 'example' && k !== 'default' && k !== 'enum' && k !== 'const')
      close(v, false);
  }
})(spec, false);

const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
addFormats(ajv);
ajv.addSchema(spec, SPEC_ID);

// Resolves an OpenAPI-level $ref (responses, headers, parameters); schemas stay for Ajv.
function deref(obj) {
  let o = obj;
  for (let i = 0; o && o.$ref && i < 16; i++) {
    if (!o.$ref.startsWith('#/')) throw new Error(`external $ref ${o.$ref}`);
    o = o.$ref
      .slice(2)
      .split('/')
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((acc, k) => (acc == null ? acc : acc[k]), spec);
  }
  if (!o) throw new Error(`unresolved $ref ${obj.$ref}`);
  return o;
}
const pointer = (...parts) =>
  '#/' + parts.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

const validators = new Map();
function validatorFor(ref) {
  let v = validators.get(ref);
  if (!v) {
    v = ajv.getSchema(SPEC_ID + ref);
    if (!v) throw new Error(`no schema at ${ref}`);
    validators.set(ref, v);
  }
  return v;
}

// Every operation, and whether a test exercised it with a success.
const operations = new Map();
for (const [route, item] of Object.entries(spec.paths || {}))
  for (const m of METHODS)
    if (item[m]) operations.set(`${m.toUpperCase()} ${route}`, { route, method: m, ok: 0, seen: 0 });

const failures = new Map(); // message -> {count, example}
function fail(key, message, line) {
  const k = `${key}: ${message}`;
  const f = failures.get(k);
  if (f) f.count++;
  else failures.set(k, { count: 1, example: `${line.method} ${line.path} (request ${line.request_id})` });
}

function mediaType(ct) {
  return (ct || '').split(';')[0].trim().toLowerCase();
}

// Headers any answer may carry without each response listing them: the content type, the
// request id, and the rate-limit headers of every signed-in answer (described once, in the
// contract's info). Any other header the server sends must be declared on that response.
const GLOBAL_HEADERS = new Set(['content-type', 'x-request-id', 'ratelimit', 'ratelimit-policy']);

function checkHeaders(key, respPath, resp, line) {
  const declared = new Set(Object.keys(resp.headers || {}).map((h) => h.toLowerCase()));
  for (const name of Object.keys(line.headers))
    if (!GLOBAL_HEADERS.has(name) && !declared.has(name))
      fail(key, `header ${name} sent but not declared`, line);
  for (const [name, hdr0] of Object.entries(resp.headers || {})) {
    const hdr = deref(hdr0);
    const value = line.headers[name.toLowerCase()];
    if (value === undefined) {
      if (hdr.required) fail(key, `required header ${name} missing`, line);
      continue;
    }
    if (!hdr.schema) continue;
    let schemaRef;
    if (hdr0.$ref) schemaRef = hdr0.$ref.slice(1) + '/schema';
    else schemaRef = respPath + '/headers/' + name.replace(/~/g, '~0').replace(/\//g, '~1') + '/schema';
    const v = validatorFor('#' + schemaRef.replace(/^#/, ''));
    const s = deref(hdr.schema);
    const typed = s.type === 'integer' || s.type === 'number' ? Number(value) : value;
    if (!v(typed)) fail(key, `header ${name}: ${ajv.errorsText(v.errors)}`, line);
  }
}

function checkLine(line) {
  if (!line.route) return;
  const method = line.method === 'HEAD' ? 'get' : line.method.toLowerCase();
  const key = `${method.toUpperCase()} ${line.route} ${line.status}`;
  const op = operations.get(`${method.toUpperCase()} ${line.route}`);
  if (!op) {
    fail(key, 'operation not in the contract', line);
    return;
  }
  op.seen++;
  const opObj = spec.paths[line.route][method];
  const responses = opObj.responses || {};
  let code = String(line.status);
  if (!responses[code]) {
    const range = `${code[0]}XX`;
    if (responses[range]) code = range;
    else if (line.status >= 400 && responses.default) code = 'default';
    else {
      fail(key, `status ${line.status} not documented`, line);
      return;
    }
  }
  if (line.status < 400) op.ok++;
  let respPath = pointer('paths', line.route, method, 'responses', code);
  const resp0 = responses[code];
  const resp = deref(resp0);
  if (resp0.$ref) respPath = resp0.$ref;
  checkHeaders(key, respPath, resp, line);
  const ct = mediaType(line.headers['content-type']);
  const content = resp.content || {};
  const types = Object.keys(content);
  if (types.length === 0) {
    if (line.body !== undefined || line.body_invalid !== undefined)
      fail(key, `a body (${ct}) where the contract declares none`, line);
    return;
  }
  if (line.method === 'HEAD') return;
  const match = types.find(
    (t) => t === ct || t === '*/*' || (t.endsWith('/*') && ct.startsWith(t.slice(0, -1))),
  );
  if (!match) {
    fail(key, `content type '${ct}' not among ${types.join(', ')}`, line);
    return;
  }
  if (line.body_invalid !== undefined) {
    fail(key, `body is not JSON (${line.body_invalid})`, line);
    return;
  }
  if (line.body === undefined || !content[match].schema) return;
  const v = validatorFor(respPath.replace(/^#/, '#') + '/content/' + match.replace(/\//g, '~1') + '/schema');
  if (!v(line.body)) {
    const errs = (v.errors || [])
      .slice(0, 4)
      .map((e) => `${e.instancePath || '/'} ${e.message}${e.params && (e.params.additionalProperty || e.params.unevaluatedProperty) ? ` (${e.params.additionalProperty || e.params.unevaluatedProperty})` : ''}`)
      .join('; ');
    fail(key, `body: ${errs}`, line);
  }
}

let lines = 0;
let files = 0;
for (const dir of dirs) {
  if (!fs.existsSync(dir)) continue;
  for (const name of fs.readdirSync(dir).sort()) {
    if (!name.endsWith('.ndjson')) continue;
    files++;
    const text = fs.readFileSync(path.join(dir, name), 'utf8').split('\n');
    for (let i = 0; i < text.length; i++) {
      const raw = text[i];
      if (!raw) continue;
      let line;
      try {
        line = JSON.parse(raw);
      } catch (e) {
        fail(name, `unreadable log line ${i + 1} (${e.message})`, { method: '?', path: '?', request_id: '?' });
        continue;
      }
      // A JSON body follows its line as the server sent it.
      if (line.body_bytes !== undefined) {
        const body = text[++i] ?? '';
        try {
          line.body = JSON.parse(body);
        } catch (e) {
          line.body_invalid = e.message;
        }
      }
      lines++;
      try {
        checkLine(line);
      } catch (e) {
        fail(`${line.method} ${line.route}`, `validator error: ${e.message}`, line);
      }
    }
  }
}

let nfail = 0;
let shown = 0;
for (const [k, f] of [...failures.entries()].sort()) {
  nfail += f.count;
  if (shown++ < MAX_REPORTED) console.log(`FAIL ${k} (x${f.count}; e.g. ${f.example})`);
}
const never = [...operations.entries()].filter(([, o]) => o.ok === 0);
for (const [k, o] of never)
  console.log(`NEVER ${k}${o.seen ? ` (answered ${o.seen} time(s), never with a success)` : ''}`);
console.log(
  `conformance: ${lines} responses in ${files} log file(s), ${operations.size} operations, ` +
    `${operations.size - never.length} exercised with a success, ${never.length} never; ` +
    `${nfail} failing responses (${failures.size} distinct)`,
);
if (lines === 0) {
  console.log('conformance: no responses were logged (was IMAXE_CONFORMANCE_LOG set?)');
  process.exit(1);
}
process.exit(nfail > 0 || never.length > 0 ? 1 : 0);
