// Validates VEX documents imaxe wrote: every *.openvex.json of a directory against the OpenVEX
// 0.2.0 JSON schema (tests/data/vex), every *.cdx.json with @cyclonedx/cyclonedx-library's
// strict CycloneDX 1.6 validator. Prints "ok N" and exits 0, or names each invalid document and
// exits 1. usage: node vex_validate.js DIR
'use strict';
const fs = require('fs');
const path = require('path');
const modules = path.join(__dirname, '..', 'node_modules');
const Ajv2020 = require(path.join(modules, 'ajv', 'dist', '2020')).default;
const addFormats = require(path.join(modules, 'ajv-formats'));
const cdx = require(path.join(modules, '@cyclonedx', 'cyclonedx-library'));

async function main() {
  const dir = process.argv[2];
  const schema = JSON.parse(fs.readFileSync(
    path.join(__dirname, '..', 'data', 'vex', 'openvex_json_schema.json'), 'utf8'));
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const openvex = ajv.compile(schema);
  const strict = new cdx.Validation.JsonStrictValidator(cdx.Spec.Version.v1dot6);
  let n = 0, bad = 0;
  for (const name of fs.readdirSync(dir).sort()) {
    const text = fs.readFileSync(path.join(dir, name), 'utf8');
    if (name.endsWith('.openvex.json')) {
      n++;
      if (!openvex(JSON.parse(text))) {
        bad++;
        console.error(name + ': ' + JSON.stringify(openvex.errors.slice(0, 5)));
      }
    } else if (name.endsWith('.cdx.json')) {
      n++;
      const errors = await strict.validate(text);
      if (errors !== null) {
        bad++;
        console.error(name + ': ' + JSON.stringify(errors).slice(0, 2000));
      }
    }
  }
  console.log(bad ? 'invalid ' + bad + ' of ' + n : 'ok ' + n);
  process.exit(bad ? 1 : 0);
}
main().catch((e) => { console.error(e); process.exit(2); });
