// The API reference: Redoc (vendored, web/vendor/redoc@2.5.2) renders the server's own
// /openapi.json, so the page always shows the contract this server answers by.
'use strict';
(function start() {
  const root = document.getElementById('redoc');
  if (!window.Redoc) {
    root.textContent = 'The reference renderer did not load; the contract is at /openapi.json.';
    return;
  }
  window.Redoc.init('/openapi.json', {
    hideDownloadButton: false,
    expandResponses: '200,201',
    jsonSampleExpandLevel: 2,
    sortPropsAlphabetically: false,
    theme: { typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' } } },
  }, root, (err) => {
    root.removeAttribute('aria-busy');
    if (err) root.textContent = `The reference could not be rendered: ${err.message || err}`;
  });
})();
