// The only door to the /v1 API: the session cookie (HttpOnly, shared by every tab, set by
// POST /v1/auth/session), the CSRF token echoed on writes, JSON in and out, and RFC 9457
// problem+json turned into ApiError with readable messages and field pointers.

const CSRF_COOKIE = 'imaxe_csrf';
const CSRF_HEADER = 'X-CSRF-Token';

function csrfToken() {
  const m = document.cookie.match(new RegExp(`(?:^|;\\s*)${CSRF_COOKIE}=([^;]*)`));
  return m ? decodeURIComponent(m[1]) : null;
}

// The session itself is an HttpOnly cookie the page cannot read; its readable CSRF cookie, set
// and cleared with it, says whether this browser is signed in. Every tab sees the same cookies.
export const session = {
  /** Truthy while signed in (the CSRF token), null when not. */
  get token() {
    return csrfToken();
  },
  /** Forgets the session on this side (the server has ended it, or is being told to). */
  clear() {
    document.cookie = `${CSRF_COOKIE}=; Max-Age=0; Path=/; SameSite=Lax`;
  },
};

/** An API failure: status, a one-line message, and per-field errors as JSON pointers. */
export class ApiError extends Error {
  constructor(status, problem = {}, fallback = '') {
    const title = problem.title || fallback || `Request failed (${status})`;
    super(problem.detail || title);
    this.name = 'ApiError';
    this.status = status;
    this.type = problem.type || 'about:blank';
    this.title = title;
    this.detail = problem.detail || '';
    this.errors = Array.isArray(problem.errors) ? problem.errors : [];
  }
  /** The server does not offer this endpoint (an older or trimmed-down server). */
  get unavailable() {
    return this.status === 405 || this.status === 501;
  }
}

let onUnauthorized = () => {};
/** The app tells us how to send the user to sign in when a token is refused. */
export function setUnauthorizedHandler(fn) {
  onUnauthorized = fn;
}

function queryString(query) {
  if (!query) return '';
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) v.forEach((x) => x !== '' && x != null && qs.append(k, x));
    else qs.append(k, String(v));
  }
  const s = qs.toString();
  return s ? `?${s}` : '';
}

/**
 * Calls /v1<path>. Options: method, query (object; arrays repeat the key), body (JSON), or
 * text with contentType (an NDJSON or CSV upload), headers (If-Match), signal, auth (false for
 * sign-in), meta (resolve to {data, etag, status} instead of the body). Resolves to the parsed
 * body (null for 204).
 */
export async function api(path, { method = 'GET', query, body, text, contentType, signal, auth = true, headers = {}, meta = false } = {}) {
  const h = { Accept: 'application/json, application/problem+json', ...headers };
  const csrf = csrfToken();
  if (csrf && !['GET', 'HEAD', 'OPTIONS'].includes(method)) h[CSRF_HEADER] = csrf;
  if (body !== undefined) h['Content-Type'] = 'application/json';
  else if (text !== undefined) h['Content-Type'] = contentType || 'text/plain';
  let res;
  try {
    res = await fetch(`/v1${path}${queryString(query)}`, {
      method,
      headers: h,
      body: body !== undefined ? JSON.stringify(body) : text,
      signal,
      credentials: 'same-origin',
    });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(0, { title: 'Could not reach the imaxe server', detail: 'Check your connection and try again.' });
  }
  const type = res.headers.get('Content-Type') || '';
  let data = null;
  if (res.status !== 204 && res.status !== 304) {
    const text = await res.text();
    if (text && /json/.test(type)) {
      try {
        data = JSON.parse(text);
      } catch {
        data = null;
      }
    } else data = text || null;
  }
  if (!res.ok) {
    const problem = data && typeof data === 'object' ? data : {};
    const err = new ApiError(res.status, problem, res.statusText);
    if (res.status === 401 && auth) {
      session.clear();
      onUnauthorized(err);
    }
    throw err;
  }
  return meta ? { data, etag: res.headers.get('ETag'), status: res.status } : data;
}

/**
 * Every page of a keyset list (GET /v1<path>, at most maxPages of limit each): follows next_cursor
 * and gathers the pages into the first one. merge(doc, page) adds a page (default: its items to
 * doc.items). Resolves to the first page's document, with next_cursor of the last page read (not
 * null when maxPages stopped the walk).
 */
export async function apiAll(path, opts = {}, { limit = 200, maxPages = 25, merge = (doc, page) => { doc.items = [...(doc.items || []), ...(page.items || [])]; } } = {}) {
  const query = { ...(opts.query || {}), limit };
  const doc = await api(path, { ...opts, query });
  let next = doc?.next_cursor;
  for (let n = 1; next && n < maxPages; n++) {
    const page = await api(path, { ...opts, query: { ...query, cursor: next } });
    merge(doc, page);
    next = page?.next_cursor;
  }
  if (doc) doc.next_cursor = next || null;
  return doc;
}

/** merge for GET /v1/advisories/{id}/affected: a family continues across pages. */
export function mergeFamilies(doc, page) {
  const fams = doc.families || (doc.families = []);
  for (const f of page.families || []) {
    const last = fams[fams.length - 1];
    if (last && last.family === f.family) last.images = [...(last.images || []), ...(f.images || [])];
    else fams.push(f);
  }
}
