// Publish: a form for one image manifest (POST /v1/images), or a pasted / dropped JSON
// manifest (loaded into the form) or NDJSON file (one manifest a line, imported all or nothing
// by POST /v1/images:import, its errors per line). The stack's compatibility report (POST /v1/compat/check) is shown
// live; a stack with errors is only published after the user says so. Server problems land
// on the fields their JSON pointers name.
import { api } from '../api.js';
import { h, put, clear, badge, imageLink, failure, noTeamState, errorBox, field, showFormError, clearFieldErrors, debounce, toast, busy, loading } from '../ui.js';
import { teams, user } from '../state.js';
import { renderFindings } from './image.js';

const PROVIDERS = ['aws', 'gcp', 'azure', 'onprem', 'oci-container'];
const COMPONENTS = ['nvidia-driver', 'cuda', 'cudnn', 'nccl', 'pytorch', 'tensorflow', 'python', 'nvidia-container-toolkit', 'dcgm', 'efa', 'linux-kernel'];
const list = (s) => String(s || '').split(',').map((x) => x.trim()).filter(Boolean);
const canPublish = (t) => ['publisher', 'admin'].includes(t.role);

/** Rows of inputs named like the JSON pointers the server answers with (components.0.version). */
function rowsEditor({ key, legend, cols, addLabel, onChange }) {
  const body = h('div', { class: 'rows-body' });
  const box = h('fieldset', { class: 'rows', 'data-pointer': `/${key}` }, h('legend', {}, legend), body);
  const renumber = () => {
    [...body.children].forEach((row, i) => {
      row.querySelectorAll('[data-col]').forEach((el) => {
        el.name = `${key}.${i}.${el.dataset.col}`;
        el.setAttribute('aria-label', `${cols.find((c) => c.col === el.dataset.col).label} ${i + 1}`);
      });
      row.querySelector('.row-remove').setAttribute('aria-label', `Remove ${legend.toLowerCase()} row ${i + 1}`);
    });
  };
  const add = (values = {}, { focus = false } = {}) => {
    const inputs = cols.map((c) => h('input', { 'data-col': c.col, value: values[c.col] ?? '', placeholder: c.placeholder, list: c.list, autocomplete: 'off', spellcheck: 'false' }));
    const row = h('div', { class: 'rows-row' }, inputs.map((i) => h('div', { class: 'field' }, i)), h('button', { type: 'button', class: 'secondary outline small row-remove', onclick: () => {
      const next = row.nextElementSibling || row.previousElementSibling;
      row.remove();
      renumber();
      onChange();
      (next?.querySelector('input') || addBtn).focus();
    } }, 'Remove'));
    body.append(row);
    renumber();
    if (focus) inputs[0].focus();
  };
  const addBtn = h('button', { type: 'button', class: 'secondary outline small', onclick: () => add({}, { focus: true }) }, addLabel);
  box.append(addBtn);
  return {
    el: box,
    add,
    set(items) {
      body.replaceChildren();
      (items.length ? items : [{}]).forEach((x) => add(x));
    },
    /** The filled rows as [{row, value}]: row is the position in the form, for pointers. */
    entries: () => [...body.children].map((row, i) => ({ row: i, value: Object.fromEntries([...row.querySelectorAll('[data-col]')].map((el) => [el.dataset.col, el.value.trim()])) })).filter((x) => Object.values(x.value).some(Boolean)),
  };
}

/** Rewrites /key/N/... pointers of a problem from positions in the sent list to form rows. */
function remap(err, maps) {
  const errors = (err.errors || []).map((e) => {
    const m = String(e.pointer || '').match(/^\/(\w+)\/(\d+)(\/.*)?$/);
    if (!m || !maps[m[1]]) return e;
    const row = maps[m[1]][Number(m[2])];
    return row == null ? e : { ...e, pointer: `/${m[1]}/${row}${m[3] || ''}` };
  });
  return Object.assign(Object.create(Object.getPrototypeOf(err)), err, { errors });
}

export async function render(ctx) {
  ctx.title('Publish an image');
  const mine = teams();
  const head = h('div', { class: 'page-head' }, h('h1', {}, 'Publish an image'), h('p', { class: 'lead' }, 'Describe one published version of an image family: its stack, its artifacts per region and the GPUs it targets. The stack is checked against the compatibility rules as you type.'));
  if (!mine.length) return put(ctx.root, head, noTeamState('Images are published by a team.', { admin: user.me?.admin }));

  const team = h('select', { name: 'team' }, mine.map((t) => h('option', { value: t.slug }, `${t.name || t.slug} (you: ${t.role})`)));
  const firstPub = mine.find(canPublish);
  if (firstPub) team.value = firstPub.slug;
  const family = h('input', { name: 'family', placeholder: 'pytorch-2.9-ubuntu24.04', autocomplete: 'off', spellcheck: 'false' });
  const version = h('input', { name: 'version', placeholder: '2026.04.01', autocomplete: 'off', spellcheck: 'false' });
  const provider = h('select', { name: 'provider' }, PROVIDERS.map((p) => h('option', { value: p }, p)));
  const arch = h('select', { name: 'architecture' }, ['x86_64', 'arm64'].map((a) => h('option', { value: a }, a)));
  const layer = h('select', { name: 'layer' }, [['platform', 'platform (driver + toolkit)'], ['model', 'model (framework on top)']].map(([v, l]) => h('option', { value: v }, l)));
  const osName = h('input', { name: 'os.name', placeholder: 'ubuntu', value: 'ubuntu', autocomplete: 'off' });
  const osVersion = h('input', { name: 'os.version', placeholder: '24.04', value: '24.04', autocomplete: 'off' });
  const kernel = h('input', { name: 'kernel', placeholder: '6.8.0-1024-aws (optional)', autocomplete: 'off', spellcheck: 'false' });
  const gpus = h('input', { name: 'gpus', placeholder: 'H100, H200', autocomplete: 'off' });
  const families = h('input', { name: 'instance_families', placeholder: 'p5, p4d (optional)', autocomplete: 'off' });
  const tags = h('input', { name: 'tags', placeholder: 'cis, fips (optional)', autocomplete: 'off' });
  const boot = h('input', { name: 'boot_seconds', type: 'number', inputmode: 'numeric', placeholder: 'optional' });
  const size = h('input', { name: 'size_gb', type: 'number', step: 'any', inputmode: 'decimal', placeholder: 'optional' });
  const parent = h('input', { name: 'parent', type: 'number', inputmode: 'numeric', placeholder: 'image id (optional)' });
  const description = h('textarea', { name: 'description', rows: 2, placeholder: 'What it is for (optional)' });
  const live = debounce(() => check(), 350);
  const components = rowsEditor({ key: 'components', legend: 'Components', addLabel: 'Add a component', onChange: live, cols: [{ col: 'name', label: 'Component', placeholder: 'nvidia-driver', list: 'publish-components' }, { col: 'version', label: 'Version', placeholder: '580.95.05' }] });
  const artifacts = rowsEditor({ key: 'artifacts', legend: 'Artifacts per region', addLabel: 'Add a region', onChange: () => {}, cols: [{ col: 'region', label: 'Region', placeholder: 'us-east-1' }, { col: 'id', label: 'Artifact id', placeholder: 'ami-0123456789abcdef0' }] });
  components.set([{ name: 'nvidia-driver' }, { name: 'cuda' }]);
  artifacts.set([{}]);

  const ack = h('input', { type: 'checkbox', name: 'acknowledge_errors' });
  const ackBox = h('div', { class: 'field ack-errors', hidden: true }, h('label', { class: 'check' }, ack, 'Publish although the compatibility report has errors'), h('small', { class: 'hint' }, 'Request matching never offers such an image; its page shows the errors.'));
  const compatBox = h('div', { class: 'live-compat', 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Enter component versions to check the stack.'));
  const resultBox = h('div', { class: 'publish-result' });
  const submit = h('button', { type: 'submit' }, 'Publish image');

  const form = h('form', { class: 'publish-form', novalidate: true, 'aria-label': 'Image manifest' },
    h('div', { class: 'form-error' }),
    h('div', { class: 'grid-fields' },
      field('Team', team, 'Publishing needs the publisher role in it.'),
      field('Family', family, 'The lineage, e.g. pytorch-2.9-ubuntu24.04.'),
      field('Version', version),
      field('Provider', provider),
      field('Architecture', arch),
      field('Layer', layer),
      field('OS name', osName),
      field('OS version', osVersion),
      field('Kernel', kernel)),
    components.el,
    h('div', { class: 'grid-fields' }, field('GPUs', gpus, 'Comma-separated GPU models.'), field('Instance families', families), field('Tags', tags)),
    artifacts.el,
    h('div', { class: 'grid-fields' }, field('Boot seconds', boot), field('Size (GB)', size), field('Parent image', parent, 'The image this one is built on.')),
    field('Description', description),
    ackBox,
    submit,
    h('datalist', { id: 'publish-components' }, COMPONENTS.map((c) => h('option', { value: c }))),
  );

  let rowMaps = {};
  const manifest = () => {
    const num = (el) => (el.value.trim() === '' ? undefined : Number(el.value));
    const comps = components.entries();
    const arts = artifacts.entries();
    rowMaps = { components: comps.map((x) => x.row), artifacts: arts.map((x) => x.row) };
    return {
      team: team.value,
      family: family.value.trim(),
      version: version.value.trim(),
      provider: provider.value,
      architecture: arch.value,
      os: { name: osName.value.trim(), version: osVersion.value.trim() },
      kernel: kernel.value.trim() || undefined,
      layer: layer.value,
      artifacts: arts.map((x) => x.value),
      components: comps.map((x) => x.value),
      gpus: list(gpus.value),
      instance_families: list(families.value),
      tags: list(tags.value),
      boot_seconds: num(boot),
      size_gb: num(size),
      parent: num(parent),
      description: description.value.trim() || undefined,
    };
  };

  const fill = (m) => {
    const set = (el, v) => (el.value = v == null ? '' : Array.isArray(v) ? v.join(', ') : String(v));
    if (m.team && mine.some((t) => t.slug === m.team)) team.value = m.team;
    set(family, m.family); set(version, m.version); set(kernel, m.kernel); set(gpus, m.gpus); set(families, m.instance_families); set(tags, m.tags);
    set(boot, m.boot_seconds); set(size, m.size_gb); set(parent, m.parent); set(description, m.description);
    if (m.provider) provider.value = m.provider;
    if (m.architecture) arch.value = m.architecture;
    if (m.layer) layer.value = m.layer;
    set(osName, m.os?.name); set(osVersion, m.os?.version);
    const comps = Array.isArray(m.components) ? m.components : Object.entries(m.components || {}).map(([name, v]) => ({ name, version: v }));
    components.set(comps);
    const arts = Array.isArray(m.artifacts) ? m.artifacts : Object.entries(m.artifacts || {}).map(([region, id]) => ({ region, id }));
    artifacts.set(arts);
    check();
  };

  let report = null;
  let seq = 0;
  async function check() {
    const m = manifest();
    const rows = components.entries().filter((x) => x.value.name && x.value.version);
    const comps = rows.map((x) => x.value);
    const my = ++seq;
    if (!comps.length) {
      report = null;
      ackBox.hidden = true;
      return clear(compatBox, h('p', { class: 'muted' }, 'Enter component versions to check the stack.'));
    }
    compatBox.setAttribute('aria-busy', 'true');
    try {
      const d = await api('/compat/check', { method: 'POST', body: { components: comps, gpus: m.gpus }, signal: ctx.signal });
      if (my !== seq) return;
      report = d;
      const errors = (d.findings || []).filter((f) => f.severity === 'error').length;
      ackBox.hidden = !errors;
      if (!errors) ack.checked = false;
      clear(compatBox, h('h2', { class: 'h3' }, errors ? `${errors} compatibility error${errors === 1 ? '' : 's'}` : 'Compatible'), renderFindings(d.findings));
    } catch (e) {
      if (my !== seq || e.name === 'AbortError') return;
      report = null;
      // A version the checker cannot read is the form's business: say it where it belongs.
      clear(compatBox, e.errors?.length ? h('p', { class: 'muted' }, 'Fix the highlighted versions to check the stack.') : failure(e, 'The compatibility check'));
      if (e.errors?.length) showFormError(form, remap({ ...e, errors: e.errors.filter((x) => /^\/components\//.test(x.pointer)) }, { components: rows.map((x) => x.row) }));
    } finally {
      if (my === seq) compatBox.removeAttribute('aria-busy');
    }
  }
  form.addEventListener('input', (e) => {
    if (e.target.closest('[data-pointer="/components"]') || e.target === gpus) live();
  });

  function published(img) {
    const c = img.compatibility || {};
    const box = h('section', { class: 'panel result', 'aria-labelledby': 'publish-done', tabindex: '-1' },
      h('div', { class: 'panel-head' }, h('h2', { id: 'publish-done' }, 'Published ', imageLink(img)), badge(c.ok === false ? 'error' : 'ok', { kind: 'sev', label: c.ok === false ? `${c.errors} compatibility error${c.errors === 1 ? '' : 's'}` : 'Compatible' })),
      h('div', { class: 'panel-body' }, h('p', {}, `Image ${img.id} of ${img.team || team.value}. Scripts resolving `, h('code', {}, img.family), ' pick it up now.')));
    clear(resultBox, box);
    box.focus();
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearFieldErrors(form);
    const m = manifest();
    const errors = [];
    if (!m.family) errors.push({ pointer: '/family', detail: 'Name the image family.' });
    if (!m.version) errors.push({ pointer: '/version', detail: 'Give the version.' });
    if (!m.artifacts.length) errors.push({ pointer: '/artifacts/0/region', detail: 'Add at least one region and its artifact id.' });
    const errs = (report?.findings || []).filter((f) => f.severity === 'error').length;
    if (errs && !ack.checked) errors.push({ pointer: '/acknowledge_errors', detail: `The stack has ${errs} compatibility error${errs === 1 ? '' : 's'}: fix ${errs === 1 ? 'it' : 'them'}, or confirm that it should be published anyway.` });
    if (errors.length) return showFormError(form, { title: 'The manifest is not ready', errors });
    await busy(submit, async () => {
      try {
        const img = await api('/images', { method: 'POST', body: m });
        toast(`Published ${img.family} ${img.version}`);
        published(img);
      } catch (err) {
        showFormError(form, remap(err, rowMaps));
      }
    });
  });

  // ---- paste or drop a manifest (JSON) or several (NDJSON) --------------------------------
  const paste = h('textarea', { name: 'paste', rows: 5, spellcheck: 'false', placeholder: '{"family": "…", "version": "…", …}  or one manifest a line (NDJSON)', class: 'mono' });
  const file = h('input', { type: 'file', accept: '.json,.ndjson,.jsonl,application/json,application/x-ndjson' });
  const importBox = h('div', { class: 'import-result', 'aria-live': 'polite' });
  const importForm = h('form', { class: 'paste-form', novalidate: true, 'aria-label': 'Paste a manifest' },
    h('div', { class: 'form-error' }),
    field('Manifest JSON or NDJSON', paste, 'One JSON object fills the form above; several lines (NDJSON) are published together, all or none. You can also drop a file here.'),
    h('div', { class: 'field' }, h('label', {}, 'Or choose a file ', file)),
    h('button', { type: 'submit', class: 'secondary' }, 'Use this'),
    importBox);
  const readFile = async (f) => {
    paste.value = await f.text();
    paste.focus();
  };
  file.addEventListener('change', () => file.files[0] && readFile(file.files[0]));
  importForm.addEventListener('dragover', (e) => e.preventDefault());
  importForm.addEventListener('drop', (e) => {
    e.preventDefault();
    if (e.dataTransfer.files[0]) readFile(e.dataTransfer.files[0]);
  });
  importForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearFieldErrors(importForm);
    clear(importBox);
    const text = paste.value.trim();
    const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
    let docs;
    try {
      docs = lines.length > 1 && lines.every((l) => l.startsWith('{')) ? lines.map((l) => JSON.parse(l)) : [JSON.parse(text)];
    } catch (err) {
      return showFormError(importForm, { title: 'Not JSON', errors: [{ pointer: '/paste', detail: `This is neither one JSON manifest nor NDJSON: ${err.message}` }] });
    }
    if (docs.length === 1) {
      fill(docs[0]);
      toast('Manifest loaded into the form');
      family.focus();
      return;
    }
    // Several manifests: one all-or-nothing POST /v1/images:import; a bad line refuses the
    // import and the errors name their lines. A line without a team gets the form's.
    const body = docs.map((d) => JSON.stringify({ team: team.value, ...d })).join('\n');
    const results = h('div', { 'data-testid': 'ndjson-results' }, loading(`Importing ${docs.length} manifests…`));
    clear(importBox, results);
    try {
      const d = await api('/images:import', { method: 'POST', text: `${body}\n`, contentType: 'application/x-ndjson' });
      toast(`Published ${d.imported} images`);
      clear(results, h('h3', {}, `Published ${d.imported} image${d.imported === 1 ? '' : 's'}`), h('ol', { class: 'import-lines' }, (d.images || []).map((img) => h('li', { 'data-line': img.line }, `Line ${img.line}: `, imageLink(img), img.compatibility?.ok === false ? [' ', badge('error', { kind: 'sev', label: `${img.compatibility.errors} compatibility error${img.compatibility.errors === 1 ? '' : 's'}` })] : null))));
    } catch (err) {
      const byLine = new Map();
      for (const x of err.errors || []) byLine.set(x.line ?? 0, [...(byLine.get(x.line ?? 0) || []), x]);
      clear(results, byLine.size
        ? h('div', { class: 'state state-error', role: 'alert' }, h('p', { class: 'state-title' }, `Nothing was published: ${err.detail || err.title}`),
            h('ul', { class: 'import-errors' }, [...byLine].sort((x, y) => x[0] - y[0]).map(([n, list]) => h('li', { 'data-line': n }, n ? h('strong', {}, `Line ${n}`) : null, h('ul', {}, list.map((x) => h('li', {}, x.pointer ? [h('code', {}, x.pointer), ' '] : null, x.detail)))))))
        : errorBox(err, { context: 'Import' }));
    }
  });

  put(ctx.root, head,
    h('div', { class: 'request-layout' },
      h('section', { class: 'panel', 'aria-label': 'Manifest' }, h('div', { class: 'panel-body' }, form)),
      h('aside', { class: 'panel live', 'aria-label': 'Compatibility' }, h('div', { class: 'panel-body' }, compatBox))),
    resultBox,
    h('section', { class: 'panel', 'aria-labelledby': 'paste-title' }, h('div', { class: 'panel-head' }, h('h2', { id: 'paste-title' }, 'Paste or drop a manifest')), h('div', { class: 'panel-body' }, importForm)));
  if (!firstPub) form.prepend(h('p', { class: 'notice', role: 'note' }, 'You are not a publisher in any of your teams: the server will refuse to publish.'));
}
